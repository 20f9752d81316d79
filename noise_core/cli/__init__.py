"""The command line, ``python -m noise_core``: ``main`` (bake and the shared parser), ``erode``, ``maps``,
``stats``."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
