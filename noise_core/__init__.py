"""noise_core: procedural noise on numpy + Numba, with no Blender dependency.

Public API::

    spec = NoiseSpec(kind="perlin", frequency=4, octaves=5)
    values = evaluate(spec, points)             # (N, d) -> (N,) float32
    image = evaluate_grid(spec, (height, width))  # (H, W) float32
    eroded = erode_hydraulic(image * 100.0, droplets=200_000).heights
    rivers = erode_fluvial(image * 100.0, steps=200, dt=5e3, uplift=1e-3, erodibility=2e-5, cell_size=10.0)
    write_heightmap("land.r16", values01, height_range=(0, 500), unit="m", engine="unreal")  # + .json sidecar
    lakes = water(image * 100.0, cell_size=10.0, rain=0.5)      # lakes, water level, rivers, flow map
    land = build_heights(read_preset("alpine_ridges"), 257)   # a terrain recipe's heights, (257, 257) float32

Compiled kernels are cached on disk (``set_cache_dir`` chooses where); ``compile_state`` and
``precompile`` tell whether a call would compile first and do it ahead of time. Importing checks that
numba is recent enough (``NumbaVersionError`` otherwise).

Docstrings cite the source texts as "seed 000" to "seed 004"; docs/sources.md says which text each is.
Every kind is described once, by its registry row (``registry.py``, rows in the family modules).
"""

from ._compat import NumbaVersionError, check_numba

check_numba()

from ._cache import CacheWarning, cache_location, set_cache_dir  # noqa: E402
from ._version import __version__ as __version__  # noqa: E402
from .api import compile_state, evaluate, evaluate_grid, kind_names, precompile  # noqa: E402
from .io.heightmaps import Heightmap, read_heightmap, write_heightmap, write_tiles  # noqa: E402
from .ranges import value_range  # noqa: E402
from .spec import NoiseSpec  # noqa: E402
from .terrain.erosion import ErosionResult, depressions, erode_hydraulic, erode_thermal  # noqa: E402
from .terrain.flow import fill_depressions, flow_accumulation  # noqa: E402
from .terrain.fluvial import FluvialResult, erode_fluvial  # noqa: E402
from .terrain.landscape import aggrade_valleys, evolve_landscape, fill_valleys  # noqa: E402
from .terrain.layers import compute_layers, deposits  # noqa: E402
from .terrain.maps import (  # noqa: E402
    aspect,
    compute_maps,
    curvature,
    occlusion,
    openness,
    relative_height,
    slope,
    wetness_index,
)
from .terrain.recipe import Recipe, build_heights, build_terrain, read_preset, read_recipe, write_recipe  # noqa: E402
from .terrain.splat import Band, SplatLayer, splat_weights, write_splat  # noqa: E402
from .terrain.water import River, WaterResult, carve_rivers, water  # noqa: E402

__all__ = [
    "Band",
    "CacheWarning",
    "ErosionResult",
    "FluvialResult",
    "Heightmap",
    "NoiseSpec",
    "NumbaVersionError",
    "Recipe",
    "River",
    "SplatLayer",
    "WaterResult",
    "aggrade_valleys",
    "aspect",
    "build_heights",
    "build_terrain",
    "cache_location",
    "carve_rivers",
    "compile_state",
    "compute_layers",
    "compute_maps",
    "curvature",
    "deposits",
    "depressions",
    "erode_fluvial",
    "erode_hydraulic",
    "erode_thermal",
    "evaluate",
    "evaluate_grid",
    "evolve_landscape",
    "fill_depressions",
    "fill_valleys",
    "flow_accumulation",
    "kind_names",
    "occlusion",
    "openness",
    "precompile",
    "read_heightmap",
    "read_preset",
    "read_recipe",
    "relative_height",
    "set_cache_dir",
    "slope",
    "splat_weights",
    "value_range",
    "water",
    "wetness_index",
    "write_heightmap",
    "write_recipe",
    "write_splat",
    "write_tiles",
]
