"""noise_core: procedural noise on numpy + Numba, with no Blender dependency.

Public API::

    spec = NoiseSpec(kind="perlin", frequency=4, octaves=5)
    values = evaluate(spec, points)             # (N, d) -> (N,) float32
    image = evaluate_grid(spec, (height, width))  # (H, W) float32
"""

from .api import evaluate, evaluate_grid, kinds
from .ranges import value_range
from .spec import NoiseSpec

__all__ = ["NoiseSpec", "evaluate", "evaluate_grid", "kinds", "value_range"]
__version__ = "0.1.0"
