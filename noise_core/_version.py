"""The version of noise_core, in one place (the facade and the tiled bakes' manifests read it)."""

__version__ = "0.1.0"
