"""Erosion: hydraulic and thermal erosion of a grid mesh (``erode``) or a height image (``erode_image``), and
their operators ``noisewright.erode`` and ``noisewright.erode_image``.

*Erode* works on the active mesh when it is a regular grid (a Noise Terrain, Add > Mesh > Grid); the masks go to
its ``erosion``/``deposition`` attributes, and the depth of what each stage left to ``sediment``/``talus``
(``erosion_io``). *Erode Image* works on the Image Editor's image (a baked height
map), with the masks as two new float images. A run starts from the scene's erosion settings
(``scene.noisewright_erosion``, hydraulic and thermal; hydraulic erosion when neither is on); every option is in
Adjust Last Operation (the erosion options are ``noise_core.terrain.erosion``'s rows, ``ErosionSettings``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import bpy
import numpy as np
from bpy.props import PointerProperty

from . import erosion_io, image_io, mesh_io
from .errors import UserError
from .jobs import Job, JobOperator
from .mapping import check_finite_values
from .mesh_io import check_editable, mesh_of
from .noise_core.schema import Option
from .noise_core.terrain.erosion import HYDRAULIC_OPTIONS, THERMAL_OPTIONS
from .noise_core.terrain.layers import STRATA
from .noise_core.terrain.recipe import Stage
from .options import OptionsOperator, checked, properties_of
from .pixels import pixel_array
from .progress import window_progress
from .properties import ErosionSettings, check_finite, erosion_options

RELIEF = Option(
    "relief",
    float,
    64.0,
    "Pixels a height of 1 spans: how steep the image's terrain is",
    minimum=0.0,
    above=True,
    allowed="> 0 pixels",
    ui_minimum=1e-3,
    soft_minimum=1.0,
    soft_maximum=1024.0,
)
"""``erode_image``'s one option beside the erosion's."""


def grid_heights(obj: object) -> tuple[bpy.types.Mesh, np.ndarray, erosion_io.GridLayout, np.ndarray]:
    """``(mesh, positions, layout, heights)`` of the grid mesh ``obj`` to erode: its vertex positions (float64),
    its grid (``erosion_io.grid_layout``) and local Z as (rows, columns); ``UserError`` for anything but an
    editable grid mesh in Object Mode."""
    if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
        raise UserError(f"object: expected a mesh object, got {getattr(obj, 'name', type(obj).__name__)!r}")
    check_editable(obj)
    if obj.mode == "EDIT":
        raise UserError(f"{obj.name!r}: leave Edit Mode to erode")
    mesh = mesh_of(obj)
    positions = mesh_io.read_positions(mesh).astype(np.float64)
    layout = erosion_io.grid_layout(obj.name, positions)
    return mesh, positions, layout, positions[layout.order, 2].reshape(layout.rows, layout.columns)


def erode(
    context: bpy.types.Context,
    obj: bpy.types.Object,
    hydraulic: dict[str, Any] | None = None,
    thermal: dict[str, Any] | None = None,
    strata: float = 0.0,
) -> bpy.types.Object:
    """Erode the grid mesh ``obj`` (a Noise Terrain or any regular grid in local X/Y, heights along local Z).

    ``hydraulic``/``thermal`` are keyword arguments of ``noise_core.erode_hydraulic``/``erode_thermal`` (``{}``:
    their defaults; ``None``: not run); the cell size is the grid's. The vertices move along Z, the masks go to the
    ``erosion``/``deposition`` point attributes, the depths of loose material to ``sediment``/``talus``. A Noise
    Terrain's recipe gets each erosion as a stage (``erosion_io.record_stage``), so Regenerate and an export at
    another resolution replay it. ``strata`` (``STRATA``) > 0 erodes over rock strata (a stage option too).
    ``UserError`` naming the problem (not a grid, linked data, Edit Mode, bad options); then nothing changes.
    """
    try:
        contrast = float(STRATA.check(strata))  # type: ignore[arg-type]
    except (TypeError, ValueError) as error:
        raise UserError(str(error)) from None
    job = erode_job(obj, hydraulic, thermal, contrast)
    with window_progress(context, job.total) as advance:
        job.run(advance)
    return obj


def erode_job(
    obj: object, hydraulic: dict[str, Any] | None, thermal: dict[str, Any] | None, strata: float = 0.0
) -> Job:
    """``erode`` as a ``jobs.Job``: this reads the grid (main thread; ``UserError`` as ``erode``),
    ``compute(advance)`` erodes it touching no Blender data (any thread; ``advance(n)`` moves the progress on,
    ``erosion_io.PROGRESS`` in all), ``apply(result)`` writes the result (main thread; ``UserError``, changing
    nothing, when the object was removed or its mesh changed meanwhile)."""
    mesh, positions, layout, heights = grid_heights(obj)
    name, mesh_name = cast(bpy.types.Object, obj).name, mesh.name
    cell_size = layout.square_cell(name, "erosion needs")

    def compute(advance: Callable[[int], None]) -> Any:
        eroded = erosion_io.erode_heights(heights, cell_size, hydraulic, thermal, advance, strata)
        check_finite_values("heights: eroded heights", eroded.heights)
        return eroded

    def apply(eroded: Any) -> None:
        target = bpy.data.objects.get(name)
        if target is None or target.type != "MESH" or target.data.name != mesh_name or target.mode == "EDIT":
            raise UserError(f"{name!r}: the object was removed, renamed or is in Edit Mode; nothing was changed")
        target_mesh = mesh_of(target)
        if len(target_mesh.vertices) != positions.shape[0]:
            raise UserError(f"{name!r}: the mesh changed while eroding; nothing was changed")
        positions[layout.order, 2] = eroded.heights.ravel()
        maps = (eroded.erosion, eroded.deposition, eroded.sediment, eroded.talus)
        per_vertex = [np.empty(positions.shape[0], np.float32) for _ in maps]
        for values, grid in zip(per_vertex, maps, strict=True):
            values[layout.order] = grid.ravel()
        mesh_io.write_positions(target_mesh, positions)
        erosion_io.write_masks(target_mesh, *per_vertex)
        target_mesh.update()
        for kind, options in (("droplets", hydraulic), ("thermal", thermal)):  # a Noise Terrain's recipe keeps them
            if options is None:
                continue
            try:
                stage = Stage.of(kind, {**options, STRATA.name: strata}, kind)
            except (TypeError, ValueError):  # options the erosion took but a recipe cannot hold: never lost silently
                erosion_io.mark_unreplayable(target, f"Erode Terrain ({kind} with options a recipe cannot hold)")
            else:
                erosion_io.record_stage(target, stage)

    return Job(compute, apply, erosion_io.PROGRESS)


@checked(RELIEF)
def erode_image(
    context: bpy.types.Context,
    image: bpy.types.Image,
    hydraulic: dict[str, Any] | None = None,
    thermal: dict[str, Any] | None = None,
    *,
    relief: float,
) -> tuple[bpy.types.Image, bpy.types.Image]:
    """Erode the height image ``image`` (its red channel, written back as grey; alpha kept) and return the
    masks as float images ``"<name> Erosion"`` and ``"<name> Deposition"`` (made or replaced; amounts in the
    image's 0..1 units). ``relief``: how many pixels a height of 1 spans (the terrain's steepness; ``RELIEF``).
    ``UserError`` naming the problem; then nothing changes."""
    job = erode_image_job(image, hydraulic, thermal, relief=relief)
    with window_progress(context, job.total) as advance:
        return job.run(advance)


@checked(RELIEF)
def erode_image_job(
    image: bpy.types.Image,
    hydraulic: dict[str, Any] | None = None,
    thermal: dict[str, Any] | None = None,
    *,
    relief: float,
) -> Job:
    """``erode_image`` as a ``jobs.Job``, as ``erode_job``: this reads the pixels (main thread),
    ``compute(advance)`` erodes them (any thread, ``erosion_io.PROGRESS`` in all), ``apply(result)`` writes
    the image and the masks (main thread; ``UserError``, changing nothing, when the image went or changed size
    meanwhile)."""
    pixels, heights = image_io.height_pixels(image)
    name, size = image.name, tuple(image.size)

    def compute(advance: Callable[[int], None]) -> Any:
        eroded = erosion_io.erode_heights(heights, 1.0 / float(relief), hydraulic, thermal, advance)
        check_finite_values("heights: eroded heights", eroded.heights)
        return eroded

    def apply(eroded: Any) -> tuple[bpy.types.Image, bpy.types.Image]:
        target = bpy.data.images.get(name)
        if target is None or tuple(target.size) != size or not target.has_data:
            raise UserError(f"image: {name!r} was removed or resized while eroding; nothing was changed")
        pixels[:, : min(3, target.channels)] = eroded.heights.reshape(-1, 1)
        pixel_array(target).foreach_set(pixels.ravel())
        target.update()
        erosion = image_io.data_image(f"{name} Erosion", eroded.erosion)
        return erosion, image_io.data_image(f"{name} Deposition", eroded.deposition)

    return Job(compute, apply, erosion_io.PROGRESS)


def draw_erosion(layout: bpy.types.UILayout, settings: ErosionSettings) -> None:
    """The hydraulic and thermal switches, each with its options when on."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    for switch, options in (("hydraulic", HYDRAULIC_OPTIONS), ("thermal", THERMAL_OPTIONS)):
        layout.prop(settings, switch)
        if getattr(settings, switch):
            column = layout.column(align=True)
            for option in options:
                column.prop(settings, option.name)


class _ErosionOperator(OptionsOperator):
    """Mixin of the erosion operators: their erosion settings (a first run without explicit ones starts from
    the scene's ``scene.noisewright_erosion``, hydraulic when it turns neither on) and their options, drawn."""

    __annotations__ = {"erosion": PointerProperty(type=ErosionSettings, options={"SKIP_SAVE"})}  # type: ignore[func-returns-value]

    def erosion_options(self, context) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
        """``(hydraulic, thermal)``: the options of the erosion to run (``properties.erosion_options``)."""
        if not self.properties.is_property_set("erosion"):
            scene = context.scene.noisewright_erosion
            for name in scene.bl_rna.properties.keys():  # noqa: SIM118 (bl_rna collections are not dicts)
                if name not in ("rna_type", "name"):
                    setattr(self.erosion, name, getattr(scene, name))
            self.erosion.hydraulic = scene.hydraulic or not scene.thermal
        check_finite(self)
        return erosion_options(self.erosion)

    def draw(self, _context):
        for name in self.keywords("erosion"):
            self.layout.prop(self, name)
        draw_erosion(cast(bpy.types.UILayout, self.layout), self.erosion)


class NOISEWRIGHT_OT_erode(JobOperator, _ErosionOperator, bpy.types.Operator):
    """Erode the active grid mesh (a Noise Terrain or any regular grid): droplets carve channels, slopes settle"""

    bl_idname = "noisewright.erode"
    bl_label = "Erode Terrain"
    __annotations__ = properties_of(STRATA)

    @staticmethod
    def unavailable(context) -> str:
        obj = context.active_object
        return (
            ""
            if context.mode == "OBJECT" and obj is not None and obj.type == "MESH"
            else "Select a grid mesh in Object Mode"
        )

    def job_key(self, context) -> str:
        return context.active_object.name

    def prepare(self, context):
        """A job (``jobs``): in the UI it runs in a worker thread and Esc cancels it; in background mode and
        from scripts (``execute``) it runs in the foreground."""
        return erode_job(context.active_object, *self.erosion_options(context), self.strata)


class NOISEWRIGHT_OT_erode_image(JobOperator, _ErosionOperator, bpy.types.Operator):
    """Erode the image as a height map (red channel); the erosion and deposition masks become new images"""

    bl_idname = "noisewright.erode_image"
    bl_label = "Erode Height Image"
    __annotations__ = properties_of(RELIEF)

    @staticmethod
    def unavailable(context) -> str:
        return "" if getattr(context.space_data, "image", None) is not None else "Open an image in the Image Editor"

    def job_key(self, context) -> str:
        return f"image {context.space_data.image.name}"

    def prepare(self, context):
        """A job (``jobs``), as Erode Terrain's."""
        options = self.erosion_options(context)
        return erode_image_job(context.space_data.image, *options, **self.keywords("erosion"))


CLASSES = (NOISEWRIGHT_OT_erode, NOISEWRIGHT_OT_erode_image)
