"""Files in and out of ``noise_core``: ``files`` (whole-or-nothing writes, staged sets), ``images`` (PNG,
OpenEXR, TIFF through Pillow/pypng/OpenEXR/tifffile), ``heightmaps`` (heightmap files and tile sets with their
JSON sidecar) and ``engines`` (Unreal, Unity and Godot conventions). The bottom layer: it imports no noise or
terrain module (docs/architecture.md).
"""
