"""Heightmaps for game engines: *File > Export > Heightmap* (``export_heightmap``).

``export_heightmap`` writes the active Noise Terrain or grid mesh as a heightmap (``SUFFIXES``: raw 16-bit or 32-bit
float, 16-bit PNG, float EXR or TIFF; or a tile set) with its JSON sidecar, all or none, through
``noise_core.io.heightmaps``; an engine preset checks the size and gives the numbers for its import dialog
(``noise_core.io.engines``). A Noise Terrain at another resolution is regenerated there from its settings (its noise,
falloff and erosion stages evaluated on the new grid by ``noise_core.terrain.recipe.build_terrain``, no resampling;
its base heightmap, if it has one, resampled bilinearly; one whose mesh an operator changed in a way its recipe
cannot replay is refused, naming it); any other grid mesh, or a terrain asked for another shape than its grid's
aspect, is resampled bilinearly (``resample.resample_bilinear``). A Noise Terrain whose mesh holds a reduced grid
(over ``terrain_grid.MESH_VERTICES``: 4033² for an engine) is built at its full size at resolution 0. Heights are
local Z in metres (Blender units times the scene's unit scale); the file's first row is the mesh's +Y edge, its
first column the -X edge. ``heightmap_import`` reads them back.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any, cast

import bpy
import numpy as np
from bpy.props import StringProperty
from bpy_extras.io_utils import ExportHelper

from . import erosion_io, mesh_io
from .errors import UserError
from .jobs import Job, JobOperator
from .noise_core.io import heightmaps
from .noise_core.io.engines import ENGINES
from .noise_core.io.water_maps import water_files
from .noise_core.schema import Option
from .noise_core.terrain import resample
from .noise_core.terrain.splat import SplatLayer, check_layers, splat_weights
from .noise_core.terrain.water import WATER_OPTIONS, WATER_STEPS, water
from .options import OptionsOperator, blender_option, checked, properties_of
from .progress import staged, steps_of
from .terrain_grid import MAX_SUBDIVISIONS, mesh_subdivisions
from .terrain_recipe import TerrainRecipe, resolved, stage_weights, terrain_heights
from .terrain_settings import is_terrain, recall
from .terrain_water import FULL, water_arguments

SUFFIXES = heightmaps.FORMAT_SUFFIXES
"""The formats an export writes, by name, and their suffixes (``noise_core.io.heightmaps``)."""
EXPORT_OPTIONS = (
    blender_option(heightmaps.ENGINE),
    Option(
        "resolution",
        int,
        0,
        "Samples per side (0: the mesh's own grid); a Noise Terrain is regenerated at this size",
        minimum=0,
        maximum=MAX_SUBDIVISIONS,
        allowed=f"0 (the mesh's grid) or 2 to {MAX_SUBDIVISIONS} samples",
    ),
    Option(
        "tile",
        int,
        0,
        "0: one file; else tiles of this many quads (+1 shared edge sample)",
        minimum=0,
        title="Tile Size",
    ),
    blender_option(heightmaps.SPLAT),
    blender_option(heightmaps.SPLAT_BITS),
    Option(
        "water_maps",
        bool,
        False,
        "Also write the water level (NAME_water, the heightmap's format, with its sidecar) and the flow map "
        "(NAME_flow.png) of the exported heights (noise_core.water, in metres), all or none with the heightmap",
        title="Water Maps",
    ),
    FULL,
    *WATER_OPTIONS,
)
"""The options of ``export_heightmap`` the operator has too (``height_range`` it makes from its own); the water
maps' settings are Terrain Water's (``terrain_water.FULL``, ``water``'s ``WATER_OPTIONS``)."""
EXPORT_OPERATOR_OPTIONS = (
    heightmaps.FILE_FORMAT,
    Option(
        "fixed_range",
        bool,
        False,
        "Map these heights to 0 and 1 (off: the mesh's lowest and highest)",
        title="Fixed Height Range",
    ),
    Option("height_min", float, 0.0, "Height written as 0", title="Lowest", unit="LENGTH"),
    Option("height_max", float, 100.0, "Height written as 1", title="Highest", unit="LENGTH"),
)
"""The export operator's own options: the file's format, and the fixed height range."""
ROW_ORDER = "row-major; the first row is the mesh's +Y edge, columns from -X to +X"


def metres(context: bpy.types.Context) -> float:
    return float(context.scene.unit_settings.scale_length)


def _grid_heights(obj: bpy.types.Object) -> tuple[np.ndarray, float, float]:
    """``(heights (rows, columns) with row 0 at +Y, x spacing, y spacing)`` of the grid mesh ``obj``."""
    positions = mesh_io.read_positions(cast(bpy.types.Mesh, obj.data)).astype(np.float64)
    layout = erosion_io.grid_layout(obj.name, positions)
    heights = positions[layout.order, 2].reshape(layout.rows, layout.columns)
    span = np.ptp(positions[:, :2], axis=0)
    return heights[::-1], float(span[0]) / (layout.columns - 1), float(span[1]) / (layout.rows - 1)


def _terrain_heights(context: bpy.types.Context, recipe: TerrainRecipe, columns: int, rows: int) -> np.ndarray:
    """The Noise Terrain of ``recipe`` regenerated on a ``columns x rows`` grid of the same size (row 0 at +Y);
    touches no Blender data (a job's worker runs it)."""
    recipe = recipe.reshaped(x_subdivisions=columns - 1, y_subdivisions=rows - 1)
    heights, _masks = terrain_heights(context, recipe)  # as a mesh of that grid holds them: float32
    return heights.astype(np.float32).astype(np.float64).reshape(rows, columns)[::-1]


@checked(*EXPORT_OPTIONS)
def export_heightmap(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    filepath: str,
    *,
    height_range: tuple[float, float] | None = None,
    **options: Any,
) -> tuple[list[Path], dict, str]:
    """Write ``obj`` (a Noise Terrain or grid mesh) to ``filepath`` (format by suffix) and its sidecar, all or none.

    ``resolution`` samples per side (0: the mesh's own grid); ``height_range`` the heights (metres) 0 and 1
    stand for (None: the heights' minimum and maximum); ``tile`` > 0 writes tiles of ``tile`` + overlap samples
    (``noise_core.io.heightmaps.write_tiles``) named as ``engine`` expects. ``splat_rules``: a JSON file of splat
    layers (``noise_core.terrain.splat``) whose weights over the exported heights (metres, their spacing) are written
    beside each file or tile as ``NAME_splat0.png``, ... (RGBA, ``splat_bits`` 8 or 16), in the same all-or-none
    set. ``water_maps`` (one file, not tiles): ``noise_core.water`` of the exported heights in metres on their cells
    (square ones; ``full``, ``rain``, ... as Terrain Water's) written beside as ``NAME_water.ext`` with its sidecar
    and ``NAME_flow.png`` (``noise_core.io.water_maps.water_files``, the engine's flow convention), in the same set.
    Returns ``(written files, the engine's import numbers (empty without an engine), how the heights were made)``;
    ``UserError`` naming the problem, and then no file is written. Defaults and limits: ``EXPORT_OPTIONS``.
    """
    return export_job(context, obj, filepath, height_range=height_range, **options).run()


EXPORT_STEPS = 100
"""The progress an export reports in all: its heights (``HEIGHTS_SHARE``), then its files, tile by tile."""
HEIGHTS_SHARE = 50
"""A terrain regenerated at the export's size moves the heights' share on stage by stage (``progress.staged``,
``terrain_recipe.stage_weights``)."""


@checked(*EXPORT_OPTIONS)
def export_job(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    filepath: str,
    *,
    engine: str,
    resolution: int,
    height_range: tuple[float, float] | None = None,
    tile: int,
    splat_rules: str,
    splat_bits: str,
    water_maps: bool,
    **water_settings: Any,
) -> Job:
    """``export_heightmap`` as a ``jobs.Job``: this checks the arguments and reads the mesh or the terrain's
    settings (main thread; ``UserError`` as ``export_heightmap``), ``compute(advance)`` makes the heights and
    writes the files touching no Blender data (any thread; ``advance`` moves the progress on, ``EXPORT_STEPS`` in
    all, ``WATER_STEPS`` more with ``water_maps``); an exception ``advance`` raises (a cancel) stops it, and then no
    file is written (a tile set is all or none). Its ``apply`` hands the result on: ``export_heightmap``'s."""
    if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
        raise UserError(f"object: expected a mesh object, got {getattr(obj, 'name', type(obj).__name__)!r}")
    if obj.mode == "EDIT":
        raise UserError(f"{obj.name!r}: leave Edit Mode to export its heights")
    preset = None if engine == "NONE" else ENGINES[engine.lower()]
    if resolution == 1:
        raise UserError(f"resolution: must be {EXPORT_OPTIONS[1].allowed}, got {resolution!r}")
    path = Path(bpy.path.abspath(filepath))
    try:
        suffix = heightmaps.heightmap_format(path, "filepath")
        if preset is not None:
            preset.check_format(suffix)
            if resolution and not tile:
                preset.check_size(resolution, resolution, "resolution")
    except ValueError as error:
        raise _named(error) from None
    layers = _splat_layers(splat_rules)
    if water_maps and tile:
        raise UserError("water_maps: written beside one heightmap, not beside a tile set (export with tile 0)")
    water_options = water_arguments(water_settings) if water_maps else None
    scale = metres(context)
    regenerate = is_terrain(obj) and resolution
    if not regenerate and len(cast(bpy.types.Mesh, obj.data).vertices) == 0:
        raise UserError(f"{obj.name!r}: the mesh has no vertices; export a grid mesh")
    unreplayable = obj.noisewright_terrain.unreplayable if regenerate else ""  # type: ignore[attr-defined]
    own = obj.noisewright_terrain.x_subdivisions + 1  # type: ignore[attr-defined]
    if unreplayable and resolution == own == obj.noisewright_terrain.y_subdivisions + 1:  # type: ignore[attr-defined]
        regenerate = False  # its own grid: the mesh as it is
    elif unreplayable:
        raise UserError(
            f"resolution: {obj.name!r} was changed by {unreplayable}, which its recipe cannot replay at another "
            "resolution; export at resolution 0 (its own grid), or Regenerate it first (that drops the change)"
        )
    samples = (resolution, resolution)
    if is_terrain(obj) and not resolution and not obj.noisewright_terrain.unreplayable:  # type: ignore[attr-defined]
        settings_of = obj.noisewright_terrain  # type: ignore[attr-defined]
        across, down = settings_of.x_subdivisions, settings_of.y_subdivisions
        if mesh_subdivisions(across, down) != (across, down):  # its mesh holds a reduced grid: built in full
            regenerate, samples = True, (across + 1, down + 1)
            if preset is not None and not tile:
                try:
                    preset.check_size(*samples, "resolution")
                except ValueError as error:
                    raise _named(error) from None
    if regenerate:
        recipe = resolved(recall(obj))
        size = obj.noisewright_terrain.size  # type: ignore[attr-defined]
        if samples[0] == samples[1]:
            cell = size / (samples[0] - 1)
        else:
            cell = _cell(obj.name, size / (samples[0] - 1), size / (samples[1] - 1), preset, layers, water_maps)
        how = f"regenerated from the Noise Terrain's settings at {samples[0]} x {samples[1]}"
    else:
        grid_heights, x_cell, y_cell = _grid_heights(obj)
        how = f"the mesh's {grid_heights.shape[1]} x {grid_heights.shape[0]} grid"
        if not resolution or grid_heights.shape == (resolution, resolution):  # its own grid, its own cells
            cell = _cell(obj.name, x_cell, y_cell, preset, layers, water_maps)
        else:
            width, depth = x_cell * (grid_heights.shape[1] - 1), y_cell * (grid_heights.shape[0] - 1)
            if abs(width - depth) > 1e-3 * max(width, depth):
                raise UserError(
                    f"resolution: {obj.name!r} is {width:g} x {depth:g}, not square; a square heightmap of "
                    f"{resolution} samples would stretch it (export at resolution 0: its own grid)"
                )
            cell = width / (resolution - 1)
            how = f"resampled bilinearly from {how} to {resolution} x {resolution}"
    settings = _settings(obj, how)

    def compute(advance: Callable[[int], None]) -> tuple[list[Path], dict, str]:
        if regenerate:
            with staged(advance, HEIGHTS_SHARE, stage_weights(recipe)):
                heights = _terrain_heights(context, recipe, *samples)
        else:
            if resolution and grid_heights.shape != (resolution, resolution):
                heights = resample.resample_bilinear(grid_heights, (resolution, resolution))
            else:
                heights = grid_heights
            advance(HEIGHTS_SHARE)
        progress = steps_of(advance, EXPORT_STEPS - HEIGHTS_SHARE)
        written: list[Path] = []

        try:
            values, low_high = heightmaps.normalize(heights * scale, height_range)
            keywords: dict[str, Any] = {
                "height_range": low_high,
                "unit": "m",
                "settings": settings,
                "engine": preset,
                "cell_size": _scaled(cell, scale),
                "row_order": ROW_ORDER,
            }
            if layers is not None:  # computed with rows along +Y (as noise_core's maps), written +Y edge first
                metres = heights[::-1] * scale
                checks = steps_of(advance, 0)  # its maps' bands only check for a cancel
                weights = splat_weights(metres, layers, cell_size=_scaled(cell, scale), progress=checks)
                keywords["splat"] = weights[:, ::-1]
                keywords["splat_bits"] = int(splat_bits)
            if water_options is not None:  # the file's rows (+Y edge first): the flow map lies as the heightmap
                square = cast(float, _scaled(cell, scale))  # ``_cell`` refuses others for the water maps
                result = water(heights * scale, cell_size=square, progress=steps_of(advance), **water_options)
                beside = water_files(path, result.level, result.flow, height_range=low_high, unit="m",
                                     engine=None if preset is None else preset.name, cell_size=square,
                                     settings=settings)  # fmt: skip
                keywords["beside"] = beside
                written = [beside[0][0], beside[0][2]]  # the level, the flow map (their sidecar besides)
            if tile:
                paths = heightmaps.write_tiles(path, values, tile, progress=progress, **keywords)
                sidecar = heightmaps.sidecar_path(paths[0])
            else:
                paths = [heightmaps.write_heightmap(path, values, **keywords)]
                sidecar = heightmaps.sidecar_path(path)
        except (ValueError, TypeError) as error:
            raise _named(error) from None
        except OSError as error:
            raise UserError(f"filepath: cannot write {str(path)!r}: {error}") from None
        progress(1, 1)  # the rest of the files' share
        numbers = json.loads(sidecar.read_text(encoding="utf-8")).get("import", {})
        return [*paths, *written], numbers, how

    return Job(compute, lambda result: result, EXPORT_STEPS + (WATER_STEPS if water_maps else 0))


def _cell(
    name: str, x_cell: float, y_cell: float, preset: Any, layers: tuple | None, water_maps: bool = False
) -> float | tuple[float, float]:
    """The cell size of the grid mesh ``name`` whose columns are ``x_cell`` and rows ``y_cell`` apart: one number
    for square cells (``erosion_io.SQUARE_TOLERANCE``; their geometric mean), else ``(dy, dx)`` (its rows run
    along Y), recorded as both spacings in the sidecar and the engine's numbers. ``UserError`` naming the object
    and both spacings when the engine (``preset``), the splat ``layers`` (on the flow or wetness map) or the
    ``water_maps`` need square cells."""
    if abs(x_cell - y_cell) <= erosion_io.SQUARE_TOLERANCE * max(x_cell, y_cell):
        return math.sqrt(x_cell * y_cell)
    routed = layers is not None and any(band.map in ("flow", "wetness") for layer in layers for band in layer.bands)
    need = (f"{preset.title} has one vertex spacing" if preset is not None and preset.one_spacing else "") or (
        "splat layers on the flow or wetness map need square cells" if routed else "") or (
        "the water maps need square cells" if water_maps else "")  # fmt: skip
    if need:
        raise UserError(f"{name!r}: its grid cells are {x_cell:.6g} along X by {y_cell:.6g} along Y, not square; "
                        f"{need} (give the grid as many subdivisions per unit along X as along Y)")  # fmt: skip
    return (y_cell, x_cell)


def _scaled(cell: float | tuple[float, float], scale: float) -> float | tuple[float, float]:
    return cell * scale if isinstance(cell, float) else (cell[0] * scale, cell[1] * scale)


NAMES = {"out": "filepath", "path": "filepath"}
"""The names ``noise_core``'s heightmap errors start with, and the export's settings they stand for."""


def _named(error: Exception) -> UserError:
    """``error`` as a ``UserError`` starting with the export's own setting (``NAMES``: ``filepath``, not the
    core's ``out``)."""
    name, colon, rest = str(error).partition(": ")
    return UserError(f"{NAMES[name]}: {rest}" if colon and name in NAMES else str(error))


def _splat_layers(splat_rules: str) -> tuple[SplatLayer, ...] | None:
    """The splat layers in the JSON file ``splat_rules`` (a Blender path), None when it is empty; ``UserError``
    naming ``splat_rules`` when it cannot be read or its layers are wrong."""
    if not splat_rules:
        return None
    path = Path(bpy.path.abspath(splat_rules))
    try:
        return check_layers(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError) as error:
        raise UserError(f"splat_rules: cannot read {str(path)!r}: {error}") from None
    except (TypeError, ValueError) as error:
        raise UserError(f"splat_rules: {error}") from None


def _settings(obj: bpy.types.Object, how: str) -> dict:
    record: dict[str, Any] = {"object": obj.name, "heights": how}
    if is_terrain(obj):
        recipe = recall(obj)
        record.update(noise=asdict(recipe.spec), terrain=recipe.shape, hydraulic=recipe.hydraulic,
                      thermal=recipe.thermal, fluvial=recipe.fluvial)  # fmt: skip
    return json.loads(json.dumps(record, default=str))


def _report_numbers(operator: bpy.types.Operator, numbers: dict) -> None:
    for name, value in numbers.items():
        operator.report({"INFO"}, f"{name}: {value}")


FILEPATH: Any = StringProperty(name="File Path", subtype="FILE_PATH", maxlen=1024)  # type: ignore[func-returns-value]


class NOISEWRIGHT_OT_export_heightmap(JobOperator, OptionsOperator, bpy.types.Operator, ExportHelper):
    """Write the active Noise Terrain or grid mesh as a game-engine heightmap (its formats: ``SUFFIXES``)"""

    bl_idname = "noisewright.export_heightmap"
    bl_label = "Export Heightmap"
    bl_description = f"Write the active Noise Terrain or grid mesh as a game-engine heightmap ({', '.join(SUFFIXES)})"
    bl_options = {"REGISTER"}
    filename_ext = SUFFIXES[str(heightmaps.FILE_FORMAT.default)]
    __annotations__ = {
        "filepath": FILEPATH,
        "filter_glob": StringProperty(default=heightmaps.suffix_patterns(SUFFIXES.values()), options={"HIDDEN"}),  # type: ignore[func-returns-value]
        **properties_of(*EXPORT_OPERATOR_OPTIONS, *EXPORT_OPTIONS),
    }

    @staticmethod
    def unavailable(context) -> str:
        obj = context.active_object
        if context.mode != "OBJECT" or obj is None or obj.type != "MESH":
            return "Select a Noise Terrain or grid mesh in Object Mode"
        return ""

    def check(self, context):
        wanted = SUFFIXES[self.file_format]
        path = Path(self.filepath)  # type: ignore[has-type]  # ExportHelper's stub
        if path.name and path.suffix.lower() != wanted:
            self.filepath = str(path.with_suffix(wanted))
            return True
        return False

    _browsed = False

    def invoke(self, context, event):
        self._browsed = True  # execute, after the file browser, runs the export as a job
        return ExportHelper.invoke(self, context, event)

    def execute(self, context):
        if self._browsed and not bpy.app.background and context.window is not None:
            return self.start_job(context)  # the UI's way, as invoke's
        return JobOperator.execute(self, context)

    def job_key(self, context) -> str:
        return context.active_object.name

    def prepare(self, context):
        """A job (``jobs``): after the file browser the heights are made and the files written in a worker
        thread, tile by tile, and Esc cancels (no file written); from scripts it runs in the foreground. A file
        name whose extension is not the Format's is refused, not renamed (the file browser renames it as the Format
        changes, before the export)."""
        path = Path(self.filepath)
        wanted = SUFFIXES[self.file_format]
        if path.suffix.lower() not in (wanted, ".tiff" if wanted == ".tif" else wanted):
            raise UserError(
                f"filepath: {path.name!r} does not end in {wanted}, the extension of Format {self.file_format}; "
                f"name it {path.stem}{wanted} or choose the format of {path.suffix or 'its extension'}"
            )
        job = export_job(
            context,
            context.active_object,
            self.filepath,
            height_range=(self.height_min, self.height_max) if self.fixed_range else None,
            **self.keywords("filepath", "filter_glob", "check_existing", *(o.name for o in EXPORT_OPERATOR_OPTIONS)),
        )

        def apply(result: tuple[list[Path], dict, str]) -> None:
            paths, numbers, how = result
            _report_numbers(self, numbers)
            water = " with its water level and flow map" if self.water_maps else ""
            self.report({"INFO"}, f"Wrote {len(paths)} file(s){water}, {how}")

        return Job(job.compute, apply, job.total)


def export_menu_entry(menu, _context) -> None:
    formats = heightmaps.listed(SUFFIXES.values())
    menu.layout.operator(NOISEWRIGHT_OT_export_heightmap.bl_idname, text=f"Heightmap ({formats})")


CLASSES = (NOISEWRIGHT_OT_export_heightmap,)
