"""Noise Terrain: add a grid mesh raised by noise (``add_terrain``) and rebuild one from its settings
(``regenerate_terrain``), with their operators.

``add_terrain`` adds the object (Add > Mesh > Noise Terrain: ``noisewright.add_terrain``, placed like Blender's
own Add > Mesh objects through ``AddObjectHelper``) and stores on it what it was built from (a
``terrain_recipe.TerrainRecipe``: its grid, noise and erosion stages, kept in ``Object.noisewright_terrain``,
``terrain_settings``); the Noise Terrain panel shows them for the active terrain and ``regenerate_terrain``
(``noisewright.regenerate_terrain``) rebuilds the mesh from them, as A.N.T. Landscape's refresh.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import bpy
import numpy as np
from bpy.props import EnumProperty
from bpy_extras.object_utils import AddObjectHelper, object_data_add

from . import erosion_io, mesh_io, terrain_layers, terrain_maps, terrain_water
from .erode_fluvial import TERRAIN_OPTIONS, write_flow
from .errors import UserError
from .jobs import Job, JobOperator
from .mapping import Domain, to_domain, to_spec
from .mesh_io import mesh_of
from .noise_core import NoiseSpec
from .noise_core.terrain.erosion import HYDRAULIC_OPTIONS, THERMAL_OPTIONS
from .noise_core.terrain.recipe import PRESETS as RECIPE_PRESETS
from .noise_core.terrain.recipe import Recipe, Stage, read_preset, read_recipe
from .options import NoiseOperator, OptionsOperator, check_noise, checked, properties_of, reports
from .progress import staged, window_progress
from .properties import check_finite, operator_settings
from .terrain_grid import grid, grid_positions, on_mesh_grid
from .terrain_recipe import (
    BASE_OPTIONS,
    SHAPE_OPTIONS,
    TerrainRecipe,
    as_stored,
    from_recipe,
    resolved,
    stage_weights,
    stored_domain,
    stored_spec,
    terrain_geometry,
    terrain_heights,
)
from .terrain_settings import draw_shape, is_terrain, recall, store
from .ui import draw_noise_settings


def _target_collection(context: bpy.types.Context, warn: Callable[[str], None] | None) -> bpy.types.LayerCollection:
    """The active layer collection, or the scene's when the active one is linked library data (read-only)."""
    layer_collection = cast(bpy.types.LayerCollection, context.view_layer.active_layer_collection)
    if layer_collection.collection.is_editable:
        return layer_collection
    if warn is not None:
        warn("The active collection is linked library data; added to the scene collection")
    return cast(bpy.types.LayerCollection, context.view_layer.layer_collection)  # the scene collection's


@checked(*SHAPE_OPTIONS, *BASE_OPTIONS)
def _add_terrain(
    context: bpy.types.Context,
    spec: NoiseSpec,
    domain: Domain | None = None,
    *,
    hydraulic: dict[str, Any] | None = None,
    thermal: dict[str, Any] | None = None,
    fluvial: dict[str, Any] | None = None,
    operator: bpy.types.Operator | None = None,
    warn: Callable[[str], None] | None = None,
    extra: tuple[Stage, ...] = (),
    **shape: Any,
) -> bpy.types.Object:
    """``add_terrain`` once the preset or recipe is read: every argument given."""
    domain = Domain() if domain is None else domain
    check_noise(spec, domain)
    hydraulic = _erosion_options("hydraulic", hydraulic, HYDRAULIC_OPTIONS)
    thermal = _erosion_options("thermal", thermal, THERMAL_OPTIONS)
    fluvial = _erosion_options("fluvial", fluvial, TERRAIN_OPTIONS[1:])
    if not isinstance(extra, tuple) or not all(isinstance(stage, Stage) for stage in extra):
        raise UserError("extra: expected a tuple of noise_core.terrain.recipe.Stage records")
    hydraulic, thermal, fluvial = as_stored((hydraulic, thermal, fluvial))
    shape = as_stored(shape)
    recipe = TerrainRecipe(stored_spec(spec), stored_domain(domain), shape, hydraulic, thermal, fluvial, extra)
    positions, quads, uvs, masks = terrain_geometry(context, recipe)
    layer_collection = _target_collection(context, warn)
    mesh = bpy.data.meshes.new("Noise Terrain")
    try:
        mesh_io.build_grid(mesh, positions, quads, uvs)
        write_maps(mesh, masks)
        with context.temp_override(layer_collection=layer_collection):
            obj = object_data_add(context, mesh, operator=operator)
    except RuntimeError as error:
        for obj in [obj for obj in bpy.data.objects if obj.data == mesh]:
            bpy.data.objects.remove(obj)
        bpy.data.meshes.remove(mesh)
        raise UserError(f"Could not add the terrain to {layer_collection.collection.name!r}: {error}") from None
    store(obj, recipe)
    return obj


def read_library_recipe(preset: object = None, recipe: object = None) -> Recipe:
    """The library recipe of the shipped ``preset`` (a name, ``noise_core.terrain.recipe.preset_names``) or of the
    recipe file ``recipe``; ``UserError`` naming the argument."""
    if (preset is None) == (recipe is None):
        raise UserError("preset, recipe: give one of them (a shipped preset's name, or a recipe file)")
    try:
        if preset is not None:
            return read_preset(preset)
        return read_recipe(bpy.path.abspath(str(recipe)))
    except (TypeError, ValueError) as error:
        name = "preset" if preset is not None else "recipe"
        message = str(error)
        raise UserError(message if message.startswith(f"{name}:") else f"{name}: {message}") from None


def add_terrain(
    context: bpy.types.Context,
    spec: NoiseSpec | None = None,
    domain: Domain | None = None,
    *,
    preset: str | None = None,
    recipe: str | None = None,
    **keywords: Any,
) -> bpy.types.Object:
    """Add a "Noise Terrain": a ``size`` wide grid raised along Z by ``spec``, placed as Blender adds objects.

    With ``preset`` (a shipped preset's name) or ``recipe`` (a recipe file, ``noise_core.terrain.recipe``) the
    terrain is that recipe's (its noise, grid, stages and ``export.samples`` as the subdivisions + 1), with the
    arguments given here in its place (``x_subdivisions=N - 1`` builds it at N x N samples, as ``python -m
    noise_core terrain --preset NAME --size N`` does, bit for bit). ``extra``: library ``Stage`` records run
    after the erosion stages below.

    Vertex ``(x, y)`` reads the noise at ``domain.noise_points((x + offset_x, y + offset_y, 0))`` and gets
    ``z = to_unit(noise) * height * edge_falloff``, then the erosion stages whose options are given (``{}``:
    the defaults; ``terrain_geometry``): rivers (``fluvial``: ``erode_fluvial.TERRAIN_OPTIONS`` by name but the
    switch), hydraulic and thermal erosion (keyword arguments of ``noise_core.erode_hydraulic``/``erode_thermal``),
    with the masks in the mesh's ``erosion``/``deposition`` attributes and the rivers' flow maps in
    ``drainage_area``/``river``. The object keeps all these settings
    (``regenerate_terrain``); floats as Blender stores them (32-bit), and the terrain is built from those.
    The object is added like Add > Mesh objects
    (``object_data_add``): at the 3D cursor, or at ``operator``'s Location/Rotation/Align when given (an
    ``AddObjectHelper`` operator), selected and active, in Edit Mode if the user's preference says so. A
    linked (read-only) active collection gets the object into the scene collection, with a ``warn`` call.
    Returns the object; ``UserError`` for bad arguments or when the object cannot be added (then no mesh
    or object is left behind). The grid's keyword arguments (``x_subdivisions``, ``y_subdivisions``, ``size``,
    ``height``, ``offset``, ``falloff``, ``falloff_width``), their defaults and limits: ``SHAPE_OPTIONS``; the
    base heightmap's (``base_blend``, ``base_file``, ``base_low``, ``base_high``): ``BASE_OPTIONS``.
    """
    if preset is None and recipe is None:
        if spec is None:
            raise UserError("spec: give a NoiseSpec (or a preset or recipe to build)")
        return _add_terrain(context, spec, domain, **keywords)
    return _add_recipe(context, read_library_recipe(preset, recipe), spec, domain, **keywords)


def _add_recipe(
    context: bpy.types.Context,
    library: Recipe,
    spec: NoiseSpec | None = None,
    domain: Domain | None = None,
    **keywords: Any,
) -> bpy.types.Object:
    """``add_terrain`` of the library recipe ``library`` (``from_recipe``), the arguments given in its place."""
    made = from_recipe(library)
    values = {**made.shape, "hydraulic": made.hydraulic, "thermal": made.thermal, "fluvial": made.fluvial,
              "extra": made.extra} | keywords  # fmt: skip
    return _add_terrain(
        context, made.spec if spec is None else spec, made.domain if domain is None else domain, **values
    )


_SIGNATURE = inspect.signature(_add_terrain)
add_terrain.__signature__ = _SIGNATURE.replace(  # type: ignore[attr-defined]
    parameters=[
        *(p.replace(default=None) if p.name == "spec" else p for p in list(_SIGNATURE.parameters.values())[:3]),
        inspect.Parameter("preset", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="str | None"),
        inspect.Parameter("recipe", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="str | None"),
        *list(_SIGNATURE.parameters.values())[3:],
    ]
)


def _erosion_options(name: str, options: object, schema: tuple) -> dict[str, Any] | None:
    """``options`` (a dict of erosion options, or None) with every option the caller left out at its default."""
    if options is None:
        return None
    if not isinstance(options, dict):
        raise UserError(f"{name}: expected a dict of erosion options or None, got {type(options).__name__}")
    return {option.name: option.default for option in schema} | options


REBUILD_STEPS = 1000
"""The progress ``regenerate_job``'s ``compute`` reports in all (``stage_weights``' shares)."""
MAPS_WEIGHT = 2
"""The share of the recorded terrain maps in ``regenerate_job``'s progress (``terrain_maps.recorded_maps``)."""


def write_maps(mesh: bpy.types.Mesh, maps: tuple) -> None:
    """Store ``terrain_geometry``'s masks, flow maps and depths of sediment and talus as point attributes (None
    removes one)."""
    erosion_io.write_masks(mesh, *maps[:2], *maps[4:])
    write_flow(mesh, *maps[2:4])


def regenerate_terrain(context: bpy.types.Context, obj: bpy.types.Object) -> bpy.types.Object:
    """Rebuild the mesh of the Noise Terrain ``obj`` from the settings it keeps (``obj.noisewright_terrain``).

    The object stays, with its name, transform, modifiers, materials and everything else. With the same
    subdivisions only the vertex positions change (UV maps, vertex groups, attributes and face materials stay);
    with other subdivisions, or faces no longer those of the grid in its order (Mesh > Sort Elements), the mesh
    gets the new grid (its material slots stay; shape keys refuse this).
    ``UserError`` naming the problem when ``obj`` is not a Noise Terrain, is linked or in Edit Mode, or its
    settings are invalid; then nothing changes.
    """
    regenerate_job(context, obj).run()
    return obj


def regenerate_job(context: bpy.types.Context, obj: object) -> Job:
    """``regenerate_terrain`` as a ``jobs.Job`` (``live`` runs it on a worker): this checks ``obj`` and reads its
    settings (main thread; ``UserError`` as ``regenerate_terrain``); ``compute(advance)`` makes the heights and
    masks (``terrain_heights``: any thread, touching no Blender data; on a job's worker its noise chunks and
    droplet batches check for a cancel), and the terrain maps, water and material layers recorded on it
    (``terrain_maps.recorded_maps``, ``terrain_water.recorded_water``, ``terrain_layers.recorded_layers``) of the
    new heights; ``apply(result)`` writes them (main thread; ``UserError``, changing nothing, when the object was
    removed or renamed, is in Edit Mode, or its settings changed meanwhile). On a job's worker ``compute`` moves
    ``advance`` on through ``REBUILD_STEPS`` in all, monotone (``progress.staged``)."""
    _check_regenerable(obj)
    obj = cast(bpy.types.Object, obj)
    recalled = recall(obj)
    recipe = resolved(recalled)  # a "//" path read against the .blend here, not on the worker
    shape = recipe.shape
    name, mesh_name = obj.name, mesh_of(obj).name
    recorded = terrain_maps.recorded_maps(obj)
    water = terrain_water.recorded_water(obj)
    layers = terrain_layers.recorded_layers(obj)
    weights = stage_weights(recipe) + [MAPS_WEIGHT] * (recorded.total > 0) + [MAPS_WEIGHT] * (water.total > 0)
    weights += [MAPS_WEIGHT] * (layers.total > 0)

    def compute(advance: Callable[[int], None]) -> tuple:
        with staged(advance, REBUILD_STEPS, weights):  # a job's progress, stage by stage
            mesh_shape, heights, masks = on_mesh_grid(shape, *terrain_heights(context, recipe))
            size = (mesh_shape["x_subdivisions"], mesh_shape["y_subdivisions"], shape["size"])
            positions = grid_positions(*size, heights, np.float32)  # what a mesh with the grid gets
            maps_job = maps = None
            if recorded.total:  # the recorded terrain maps of these positions, made here too
                maps_job = recorded.job(positions)
                with window_progress(context, maps_job.total) as maps_advance:
                    maps = maps_job.compute(maps_advance)
            water_job = flooded = None
            if water.total:  # and its recorded water (Object > Terrain Water)
                water_job = water.job(positions)
                with window_progress(context, water_job.total) as water_advance:
                    flooded = water_job.compute(water_advance)
            layers_job = layered = None
            if layers.total:  # and its recorded material layers (Object > Terrain Layers)
                layers_job = layers.job(positions)
                with window_progress(context, layers_job.total) as layers_advance:
                    layered = layers_job.compute(layers_advance)
        return mesh_shape, heights, masks, positions, maps_job, maps, water_job, flooded, layers_job, layered

    def apply(result: tuple) -> None:
        target = bpy.data.objects.get(name)
        if target is None or not is_terrain(target) or mesh_of(target).name != mesh_name or recall(target) != recalled:
            raise UserError(f"{name!r}: the terrain was removed, renamed or changed meanwhile; nothing was changed")
        _check_regenerable(target)
        mesh_shape, heights, masks, positions, maps_job, maps, water_job, flooded, layers_job, layered = result
        _write_terrain(target, mesh_shape, heights, masks, positions)
        target.noisewright_terrain.unreplayable = ""  # the mesh is its recipe's again
        if maps_job is not None:
            maps_job.apply(maps)  # the maps Object > Terrain Maps wrote, of the new heights
        if water_job is not None:
            water_job.apply(flooded)  # the water Object > Terrain Water added, of the new heights
        if layers_job is not None:
            layers_job.apply(layered)  # the layers Object > Terrain Layers wrote (after the new depths)

    return Job(compute, apply, REBUILD_STEPS)


def _check_regenerable(obj: object) -> None:
    """``UserError`` when ``obj`` is not a Noise Terrain, is linked or in Edit Mode."""
    if not is_terrain(obj):
        name = obj.name if isinstance(obj, bpy.types.Object) else type(obj).__name__
        raise UserError(f"object: {name!r} is not a Noise Terrain (Add > Mesh > Noise Terrain makes one)")
    obj = cast(bpy.types.Object, obj)
    mesh = mesh_of(obj)
    if not obj.is_editable or not mesh.is_editable:
        raise UserError(f"{obj.name!r}: linked library data cannot be changed (make it local first)")
    if obj.mode == "EDIT":
        raise UserError(f"{obj.name!r}: leave Edit Mode to regenerate the terrain")


def _write_terrain(
    obj: bpy.types.Object, shape: dict, heights: np.ndarray, masks: tuple, positions: np.ndarray
) -> None:
    """Give the terrain ``obj`` the ``heights`` and ``masks`` of its grid ``shape`` (``regenerate_terrain``;
    ``positions``: ``grid_positions`` of the heights, float32)."""
    mesh = mesh_of(obj)
    x_subdivisions, y_subdivisions, size = shape["x_subdivisions"], shape["y_subdivisions"], shape["size"]
    if mesh_io.is_grid(mesh, x_subdivisions + 1, y_subdivisions + 1):  # the grid's faces: write the positions only
        mesh_io.write_positions(mesh, positions)
    else:
        if mesh.shape_keys is not None:
            faces = x_subdivisions * y_subdivisions
            same_count = len(mesh.vertices) == heights.shape[0] and len(mesh.polygons) == faces
            change = "a new vertex count" if not same_count else "rebuilding the grid (its vertices were reordered)"
            raise UserError(
                f"{obj.name!r}: the mesh has shape keys, which {change} would lose; keep the "
                f"subdivisions or remove the shape keys"
            )
        mesh.clear_geometry()
        mesh_io.build_grid(mesh, *grid(x_subdivisions, y_subdivisions, size, heights))
    write_maps(mesh, masks)
    mesh.update()


PRESETS = RECIPE_PRESETS
"""The shipped terrain presets, recipe files (``terrain_presets`` lists them in the Noise Terrain panel's menu)."""
DEFAULT_PRESET = "river_valleys"
"""What Add > Mesh > Noise Terrain builds unless told otherwise: a landscape, not plain noise."""
PRESET_ITEMS = (
    ("NONE", "None", "Plain noise: the grid and noise below, no erosion"),
    *((path.stem, bpy.path.display_name(path.name, title_case=True), f"The shipped preset {path.stem!r}")
      for path in sorted(PRESETS.glob("*.json"))),
)  # fmt: skip


def read_recipe_file(path: Path) -> Recipe:
    """The recipe file ``path`` (``noise_core.terrain.recipe.read_recipe``); ``UserError`` starting ``filepath:``."""
    try:
        return read_recipe(path)
    except (TypeError, ValueError) as error:
        raise UserError(f"filepath: {str(error).removeprefix('path: ')}") from None


def show_whole(context: bpy.types.Context, obj: bpy.types.Object) -> None:
    """Widen the 3D View's clip distances to hold the whole of ``obj`` (the natural presets are tens of kilometres
    across: Blender's default Clip End is 1 km)."""
    space = getattr(context, "space_data", None)
    if space is not None and getattr(space, "type", "") == "VIEW_3D":
        reach = 4.0 * max(obj.dimensions.x, obj.dimensions.y, obj.dimensions.z)
        if space.clip_end < reach:
            space.clip_end = reach
            space.clip_start = max(space.clip_start, reach * 1e-6)


def add_preset_terrain(
    context: bpy.types.Context,
    path: Path,
    *,
    operator: bpy.types.Operator | None = None,
    warn: Callable[[str], None] | None = None,
) -> bpy.types.Object:
    """Add a Noise Terrain built once as the recipe file ``path`` (Add > Mesh > Noise Terrain's preset): the
    object ``add_terrain`` adds of the recipe (placed by ``operator``), with the recipe's water recorded on it and
    made of its mesh (``terrain_water.record_water``, as applying the recipe to a terrain makes it:
    ``terrain_presets.apply_recipe``), then ``show_whole``. ``UserError`` leaves no object or mesh behind."""
    recipe = read_recipe_file(path)
    obj = _add_recipe(context, recipe, operator=operator, warn=warn)
    if recipe.water is not None:
        try:
            terrain_water.record_water(obj, recipe.water)
            terrain_water.recorded_water(obj).job(mesh_io.read_positions(mesh_of(obj))).run()
        except UserError:
            mesh = mesh_of(obj)
            bpy.data.objects.remove(obj)
            bpy.data.meshes.remove(mesh)
            raise
    show_whole(context, obj)
    return obj


class NOISEWRIGHT_OT_add_terrain(NoiseOperator, bpy.types.Operator, AddObjectHelper):
    """Add a grid mesh raised by noise (a terrain), by default built as a shipped preset"""

    bl_idname = "noisewright.add_terrain"
    bl_label = "Noise Terrain"
    __annotations__ = {
        **properties_of(*SHAPE_OPTIONS),
        "preset": EnumProperty(  # type: ignore[func-returns-value]
            name="Preset", items=PRESET_ITEMS, default=DEFAULT_PRESET,
            description="Build the terrain as this shipped preset (its size, noise and erosion), or plain noise",
        ),
    }  # fmt: skip

    @staticmethod
    def unavailable(context) -> str:
        return "" if context.mode == "OBJECT" else "Add Noise Terrain works in Object Mode"

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "preset")
        if self.preset == "NONE":
            draw_shape(cast(bpy.types.UILayout, layout), self)
        for name in ("align", "location", "rotation"):
            layout.prop(self, name)
        if self.preset == "NONE":
            draw_noise_settings(layout.box(), self.noise)

    @reports
    def execute(self, context):
        settings = operator_settings(self, context)
        preset = self.preset
        chosen = self.properties.is_property_set("preset")
        if not chosen and any(self.properties.is_property_set(option.name) for option in SHAPE_OPTIONS):
            preset = "NONE"  # a caller that gives the grid (a script, the API) gets that grid of plain noise
        warn = functools.partial(self.report, {"WARNING"})
        if preset != "NONE":
            add_preset_terrain(context, PRESETS / f"{preset}.json", operator=self, warn=warn)
            return {"FINISHED"}
        add_terrain(
            context,
            to_spec(settings),
            to_domain(settings),
            operator=self,
            warn=warn,
            **self.keywords("align", "location", "rotation", "preset"),
        )
        return {"FINISHED"}


BEFORE_REGENERATE: list[Callable[[str], None]] = []
"""Called with a Noise Terrain's name before Regenerate rebuilds it (``live.forget``, added by
``live.attach_callbacks``: a full rebuild Auto Refresh runs as a job is dropped, this one builds it instead)."""


def _drop_auto_refresh(context: bpy.types.Context) -> None:
    """Auto Refresh's pending rebuild of the active terrain dropped (``BEFORE_REGENERATE``), before Regenerate's
    one-job-per-object check: Regenerate builds it instead."""
    for hook in BEFORE_REGENERATE:
        hook(context.active_object.name)


class NOISEWRIGHT_OT_regenerate_terrain(JobOperator, OptionsOperator, bpy.types.Operator):
    """Rebuild the active Noise Terrain from its settings, keeping the object, its modifiers and materials"""

    bl_idname = "noisewright.regenerate_terrain"
    bl_label = "Regenerate Terrain"
    bl_options = {"REGISTER", "UNDO"}

    @staticmethod
    def unavailable(context) -> str:
        if context.mode != "OBJECT":
            return "Regenerate works in Object Mode"
        return "" if is_terrain(context.active_object) else "The active object is not a Noise Terrain"

    def job_key(self, context) -> str:
        return context.active_object.name

    def execute(self, context):
        _drop_auto_refresh(context)
        return JobOperator.execute(self, context)

    def invoke(self, context, event):
        _drop_auto_refresh(context)
        return JobOperator.invoke(self, context, event)

    def prepare(self, context) -> Job:
        """``regenerate_job``: in the UI a job (progress in the status bar, Esc cancels and changes nothing), from
        scripts and in background mode in the foreground."""
        check_finite(context.active_object.noisewright_terrain)
        return regenerate_job(context, context.active_object)


def menu_entry(menu, _context) -> None:
    menu.layout.operator(NOISEWRIGHT_OT_add_terrain.bl_idname, text="Noise Terrain", icon="RNDCURVE")


CLASSES = (NOISEWRIGHT_OT_add_terrain, NOISEWRIGHT_OT_regenerate_terrain)
