"""``noisewright.add_terrain``: a grid mesh at the 3D cursor, raised along Z by noise.

Vertex ``(x, y)`` of the grid (centred on its origin, ``size`` wide) reads the noise at
``(x + offset_x, y + offset_y, 0)`` (then the domain transform), and gets
``z = noise01 * height * falloff``, where ``falloff`` fades to 0 towards the edges (smoothstep over the
outer ``falloff_width`` fraction of the half-size, per axis or radially). The object goes into the active
collection, or the scene collection when the active one is linked library data (read-only).
"""

from __future__ import annotations

import bpy
import numpy as np
from bpy.props import EnumProperty, FloatProperty, FloatVectorProperty, IntProperty, PointerProperty

from . import mesh_io
from .errors import UserError
from .mapping import check_finite_values, evaluate_chunked, to_domain, to_spec
from .noise_core.ranges import to_unit
from .progress import window_progress
from .properties import NoiseSettings, operator_settings
from .ui import draw_noise_settings

MAX_VERTICES = 1 << 24
"""Largest terrain (16.7 M vertices, some 2 GB inside Blender): bigger requests are refused."""


def grid(x_subdivisions: int, y_subdivisions: int, size: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(positions (N, 3) with z = 0, quads (F, 4), uvs (N, 2))`` of a centred grid, row-major from -y."""
    columns, rows = x_subdivisions + 1, y_subdivisions + 1
    half = size * 0.5
    xs = np.linspace(-half, half, columns)
    ys = np.linspace(-half, half, rows)
    positions = np.zeros((rows * columns, 3), dtype=np.float64)
    positions[:, 0] = np.tile(xs, rows)
    positions[:, 1] = np.repeat(ys, columns)
    index = np.arange(rows * columns, dtype=np.int64).reshape(rows, columns)
    quads = np.stack((index[:-1, :-1], index[:-1, 1:], index[1:, 1:], index[1:, :-1]), axis=-1).reshape(-1, 4)
    uvs = positions[:, :2] / size + 0.5
    return positions, quads, uvs


def _smoothstep(t: np.ndarray) -> np.ndarray:
    t = np.clip(t, 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def edge_falloff(positions: np.ndarray, size: float, mode: str, width: float) -> np.ndarray:
    """(N,) factor in 0..1: 1 inside, easing to 0 at the edges (``mode`` NONE, X, Y or RADIAL)."""
    u = np.abs(positions[:, 0]) / (size * 0.5)
    v = np.abs(positions[:, 1]) / (size * 0.5)
    distance = {"X": u, "Y": v, "RADIAL": np.hypot(u, v)}.get(mode)
    if distance is None:
        return np.ones(positions.shape[0])
    return _smoothstep((1.0 - distance) / max(width, 1e-6))


def _new_terrain(
    context: bpy.types.Context,
    collection: bpy.types.Collection,
    positions: np.ndarray,
    quads: np.ndarray,
    uvs: np.ndarray,
) -> bpy.types.Object:
    """A "Noise Terrain" object and mesh at the 3D cursor, linked into ``collection``; if any step fails,
    both are removed again (no orphan data is left behind) and the error is raised."""
    mesh = bpy.data.meshes.new("Noise Terrain")
    obj = None
    try:
        mesh_io.build_grid(mesh, positions, quads, uvs)
        obj = bpy.data.objects.new("Noise Terrain", mesh)
        obj.location = context.scene.cursor.location
        collection.objects.link(obj)
    except BaseException:
        if obj is not None:
            bpy.data.objects.remove(obj)
        bpy.data.meshes.remove(mesh)
        raise
    return obj


class NOISEWRIGHT_OT_add_terrain(bpy.types.Operator):
    """Add a grid mesh at the 3D cursor raised by noise (a terrain)"""

    bl_idname = "noisewright.add_terrain"
    bl_label = "Noise Terrain"
    bl_options = {"REGISTER", "UNDO"}

    x_subdivisions: IntProperty(  # type: ignore[valid-type]
        name="X Subdivisions", description="Faces along X", default=128, min=1, max=16384, soft_max=2048
    )
    y_subdivisions: IntProperty(  # type: ignore[valid-type]
        name="Y Subdivisions", description="Faces along Y", default=128, min=1, max=16384, soft_max=2048
    )
    size: FloatProperty(  # type: ignore[valid-type]
        name="Size", description="Width and depth of the grid", default=2.0, min=1e-4, soft_max=1000.0, unit="LENGTH"
    )
    height: FloatProperty(  # type: ignore[valid-type]
        name="Height",
        description="Height of noise value 1",
        default=0.5,
        soft_min=-100.0,
        soft_max=100.0,
        unit="LENGTH",
    )
    offset: FloatVectorProperty(  # type: ignore[valid-type]
        name="Offset",
        description="Where the grid sits in the noise (move by Size for the neighbouring tile)",
        size=2,
        subtype="XYZ",
        unit="LENGTH",
    )
    falloff: EnumProperty(  # type: ignore[valid-type]
        name="Edge Falloff",
        description="Bring the terrain down to 0 towards its edges",
        items=[
            ("NONE", "None", "No falloff"),
            ("X", "X", "Towards the edges along X"),
            ("Y", "Y", "Towards the edges along Y"),
            ("RADIAL", "Radial", "Towards a circle touching the edges"),
        ],
        default="NONE",
    )
    falloff_width: FloatProperty(  # type: ignore[valid-type]
        name="Falloff Width",
        description="Fraction of the half-size over which the falloff eases in",
        default=0.3,
        min=0.0,
        max=1.0,
        subtype="FACTOR",
    )
    noise: PointerProperty(type=NoiseSettings, options={"SKIP_SAVE"})  # type: ignore[valid-type]

    @classmethod
    def poll(cls, context):
        if context.mode != "OBJECT":
            cls.poll_message_set("Add Noise Terrain works in Object Mode")
            return False
        return True

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        for name in ("x_subdivisions", "y_subdivisions", "size", "height", "offset", "falloff"):
            layout.prop(self, name)
        if self.falloff != "NONE":
            layout.prop(self, "falloff_width")
        draw_noise_settings(layout.box(), self.noise)

    def execute(self, context):
        vertices = (self.x_subdivisions + 1) * (self.y_subdivisions + 1)
        try:
            settings = operator_settings(self, context)
            spec, domain = to_spec(settings), to_domain(settings)
            if vertices > MAX_VERTICES:
                raise UserError(
                    f"x_subdivisions, y_subdivisions: {vertices} vertices exceed the limit of {MAX_VERTICES}"
                )
            positions, quads, uvs = grid(self.x_subdivisions, self.y_subdivisions, self.size)
            sample_at = positions.copy()
            sample_at[:, :2] += np.asarray(self.offset)
            with window_progress(context, vertices) as advance:
                noise01 = to_unit(spec, evaluate_chunked(spec, domain.noise_points(sample_at), advance))
            falloff = edge_falloff(positions, self.size, self.falloff, self.falloff_width)
            positions[:, 2] = noise01 * self.height * falloff
            check_finite_values("height: vertex heights", positions[:, 2].astype(np.float32))
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        collection = context.collection
        if collection is None or not collection.is_editable:
            collection = context.scene.collection
            self.report({"WARNING"}, "The active collection is linked library data; added to the scene collection")
        try:
            obj = _new_terrain(context, collection, positions, quads, uvs)
        except RuntimeError as error:
            self.report({"ERROR"}, f"Could not add the terrain to {collection.name!r}: {error}")
            return {"CANCELLED"}
        for selected in context.selected_objects:
            selected.select_set(False)
        obj.select_set(True)
        context.view_layer.objects.active = obj
        return {"FINISHED"}


def menu_entry(menu, _context) -> None:
    menu.layout.operator(NOISEWRIGHT_OT_add_terrain.bl_idname, text="Noise Terrain", icon="RNDCURVE")


CLASSES = (NOISEWRIGHT_OT_add_terrain,)
