"""Rivers: fluvial erosion of a grid mesh (``erode_fluvial_mesh``) or a height image (``erode_fluvial_image``) by
``noise_core.erode_fluvial`` (stream power law, Braun & Willett 2013; docs/erosion.md), their operators
``noisewright.erode_fluvial`` and ``noisewright.erode_fluvial_image``, and a Noise Terrain's river stage
(``FluvialSettings``; the library runs it: ``noise_core.terrain.recipe``'s ``rivers`` stage).

The mesh is a regular grid in local X/Y as for *Erode Terrain* (a Noise Terrain, Add > Mesh > Grid); heights are
local Z. The model runs in cells (heights ÷ the grid spacing, ``cell_size = 1``), so its options mean the same on
any size of grid; with *Keep Relief* the result is scaled back to the input's lowest and highest heights. Vertex
groups (optional) scale the uplift, the erodibility and the rain per vertex: where ranges rise, where rock is
soft, where it rains. Results: the vertices move along Z; point attributes ``erosion`` and ``deposition`` (as
*Erode Terrain*; the deposition also as the ``sediment`` depth, ``talus`` removed), ``drainage_area`` (in
cells) and ``river`` (1 on river cells, else 0) for materials and Geometry Nodes. The image's red channel times
*Relief* (pixels a height of 1 spans) is the height in cells; it is written back as grey (alpha kept), and the
flow maps become float images ``"<name> Drainage"`` (``log(1 + A) / log(1 + max A)``) and ``"<name> Rivers"``
(0/1). Options: ``noise_core.terrain.fluvial``'s rows (``FLUVIAL_OPTIONS``) and this module's.
"""

from __future__ import annotations

from typing import Any, cast

import bpy
import numpy as np

from . import erosion_io, image_io, mesh_io
from .erode import RELIEF, NOISEWRIGHT_OT_erode, grid_heights
from .errors import UserError
from .mapping import check_finite_values
from .noise_core.schema import Option
from .noise_core.terrain.fluvial import FLUVIAL_OPTIONS, erode_fluvial
from .noise_core.terrain.recipe import KEEP_RELIEF, RIVER_OPTIONS, Stage
from .options import OptionsOperator, checked, properties_of, reports
from .pixels import pixel_array
from .progress import window_progress

GROUPS = tuple(
    Option(f"{name}_group", str, "", f"Vertex group whose weights scale the {name} per vertex (empty: none)")
    for name in ("uplift", "erodibility", "precipitation")
)
"""The mesh operator's vertex groups, each scaling the option named before ``_group`` (precipitation: the
weight is the rain)."""
FLUVIAL = Option("fluvial", bool, False, "Carve rivers (stream power law) before the other erosion", title="Rivers")
TERRAIN_OPTIONS = (FLUVIAL, *RIVER_OPTIONS)
"""A Noise Terrain's river stage (``FluvialSettings``): the switch and the rivers stage's options
(``RIVER_OPTIONS``)."""
FLOW_ATTRIBUTES = ("drainage_area", "river")


def _carve(context: bpy.types.Context, heights: np.ndarray, keep_relief: bool, options: dict[str, Any]):
    """``erode_fluvial`` of ``heights`` (in cells) with the window's progress, as ``(heights, result, factor)``:
    the new heights (float64, scaled back to the input's lowest and highest with ``keep_relief``), the result
    and the factor the relief was scaled by; ``UserError`` with noise_core's message for bad options."""
    with window_progress(context, int(options["steps"])) as advance:
        try:
            result = erode_fluvial(heights, progress=lambda *_: advance(1), **options)
        except (ValueError, TypeError) as error:
            raise UserError(str(error)) from None
    after = result.heights.astype(np.float64)
    span, factor = float(np.ptp(after)), 1.0
    if keep_relief and span > 0.0:
        factor = float(np.ptp(heights)) / span
        after = float(heights.min()) + (after - after.min()) * factor
    check_finite_values("heights: eroded heights", after)
    return after, result, factor


@checked(RELIEF, *FLUVIAL_OPTIONS, KEEP_RELIEF)
def erode_fluvial_image(
    context: bpy.types.Context, image: bpy.types.Image, *, relief: float, keep_relief: bool, **options: Any
) -> tuple[bpy.types.Image, bpy.types.Image]:
    """Carve rivers into the height image ``image`` (module docstring); ``options`` are keyword arguments of
    ``noise_core.erode_fluvial``. Returns the drainage and river images (made or replaced). ``UserError`` naming
    the problem; then nothing changes."""
    pixels, heights = image_io.height_pixels(image)
    after, result, _ = _carve(context, heights * relief, keep_relief, options)
    pixels[:, : min(3, image.channels)] = (after / relief).reshape(-1, 1)
    pixel_array(image).foreach_set(pixels.ravel())
    image.update()
    area = np.log1p(result.drainage_area.astype(np.float64))
    drainage = image_io.data_image(f"{image.name} Drainage", area / max(float(area.max()), 1e-30))
    return drainage, image_io.data_image(f"{image.name} Rivers", result.rivers.astype(np.float32))


def write_flow(mesh: bpy.types.Mesh, drainage_area: np.ndarray | None, river: np.ndarray | None) -> None:
    """Store the per-vertex flow maps as float point attributes ``drainage_area`` and ``river``; ``None``
    removes them (a terrain without rivers)."""
    erosion_io.write_maps(mesh, dict(zip(FLOW_ATTRIBUTES, (drainage_area, river), strict=True)))


@checked(*FLUVIAL_OPTIONS, KEEP_RELIEF, *GROUPS)
def erode_fluvial_mesh(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    *,
    keep_relief: bool,
    uplift_group: str,
    erodibility_group: str,
    precipitation_group: str,
    **options: Any,
) -> bpy.types.Object:
    """Carve rivers into the grid mesh ``obj`` (module docstring): ``options`` are keyword arguments of
    ``noise_core.erode_fluvial`` (heights in cells of the grid, or of the fine grid with ``fine_size``); the
    ``*_group`` arguments name vertex groups (``""``: none) whose weights scale that option per vertex
    (precipitation: the weight is the rain).
    ``UserError`` naming the problem; then nothing changes."""
    mesh, positions, layout, heights = grid_heights(obj)
    cell_size = layout.square_cell(obj.name, "river erosion needs")
    shape = (layout.rows, layout.columns)
    groups = {"uplift": uplift_group, "erodibility": erodibility_group, "precipitation": precipitation_group}
    stage = {**options, "keep_relief": keep_relief}  # the terrain's rivers stage, before the groups' maps
    for field, group in groups.items():
        if not group:
            continue
        if group not in obj.vertex_groups:
            raise UserError(f"{field}_group: {obj.name!r} has no vertex group {group!r}")
        weights = mesh_io.vertex_group_weights(context, mesh, group)[layout.order].reshape(shape).astype(np.float64)
        options[field] = weights if field == "precipitation" else weights * float(options[field])
    size = int(options["fine_size"])  # the heights in cells of the fine grid, as the recipe's rivers stage takes them
    unit = cell_size if size == 0 else cell_size * (max(shape) - 1) / (size - 1)
    after, result, factor = _carve(context, heights / unit, keep_relief, {**options, "cell_size": cell_size / unit})
    scale = unit * factor  # of the masks: cells to the mesh's units, times the relief's factor
    positions[layout.order, 2] = after.ravel() * unit
    area = result.drainage_area * np.float32((unit / cell_size) ** 2)  # in the mesh's cells
    maps = (result.erosion * scale, result.deposition * scale, area, result.rivers)
    erosion, deposition, drainage, river = (np.empty(positions.shape[0], np.float32) for _ in maps)
    for per_vertex, values in zip((erosion, deposition, drainage, river), maps, strict=True):
        per_vertex[layout.order] = values.ravel()
    mesh_io.write_positions(mesh, positions)
    erosion_io.write_masks(mesh, erosion, deposition, deposition)  # its deposits are sediment
    write_flow(mesh, drainage, river)
    mesh.update()
    used = [f"{field}_group" for field, group in groups.items() if group]
    if used:  # per-vertex weights: a recipe at another resolution cannot replay them
        erosion_io.mark_unreplayable(obj, f"Erode Terrain (Rivers) with {', '.join(used)}")
    else:
        erosion_io.record_stage(obj, Stage.of("rivers", stage, "rivers"))
    return obj


def fluvial_options(settings: FluvialSettings) -> dict[str, Any] | None:
    """A terrain's river stage from ``settings`` (by ``TERRAIN_OPTIONS`` name, without the switch), None when off."""
    if not settings.fluvial:  # type: ignore[attr-defined]
        return None
    return {option.name: getattr(settings, option.name) for option in TERRAIN_OPTIONS[1:]}


def draw_fluvial(layout: bpy.types.UILayout, settings: FluvialSettings) -> None:
    """The river switch, with the stage's options when on."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    layout.prop(settings, FLUVIAL.name)
    if settings.fluvial:  # type: ignore[attr-defined]
        column = layout.column(align=True)
        for option in TERRAIN_OPTIONS[1:]:
            column.prop(settings, option.name)


class FluvialSettings(bpy.types.PropertyGroup):
    """A Noise Terrain's river stage: on or off, with its options (one property per ``TERRAIN_OPTIONS`` row)."""

    __annotations__ = properties_of(*TERRAIN_OPTIONS)


class NOISEWRIGHT_OT_erode_fluvial(OptionsOperator, bpy.types.Operator):
    """Carve rivers into the active grid mesh (stream power erosion): branching valleys, drainage and river maps"""

    bl_idname = "noisewright.erode_fluvial"
    bl_label = "Erode Terrain (Rivers)"
    __annotations__ = properties_of(*FLUVIAL_OPTIONS, KEEP_RELIEF, *GROUPS)

    @staticmethod
    def unavailable(context) -> str:
        return NOISEWRIGHT_OT_erode.unavailable(context)  # the grid meshes Erode Terrain takes

    def draw(self, context):
        layout = cast(bpy.types.UILayout, self.layout)
        layout.use_property_split = True
        layout.use_property_decorate = False
        for option in (*FLUVIAL_OPTIONS, KEEP_RELIEF):
            layout.prop(self, option.name)
        for option in GROUPS:
            layout.prop_search(self, option.name, context.active_object, "vertex_groups")

    @reports
    def execute(self, context):
        erode_fluvial_mesh(context, context.active_object, **self.keywords())
        return {"FINISHED"}


class NOISEWRIGHT_OT_erode_fluvial_image(OptionsOperator, bpy.types.Operator):
    """Carve rivers into the image as a height map (red channel); drainage and river maps become new images"""

    bl_idname = "noisewright.erode_fluvial_image"
    bl_label = "Erode Height Image (Rivers)"
    __annotations__ = properties_of(RELIEF, *FLUVIAL_OPTIONS, KEEP_RELIEF)

    @staticmethod
    def unavailable(context) -> str:
        return "" if getattr(context.space_data, "image", None) is not None else "Open an image in the Image Editor"

    @reports
    def execute(self, context):
        erode_fluvial_image(context, context.space_data.image, **self.keywords())
        return {"FINISHED"}


CLASSES = (FluvialSettings, NOISEWRIGHT_OT_erode_fluvial, NOISEWRIGHT_OT_erode_fluvial_image)
"""``FluvialSettings`` first: ``terrain.TerrainSettings`` points to it (so these register before ``terrain``'s)."""
