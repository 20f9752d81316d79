"""The add-on's Python API: the plain functions under its operators, for scripts and other add-ons.

``from bl_ext.<repository>.noisewright import api`` (or the extension's package name), then e.g.::

    spec = api.NoiseSpec(kind="perlin", octaves=5)
    terrain = api.add_terrain(bpy.context, spec, x_subdivisions=256, y_subdivisions=256, height=0.8)

Each function lives in its feature module beside its operator (``displace``, ``terrain``, ``erode``,
``erode_fluvial``, ``bake``, ``bake_uv``, ``heightmap_export``, ``heightmap_import``, ``terrain_water``,
``terrain_layers``); this module gathers them. Each checks its arguments once (its options are ``schema.Option``
rows: the feature module's ``OPTIONS``) and raises ``UserError`` (``addon/errors.py``) whose message starts with
the argument's name and says what is allowed; a failure leaves the scene as it was.
"""

from __future__ import annotations

from .bake import bake, normal_method_for
from .bake_uv import bake_uv, surface_triangles
from .displace import displace
from .erode import erode, erode_image
from .erode_fluvial import erode_fluvial_image, erode_fluvial_mesh
from .errors import UserError
from .heightmap_export import export_heightmap
from .heightmap_import import import_heightmap, import_heightmap_grid
from .image_io import MAX_PIXELS
from .mapping import Domain
from .noise_core import NoiseSpec
from .terrain import add_terrain, regenerate_terrain
from .terrain_grid import MAX_SUBDIVISIONS, MAX_VERTICES, edge_falloff, grid
from .terrain_layers import write_terrain_layers
from .terrain_settings import is_terrain
from .terrain_water import terrain_water

__all__ = [
    "MAX_PIXELS",
    "MAX_SUBDIVISIONS",
    "MAX_VERTICES",
    "Domain",
    "NoiseSpec",
    "UserError",
    "add_terrain",
    "bake",
    "bake_uv",
    "displace",
    "edge_falloff",
    "erode",
    "erode_fluvial_image",
    "erode_fluvial_mesh",
    "erode_image",
    "export_heightmap",
    "grid",
    "import_heightmap",
    "import_heightmap_grid",
    "is_terrain",
    "normal_method_for",
    "regenerate_terrain",
    "surface_triangles",
    "terrain_water",
    "write_terrain_layers",
]
