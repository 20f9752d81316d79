"""Heightmaps in: *File > Import > Heightmap as Noise Terrain* and *Heightmap as Grid Mesh*.

``import_heightmap`` reads one back (``heightmaps.read_heightmap``) as a Noise Terrain whose base heightmap it
is (``terrain.recipe.base_heights``): one vertex per sample, the base's range from the sidecar (or ``height`` per
unit value), Height 0, so it stays re-editable (add noise on top, erode, regenerate, export again). A Noise Terrain
is square; ``import_heightmap_grid`` adds a heightmap of any shape as a plain grid mesh (Erode, Displace and the
export work on it).
"""

from __future__ import annotations

import json
from pathlib import Path

import bpy
import numpy as np
from bpy.props import StringProperty
from bpy_extras.io_utils import ImportHelper
from bpy_extras.object_utils import object_data_add

from . import mesh_io
from .erosion_io import SQUARE_TOLERANCE
from .errors import UserError
from .heightmap_export import FILEPATH, metres
from .mapping import Domain, to_domain, to_spec
from .noise_core import NoiseSpec
from .noise_core.io import heightmaps
from .noise_core.schema import Option
from .options import OptionsOperator, checked, properties_of, reports
from .terrain import add_terrain
from .terrain_grid import MAX_VERTICES, grid
from .terrain_recipe import read_heightmap

IMPORT_OPTIONS = (
    Option(
        "size",
        float,
        0.0,
        "Width along X (0: from the sidecar, else 1 m per sample)",
        minimum=0.0,
        unit="LENGTH",
    ),
    Option("height", float, 1.0, "Height of value 1 when the file has no height range", unit="LENGTH"),
)
"""The options of ``import_heightmap``, which the operator has too."""
PROPERTY = "noisewright_heightmap"
"""Custom property of an imported heightmap object: the file and its height range (JSON)."""


def _read(
    context: bpy.types.Context, filepath: str, size: float, height: float
) -> tuple[Path, heightmaps.Heightmap, tuple[float, float], float]:
    """``(path, the heightmap, the X and Y spacing of its samples in Blender units, what its heights are divided
    by to be Blender units)`` of ``filepath``; ``UserError`` naming ``filepath`` when it cannot be read or is no
    terrain (under 2 x 2 or over ``MAX_VERTICES`` samples). ``size`` > 0 sets the X spacing (the Y spacing keeps
    the sidecar's proportion)."""
    path = Path(bpy.path.abspath(filepath))
    found = read_heightmap(path, "filepath")
    rows, columns = found.values.shape
    if rows < 2 or columns < 2:
        raise UserError(f"filepath: {path.name!r} has {columns} x {rows} samples; a terrain needs at least 2 x 2")
    if rows * columns > MAX_VERTICES:
        raise UserError(f"filepath: {columns} x {rows} samples exceed the limit of {MAX_VERTICES} vertices")
    scale = metres(context)
    try:
        spacing = heightmaps.sidecar_spacings(found.sidecar, (rows, columns))  # (dy, dx)
    except ValueError as error:
        raise UserError(f"filepath: {str(error).removeprefix('path: ')}") from None
    spacing = None if spacing is None else (spacing[1], spacing[0])  # (along X, along Y)
    aspect = 1.0 if spacing is None else spacing[1] / spacing[0]
    if size > 0.0:
        cell = (size / (columns - 1), size / (columns - 1) * aspect)
    elif spacing is not None:
        cell = (spacing[0] / scale, spacing[1] / scale)
    else:
        cell = (1.0 / scale, 1.0 / scale)
    return path, found, cell, (scale if found.height_range is not None and found.unit == "m" else 1.0)


@checked(*IMPORT_OPTIONS)
def import_heightmap(
    context: bpy.types.Context, filepath: str, spec: NoiseSpec | None = None, *, size: float, height: float
) -> bpy.types.Object:
    """Add the square heightmap ``filepath`` as a Noise Terrain whose base it is (``terrain_recipe.BASE_OPTIONS``:
    ``base_blend`` ADD, the file, its height range), one vertex per sample, the file's first row at +Y, with
    Height 0: its vertex heights are the file's heights until noise (``spec``; None: the scene's noise
    settings), erosion or another grid are asked for in its settings and it is regenerated. ``size``: its
    width in Blender units (0: from the sidecar's engine spacing, else 1 m per sample); the base's range from
    the sidecar, in metres (else 0 to ``height`` per unit value). ``UserError`` if the file cannot be read or
    is not square (*Heightmap as Grid Mesh*, ``import_heightmap_grid``, keeps any shape); then nothing is added.
    """
    path, found, (cell, y_cell), metres = _read(context, filepath, size, height)
    rows, columns = found.values.shape
    if rows != columns:
        raise UserError(
            f"filepath: {path.name!r} has {columns} x {rows} samples; a Noise Terrain is square (Import > "
            f"Heightmap as Grid Mesh keeps this shape)"
        )
    if abs(cell - y_cell) > SQUARE_TOLERANCE * max(cell, y_cell):
        raise UserError(
            f"filepath: {path.name!r} has samples {cell:.6g} apart along X and {y_cell:.6g} along Y (its sidecar); a "
            f"Noise Terrain has square cells (Import > Heightmap as Grid Mesh keeps them)"
        )
    if spec is None:
        settings = context.scene.noisewright
        spec, domain = to_spec(settings), to_domain(settings)
    else:
        domain = Domain()
    low, high = (0.0, height) if found.height_range is None else found.height_range
    obj = add_terrain(
        context,
        spec,
        domain,
        x_subdivisions=columns - 1,
        y_subdivisions=rows - 1,
        size=cell * (columns - 1),
        height=0.0,
        base_blend="ADD",
        base_file=str(path),
        base_low=low / metres,
        base_high=high / metres,
    )
    obj.name = obj.data.name = path.stem
    return obj


@checked(*IMPORT_OPTIONS)
def import_heightmap_grid(context: bpy.types.Context, filepath: str, *, size: float, height: float) -> bpy.types.Object:
    """Add the heightmap ``filepath`` as a plain grid mesh at the 3D cursor, of any shape: one vertex per
    sample, its cells as the sidecar's ``cell_size`` (or engine numbers) space them along X and Y (else square),
    the file's first row at +Y. ``size``: width along X in Blender units (0: from the sidecar, else 1 m per sample;
    the Y spacing keeps the sidecar's proportion); heights from the sidecar's range in metres (else ``height``
    per unit value). ``UserError`` if the file cannot be read; then nothing is added."""
    path, found, (cell, y_cell), metres = _read(context, filepath, size, height)
    rows, columns = found.values.shape
    ranged = found.height_range is not None
    heights = found.heights / metres if ranged else found.values.astype(np.float64) * height
    positions, quads, uvs = grid(columns - 1, rows - 1, 1.0)
    positions[:, 0] *= cell * (columns - 1)
    positions[:, 1] *= y_cell * (rows - 1)
    positions[:, 2] = heights[::-1].ravel()
    mesh = bpy.data.meshes.new(path.stem)
    try:
        mesh_io.build_grid(mesh, positions, quads, uvs)
        obj = object_data_add(context, mesh)
    except RuntimeError as error:
        bpy.data.meshes.remove(mesh)
        raise UserError(f"Could not add the heightmap: {error}") from None
    obj[PROPERTY] = json.dumps(
        {"file": str(path), "height_range": found.height_range, "unit": found.unit, "samples": [columns, rows]}
    )
    return obj


class _ImportHeightmap(OptionsOperator, ImportHelper):  # type: ignore[misc]
    """Mixin of the two heightmap imports: the file and ``IMPORT_OPTIONS``; ``execute`` calls the class's
    ``function``."""

    bl_options = {"REGISTER", "UNDO"}
    __annotations__ = {
        "filepath": FILEPATH,
        "filter_glob": StringProperty(default=heightmaps.suffix_patterns(), options={"HIDDEN"}),  # type: ignore[func-returns-value]
        **properties_of(*IMPORT_OPTIONS),
    }

    @staticmethod
    def unavailable(context) -> str:
        return "" if context.mode == "OBJECT" else "Import a heightmap in Object Mode"

    @reports
    def execute(self, context):
        self.function(context, self.filepath, **self.keywords("filepath", "filter_glob"))
        return {"FINISHED"}


class NOISEWRIGHT_OT_import_heightmap(_ImportHeightmap, bpy.types.Operator):  # type: ignore[misc]
    """Add a square heightmap as a Noise Terrain whose base it is (add noise, erode, regenerate)"""

    bl_idname = "noisewright.import_heightmap"
    bl_label = "Import Heightmap as Noise Terrain"
    bl_description = (
        f"Add a square heightmap ({heightmaps.listed()}) as a Noise Terrain whose base it is (add noise, erode, "
        f"regenerate)"
    )
    function = staticmethod(import_heightmap)


class NOISEWRIGHT_OT_import_heightmap_grid(_ImportHeightmap, bpy.types.Operator):  # type: ignore[misc]
    """Add a heightmap of any shape as a plain grid mesh"""

    bl_idname = "noisewright.import_heightmap_grid"
    bl_label = "Import Heightmap as Grid Mesh"
    bl_description = f"Add a heightmap ({heightmaps.listed()}) of any shape as a plain grid mesh"
    function = staticmethod(import_heightmap_grid)


def import_menu_entry(menu, _context) -> None:
    menu.layout.operator(NOISEWRIGHT_OT_import_heightmap.bl_idname, text="Heightmap as Noise Terrain")
    menu.layout.operator(NOISEWRIGHT_OT_import_heightmap_grid.bl_idname, text="Heightmap as Grid Mesh")


CLASSES = (NOISEWRIGHT_OT_import_heightmap, NOISEWRIGHT_OT_import_heightmap_grid)
