"""``noisewright.terrain_water``: Object > Terrain Water, over ``terrain_water`` (``noise_core.water``, docs/water.md).

Lakes, water level, rivers and a flow map for a grid mesh (a Noise Terrain, Add > Mesh > Grid: any regular grid in
local X/Y, heights along local Z; the rain, evaporation and widths in its units). Adds, parented to it:

- ``"<object> Water"``: a mesh of the water surface, the grid's faces that touch a lake at the lake's level (a
  dry corner at the level of the lake beside it, under the bank, so the shore is where the two surfaces meet) and a
  ribbon along each river reach, as wide as the river, at its water level; point attributes ``water_depth`` and
  ``flow``; the material ``"<object> Water"`` (Principled BSDF: transmission 1, IOR 1.33, its colour from shallow
  to deep by ``water_depth``);
- ``"<object> Rivers"``: a curve object, one poly spline per reach, each point's radius half the river's width.

The maps go to the terrain as float point attributes (``attributes``: ``water_level``, ``water_depth``, ``lake``,
``shore_distance``, ``discharge``, ``river``, ``river_width`` and the 2-D vector ``flow``, the water's direction
times its speed, in local X/Y) and/or float images ``"<object> <map>"`` (``images``; ``flow`` as RGB in the flow
map's encoding, R, G = 0.5 + 0.5 x, y). Earlier water objects of the object are replaced. The work runs as a job
(``jobs``): progress per stage, Esc cancels; cancelled or failing, it leaves the scene as it was. The settings
are kept on the object (``RECORD``): a Noise Terrain's Regenerate computes its water again (``recorded_water``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import bpy
import numpy as np

from . import mesh_io
from .erode import grid_heights
from .erosion_io import grid_layout
from .errors import UserError
from .image_io import data_image
from .jobs import Job, JobOperator
from .noise_core.schema import Option
from .noise_core.terrain.water import WATER_OPTIONS, WATER_STEPS, WaterResult, water
from .options import OptionsOperator, checked, properties_of
from .pixels import pixel_array
from .progress import steps_of
from .terrain_maps import mesh_unavailable

FULL = Option("full", bool, False, "Unlimited water: every depression full to its spill level", title="Full Lakes")
"""Rain without limit (``water``'s ``rain=inf``), here and in the heightmap export's water maps."""
STORE_OPTIONS: tuple[Option, ...] = (
    FULL,
    Option("surface", bool, True, "Add the water surface mesh (lakes and rivers) with a water material"),
    Option("curves", bool, True, "Add the river network as curves (radius: half the river's width)"),
    Option("attributes", bool, True, "Store the water maps as point attributes of the terrain"),
    Option("images", bool, False, "Store the water maps as float images '<object> <map>'"),
)
"""What ``terrain_water`` adds besides ``WATER_OPTIONS``."""
MAPS = ("water_level", "water_depth", "lake", "shore_distance", "discharge", "river", "river_width")
"""The float maps, in the order ``_maps`` makes them; ``flow`` is a 2-D vector besides."""
FLOW = "flow"
SHALLOW, DEEP = (0.45, 0.72, 0.85, 1.0), (0.02, 0.12, 0.28, 1.0)
"""Linear colours of the water at depth 0 and at the deepest lake's 95th percentile depth."""


def _maps(result: WaterResult) -> dict[str, np.ndarray]:
    """The terrain's float maps (``MAPS``) of ``result``, (rows, columns) each."""
    values = (result.level, result.depth, result.lakes, result.shore_distance, result.discharge,
              result.river_mask, result.width)  # fmt: skip
    return {name: np.asarray(array, dtype=np.float32) for name, array in zip(MAPS, values, strict=True)}


def _lake_surface(result: WaterResult, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(positions, quads, depth)`` of the lakes' surface: every grid face with a lake corner; a dry corner at the
    highest level of the lake cells around it (under the bank)."""
    rows, columns = result.lakes.shape
    wet = result.lakes > 0
    level = np.where(wet, result.level.astype(np.float64), -np.inf)
    padded = np.pad(level, 1, constant_values=-np.inf)
    around = np.max([padded[1 + dy : 1 + dy + rows, 1 + dx : 1 + dx + columns]
                     for dy in (-1, 0, 1) for dx in (-1, 0, 1)], axis=0)  # fmt: skip
    faces = wet[:-1, :-1] | wet[1:, :-1] | wet[:-1, 1:] | wet[1:, 1:]
    r, c = np.nonzero(faces)
    corners = np.stack([r * columns + c, r * columns + c + 1, (r + 1) * columns + c + 1, (r + 1) * columns + c], 1)
    used = np.unique(corners)
    index = np.full(rows * columns, -1, np.int64)
    index[used] = np.arange(used.size)
    positions = grid.reshape(-1, 3)[used].astype(np.float64)
    positions[:, 2] = np.where(wet.reshape(-1)[used], level.reshape(-1)[used], around.reshape(-1)[used])
    return positions, index[corners], np.where(wet.reshape(-1)[used], result.depth.reshape(-1)[used], 0.0)


def _ribbons(result: WaterResult, grid: np.ndarray, columns: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(positions, quads, depth)`` of a strip along each river reach, as wide as the river, at its level."""
    reaches = [reach for reach in result.rivers if reach.cells.size > 1]
    if not reaches:
        return np.zeros((0, 3)), np.zeros((0, 4), np.int64), np.zeros(0)
    cells = np.concatenate([reach.cells for reach in reaches])
    width = np.concatenate([reach.width for reach in reaches])
    depth = np.concatenate([reach.depth for reach in reaches])
    lengths = np.array([reach.cells.size for reach in reaches])
    last = np.cumsum(lengths) - 1
    first = last - lengths + 1
    xy = grid.reshape(-1, 3)[cells, :2].astype(np.float64)
    ahead = np.arange(cells.size) + 1
    ahead[last] = last
    behind = np.arange(cells.size) - 1
    behind[first] = first
    tangent = xy[ahead] - xy[behind]
    tangent /= np.maximum(np.linalg.norm(tangent, axis=1, keepdims=True), 1e-30)
    normal = np.stack([-tangent[:, 1], tangent[:, 0]], 1) * (width / 2.0)[:, None]
    z = result.level.reshape(-1)[cells].astype(np.float64)
    positions = np.empty((2 * cells.size, 3))
    positions[0::2, :2], positions[1::2, :2] = xy + normal, xy - normal
    positions[0::2, 2] = positions[1::2, 2] = z
    joined = np.ones(cells.size, bool)
    joined[last] = False
    i = np.flatnonzero(joined)
    quads = np.stack([2 * i, 2 * i + 1, 2 * i + 3, 2 * i + 2], 1)  # counter-clockwise from above: facing +Z
    return positions, quads, np.repeat(depth, 2)


def _surface_mesh(name: str, parts: list, flow: np.ndarray) -> bpy.types.Mesh:
    """A mesh of the surface ``parts`` (``(positions, quads, depth)`` each) with point attributes ``water_depth``
    and ``flow`` (per vertex, ``flow`` given per part as (N, 2))."""
    positions = np.concatenate([part[0] for part in parts])
    offsets = np.cumsum([0] + [part[0].shape[0] for part in parts[:-1]])
    quads = np.concatenate([part[1] + offset for part, offset in zip(parts, offsets, strict=True)])
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(positions.astype(np.float32), [], quads.astype(np.int32))
    mesh.update()
    mesh_io.write_point_floats(mesh, "water_depth", np.concatenate([part[2] for part in parts]))
    _write_vectors(mesh, FLOW, flow)
    return mesh


def _write_vectors(mesh: bpy.types.Mesh, name: str, vectors: np.ndarray) -> None:
    """Store (N, 2) ``vectors`` as the 2-D vector point attribute ``name`` (made or replaced)."""
    attribute = mesh.attributes.get(name)
    if attribute is not None and (attribute.data_type != "FLOAT2" or attribute.domain != "POINT"):
        mesh.attributes.remove(attribute)
        attribute = None
    if attribute is None:
        attribute = mesh.attributes.new(name, "FLOAT2", "POINT")
    cast(Any, attribute).data.foreach_set("vector", np.ascontiguousarray(vectors, dtype=np.float32).ravel())


def _material(name: str, deep: float) -> bpy.types.Material:
    """The water material: Principled BSDF, transmission 1, IOR 1.33, low roughness, colour from ``SHALLOW`` to
    ``DEEP`` as the ``water_depth`` attribute goes from 0 to ``deep``."""
    material = bpy.data.materials.new(name)
    if material.node_tree is None:  # Blender < 5.0 makes node trees on request only
        material.use_nodes = True
    tree: Any = material.node_tree  # the stubs type new nodes and their sockets as the base classes
    bsdf = next(node for node in tree.nodes if node.bl_idname == "ShaderNodeBsdfPrincipled")
    transmission = "Transmission Weight" if "Transmission Weight" in bsdf.inputs else "Transmission"
    bsdf.inputs[transmission].default_value = 1.0
    bsdf.inputs["IOR"].default_value = 1.33
    bsdf.inputs["Roughness"].default_value = 0.04
    attribute = tree.nodes.new("ShaderNodeAttribute")
    attribute.attribute_type, attribute.attribute_name = "GEOMETRY", "water_depth"
    scale = tree.nodes.new("ShaderNodeMapRange")
    scale.inputs["From Max"].default_value = max(deep, 1e-6)
    ramp = tree.nodes.new("ShaderNodeValToRGB")
    ramp.color_ramp.elements[0].color, ramp.color_ramp.elements[1].color = SHALLOW, DEEP
    tree.links.new(attribute.outputs["Fac"], scale.inputs["Value"])
    tree.links.new(scale.outputs["Result"], ramp.inputs["Fac"])
    tree.links.new(ramp.outputs["Color"], bsdf.inputs["Base Color"])
    return material


def _curves(name: str, result: WaterResult, grid: np.ndarray) -> bpy.types.Curve:
    """A 3-D curve of poly splines, one per river reach (points at the water level, radius half the width)."""
    curve = bpy.data.curves.new(name, "CURVE")
    curve.dimensions = "3D"
    flat = grid.reshape(-1, 3)
    for reach in result.rivers:  # one spline per reach, its points set in bulk
        spline = curve.splines.new("POLY")
        spline.points.add(reach.cells.size - 1)
        points = np.ones((reach.cells.size, 4), np.float32)
        points[:, :2] = flat[reach.cells, :2]
        points[:, 2] = reach.points[:, 2]
        spline.points.foreach_set("co", points.ravel())
        spline.points.foreach_set("radius", (reach.width / 2.0).astype(np.float32))
    return curve


def _flow_vectors(result: WaterResult) -> np.ndarray:
    """The flow map as signed 2-D vectors (x along the columns, y along the rows), (rows * columns, 2)."""
    return (2.0 * result.flow.reshape(-1, 2) - 1.0).astype(np.float32)


@checked(*STORE_OPTIONS, *WATER_OPTIONS)
def terrain_water(obj: bpy.types.Object, **options: Any) -> dict[str, Any]:
    """Compute the water of the grid mesh ``obj`` (``noise_core.water`` on its heights, cell size its spacing;
    module doc) and add what the options ask for. Returns ``{"result": WaterResult, "surface": object or None,
    "rivers": object or None}``. ``UserError`` naming the problem (not a grid, Edit Mode, bad settings); then nothing
    changes."""
    return terrain_water_job(obj, **options).run()


@checked(*STORE_OPTIONS, *WATER_OPTIONS)
def terrain_water_job(obj: bpy.types.Object, **settings: Any) -> Job:
    """``terrain_water`` as a ``jobs.Job``: this reads the grid (main thread; ``UserError`` as ``terrain_water``),
    ``compute(advance)`` computes the water and the surface's geometry touching no Blender data (any thread;
    ``WATER_STEPS`` in all, one per stage), ``apply(result)`` adds the objects and maps and records the settings
    (``RECORD``; main thread; ``UserError``, changing nothing, when the object was removed or its mesh changed
    meanwhile)."""
    mesh, positions, _layout, _heights = grid_heights(obj)
    water_arguments(settings)
    return _grid_job(obj.name, mesh.name, positions, settings)


def water_arguments(settings: dict[str, Any]) -> dict[str, Any]:
    """``water``'s keyword arguments from ``settings`` (``FULL`` and ``WATER_OPTIONS``, checked): rain without limit
    when ``full``; ``UserError`` when there is no rain."""
    if settings["rain"] <= 0.0 and not settings["full"]:
        raise UserError("rain: give some rain (or Full Lakes); with none there is no water")
    options = {option.name: settings[option.name] for option in WATER_OPTIONS}
    if settings["full"]:
        options["rain"] = float("inf")
    return options


def _grid_job(object_name: str, mesh_name: str, positions: np.ndarray, settings: dict[str, Any]) -> Job:
    """``terrain_water_job`` for the mesh ``mesh_name`` of ``object_name`` whose vertices are at ``positions``
    (float64; any thread: it reads no Blender data), with ``settings`` (the store options and ``water``'s,
    checked); ``UserError`` when the grid's cells are not square (the D8 paths need them)."""
    layout = grid_layout(object_name, positions)
    cell_size = layout.square_cell(object_name, "water needs")
    grid = positions[layout.order].reshape(layout.rows, layout.columns, 3)
    heights = grid[..., 2]
    options = water_arguments(settings)

    def compute(advance: Callable[[int], None]) -> tuple[WaterResult, list | None]:
        try:
            result = water(heights, cell_size=cell_size, progress=steps_of(advance), **options)
        except (TypeError, ValueError) as error:
            raise UserError(str(error)) from None
        parts = [_lake_surface(result, grid), _ribbons(result, grid, layout.columns)] if settings["surface"] else None
        return result, parts

    def apply(computed: tuple[WaterResult, list | None]) -> dict[str, Any]:
        result, parts = computed
        target = bpy.data.objects.get(object_name)
        if target is None or target.type != "MESH" or target.data.name != mesh_name or target.mode == "EDIT":
            raise UserError(f"{object_name!r}: the object was removed, renamed or is in Edit Mode; nothing was changed")
        target_mesh = cast(bpy.types.Mesh, target.data)
        if len(target_mesh.vertices) != positions.shape[0]:
            raise UserError(f"{object_name!r}: the mesh changed while computing its water; nothing was changed")
        created: list = []
        added = [name for name in (*MAPS, FLOW) if settings["attributes"] and name not in target_mesh.attributes]
        try:
            made = {"result": result, "surface": None, "rivers": None}
            if parts is not None and sum(part[1].shape[0] for part in parts):
                made["surface"] = _surface_object(target, result, parts, created)
            if settings["curves"] and result.rivers:
                curve = _curves(f"{object_name} Rivers", result, grid)
                made["rivers"] = _add_object(target, f"{object_name} Rivers", curve, created)
            if settings["attributes"]:
                _write_maps(target_mesh, result, layout.order)
            if settings["images"]:
                _write_images(object_name, result, created)
        except BaseException:
            for block in reversed(created):  # the objects, meshes and images made so far, newest first
                _remove(block)
            for name in added:
                if name in target_mesh.attributes:
                    target_mesh.attributes.remove(target_mesh.attributes[name])
            raise
        for suffix, new in (("Water", made["surface"]), ("Rivers", made["rivers"])):
            old = bpy.data.objects.get(f"{object_name} {suffix}")
            if old is not None and old is not new and old.get(OWNER) == object_name:
                _remove(old, cascade=True)  # the earlier run's: replaced
            if new is not None:
                new.name = new.data.name = f"{object_name} {suffix}"
        cast(Any, target)[RECORD] = json.dumps(settings)
        return made

    return Job(compute, apply, WATER_STEPS)


RECORD = "noisewright_terrain_water"
"""The terrain's custom property (JSON) holding the settings of its last Terrain Water, for ``recorded_water``."""


@dataclass(frozen=True)
class RecordedWater:
    """The settings of the last Terrain Water of the object ``object_name`` (``RECORD``; None: none), read on the
    main thread, to make its water again of the positions its mesh ``mesh_name`` will get (a Noise Terrain's
    rebuild, ``terrain.regenerate_job``), as ``terrain_maps.RecordedMaps`` does its maps."""

    object_name: str
    mesh_name: str
    settings: dict[str, Any] | None

    @property
    def total(self) -> int:
        """The progress ``job(positions)``'s ``compute`` reports in all (0: no water recorded)."""
        return WATER_STEPS if self.settings else 0

    def job(self, positions: np.ndarray) -> Job:
        """The water of the mesh with vertices at ``positions`` as a ``jobs.Job`` (``terrain_water_job``'s)."""
        assert self.settings is not None
        return _grid_job(self.object_name, self.mesh_name, positions.astype(np.float64), self.settings)


def record_water(obj: bpy.types.Object, water: dict[str, Any]) -> None:
    """Record a recipe's ``water`` (``WATER_OPTIONS`` by name) on ``obj`` as Terrain Water records its settings
    (``STORE_OPTIONS`` at their defaults), so that ``recorded_water`` makes it."""
    defaults = {option.name: option.default for option in STORE_OPTIONS}
    cast(Any, obj)[RECORD] = json.dumps({**defaults, **water})


def recorded_water(obj: bpy.types.Object) -> RecordedWater:
    """The water settings recorded on ``obj`` (``RecordedWater``), read here (main thread)."""
    text = cast(Any, obj).get(RECORD)
    settings = json.loads(text) if isinstance(text, str) and text else None
    return RecordedWater(obj.name, cast(bpy.types.Mesh, obj.data).name, settings)


OWNER = "noisewright_water_of"
"""The custom property naming the terrain a water object was made for (so a rerun replaces only those)."""


def _add_object(target: bpy.types.Object, name: str, data: Any, created: list) -> bpy.types.Object:
    """A new object of ``data`` in ``target``'s collections, parented to it (its local space), remembered in
    ``created``."""
    created.append(data)
    obj = bpy.data.objects.new(name, data)
    created.append(obj)
    for collection in target.users_collection or (bpy.context.scene.collection,):
        collection.objects.link(obj)
    obj.parent = target
    cast(Any, obj)[OWNER] = target.name
    return obj


def _surface_object(target: bpy.types.Object, result: WaterResult, parts: list, created: list) -> bpy.types.Object:
    """The water surface object with its material."""
    lakes, ribbons = parts
    flow = _flow_vectors(result)
    lake_flow = np.zeros((lakes[0].shape[0], 2), np.float32)
    river_flow = np.zeros((ribbons[0].shape[0], 2), np.float32)
    rivers = [reach.cells for reach in result.rivers if reach.cells.size > 1]
    if rivers:
        river_flow[:] = np.repeat(flow[np.concatenate(rivers)], 2, axis=0)
    name = f"{target.name} Water"
    mesh = _surface_mesh(name, [lakes, ribbons], np.concatenate([lake_flow, river_flow]))
    obj = _add_object(target, name, mesh, created)
    depths = result.depth[result.lakes > 0]
    material = _material(name, float(np.percentile(depths, 95)) if depths.size else 1.0)
    created.append(material)
    mesh.materials.append(material)
    return obj


def _write_maps(mesh: bpy.types.Mesh, result: WaterResult, order: np.ndarray) -> None:
    """The maps as point attributes of the terrain ``mesh`` (grid cell ``k`` is vertex ``order[k]``)."""
    for name, values in _maps(result).items():
        per_vertex = np.empty(order.shape[0], np.float32)
        per_vertex[order] = values.ravel()
        mesh_io.write_point_floats(mesh, name, per_vertex)
    vectors = np.empty((order.shape[0], 2), np.float32)
    vectors[order] = _flow_vectors(result)
    _write_vectors(mesh, FLOW, vectors)
    mesh.update()


def _write_images(object_name: str, result: WaterResult, created: list) -> None:
    """The maps as float images ``"<object> <map>"`` (row 0 the grid's lowest Y, as Blender stores images)."""
    for name, values in _maps(result).items():
        existed = f"{object_name} {name}" in bpy.data.images
        made = data_image(f"{object_name} {name}", values)
        if not existed:
            created.append(made)
    rows, columns = result.lakes.shape
    name = f"{object_name} {FLOW}"
    image = bpy.data.images.get(name)
    if image is not None and (tuple(image.size) != (columns, rows) or not image.is_float):
        bpy.data.images.remove(image)
        image = None
    if image is None:
        image = bpy.data.images.new(name, columns, rows, alpha=False, float_buffer=True, is_data=True)
        created.append(image)
    rgba = np.ones((rows * columns, 4), np.float32)
    rgba[:, :2] = result.flow.reshape(-1, 2)
    rgba[:, 2] = 0.0
    pixel_array(image).foreach_set(rgba.ravel())
    image.update()


def _remove(block: Any, cascade: bool = False) -> None:
    """Remove the datablock ``block``; ``cascade``: an object with its data and material when nothing else uses
    them."""
    if isinstance(block, bpy.types.Object) and cascade:
        data = block.data
        bpy.data.objects.remove(block)
        if data is not None and data.users == 0:
            materials = list(getattr(data, "materials", ()))
            _remove(data)
            for material in materials:
                if material is not None and material.users == 0:
                    bpy.data.materials.remove(material)
        return
    if isinstance(block, bpy.types.Object):
        bpy.data.objects.remove(block)
    elif isinstance(block, bpy.types.Mesh):
        bpy.data.meshes.remove(block)
    elif isinstance(block, bpy.types.Curve):
        bpy.data.curves.remove(block)
    elif isinstance(block, bpy.types.Material):
        bpy.data.materials.remove(block)
    elif isinstance(block, bpy.types.Image):
        bpy.data.images.remove(block)


class NOISEWRIGHT_OT_terrain_water(JobOperator, OptionsOperator, bpy.types.Operator):
    """Add lakes that fill their depressions, rivers as curves and a water surface to the active grid mesh, with
    water level, depth, discharge and flow maps"""

    bl_idname = "noisewright.terrain_water"
    bl_label = "Terrain Water"
    __annotations__ = properties_of(*STORE_OPTIONS, *WATER_OPTIONS)

    @staticmethod
    def unavailable(context) -> str:
        return mesh_unavailable(context)

    def job_key(self, context) -> str:
        if context.active_object is None:
            raise UserError("object: select a grid mesh")
        return context.active_object.name

    def prepare(self, context):
        """A job (``jobs``): in the UI the water is computed in a worker thread, Esc cancels between stages; in
        background mode and from scripts (``execute``) in the foreground."""
        job = terrain_water_job(context.active_object, **self.keywords())

        def report(result: Any) -> dict[str, Any]:
            made = job.apply(result)
            lakes, reaches = made["result"].lake_level.size, len(made["result"].rivers)
            self.report({"INFO"}, f"Terrain Water: {lakes} lakes, {reaches} river reaches")
            return made

        return Job(job.compute, report, job.total)


def menu_entry(self, _context) -> None:
    self.layout.operator(NOISEWRIGHT_OT_terrain_water.bl_idname)


CLASSES = (NOISEWRIGHT_OT_terrain_water,)
