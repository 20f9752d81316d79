"""``noisewright.displace``: move the vertices of the selected meshes by noise.

Each vertex moves by ``(noise01 - midlevel) * strength * weight`` along the chosen direction, as
Blender's Displace modifier (``noise01``: see ``mapping``). ``weight`` is the vertex-group weight (or
1 - weight when inverted), times the selection in Edit Mode. With World coordinates the noise is read
at world positions and strength and direction are in world space; with Local, in the object's space.
Everything is computed and checked before any mesh changes: NaN or infinite positions (noise settings
that give them, or a strength that overflows) cancel the run. Edit Mode, left for Object Mode while the
meshes are read and written, is restored however the run ends.
"""

from __future__ import annotations

from typing import cast

import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty, PointerProperty, StringProperty

from . import mesh_io
from .errors import UserError
from .mapping import Domain, check_finite_values, evaluate_chunked, to_domain, to_spec
from .noise_core import NoiseSpec
from .noise_core.ranges import to_unit
from .progress import window_progress
from .properties import NoiseSettings, operator_settings
from .ui import draw_noise_settings

AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}


def _mesh(obj: bpy.types.Object) -> bpy.types.Mesh:
    return cast(bpy.types.Mesh, obj.data)


def _check_editable(obj: bpy.types.Object) -> None:
    mesh = _mesh(obj)
    if not obj.is_editable or not mesh.is_editable:
        raise UserError(f"{obj.name!r}: linked library data cannot be changed (make it local first)")
    if len(mesh.vertices) == 0:
        raise UserError(f"{obj.name!r}: the mesh has no vertices")


def _targets(context: bpy.types.Context, edit_mode: bool) -> list[bpy.types.Object]:
    """The mesh objects to displace: one per mesh (the first selected object using it)."""
    objects = context.objects_in_mode if edit_mode else context.selected_objects
    meshes: dict[int, bpy.types.Object] = {}
    for obj in objects:
        if obj.type == "MESH":
            meshes.setdefault(_mesh(obj).as_pointer(), obj)
    if not meshes:
        raise UserError("Select at least one mesh object to displace")
    return list(meshes.values())


class NOISEWRIGHT_OT_displace(bpy.types.Operator):
    """Displace the vertices of the selected meshes (selected vertices in Edit Mode) by noise"""

    bl_idname = "noisewright.displace"
    bl_label = "Displace with Noise"
    bl_options = {"REGISTER", "UNDO"}

    direction: EnumProperty(  # type: ignore[valid-type]
        name="Direction",
        description="Direction vertices move in",
        items=[
            ("NORMAL", "Normal", "Along the vertex normal"),
            ("X", "X", "Along the X axis"),
            ("Y", "Y", "Along the Y axis"),
            ("Z", "Z", "Along the Z axis"),
            ("CUSTOM", "Custom", "Along the custom axis"),
        ],
        default="NORMAL",
    )
    custom_axis: FloatVectorProperty(  # type: ignore[valid-type]
        name="Axis", description="Custom direction (normalised)", size=3, default=(0.0, 0.0, 1.0), subtype="XYZ"
    )
    strength: FloatProperty(  # type: ignore[valid-type]
        name="Strength",
        description="Displacement where noise01 - midlevel = 1",
        default=0.2,
        soft_min=-10.0,
        soft_max=10.0,
    )
    midlevel: FloatProperty(  # type: ignore[valid-type]
        name="Midlevel",
        description="Noise value (0..1) that leaves vertices in place",
        default=0.5,
        soft_min=0.0,
        soft_max=1.0,
    )
    space: EnumProperty(  # type: ignore[valid-type]
        name="Coordinates",
        description="Space the noise is read in; direction and strength use the same space",
        items=[("LOCAL", "Local", "Object space"), ("WORLD", "World", "World space")],
        default="LOCAL",
    )
    vertex_group: StringProperty(  # type: ignore[valid-type]
        name="Vertex Group", description="Scale the displacement by this group's weights (blank: all 1)", default=""
    )
    invert_vertex_group: BoolProperty(  # type: ignore[valid-type]
        name="Invert", description="Use 1 - weight", default=False
    )
    use_shape_key: BoolProperty(  # type: ignore[valid-type]
        name="New Shape Key",
        description="Write the result into a new shape key instead of the base mesh (non-destructive)",
        default=False,
    )
    shape_key_name: StringProperty(  # type: ignore[valid-type]
        name="Shape Key", description="Name of the new shape key", default="Noise"
    )
    noise: PointerProperty(type=NoiseSettings, options={"SKIP_SAVE"})  # type: ignore[valid-type]

    @classmethod
    def poll(cls, context):
        return context.mode in ("OBJECT", "EDIT_MESH")

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        for name in ("direction", "custom_axis", "strength", "midlevel", "space"):
            if name != "custom_axis" or self.direction == "CUSTOM":
                layout.prop(self, name)
        obj = context.active_object
        row = layout.row(align=True)
        if obj is not None:
            row.prop_search(self, "vertex_group", obj, "vertex_groups")
        else:
            row.prop(self, "vertex_group")
        row.prop(self, "invert_vertex_group", text="", icon="ARROW_LEFTRIGHT")
        layout.prop(self, "use_shape_key")
        if self.use_shape_key:
            layout.prop(self, "shape_key_name")
        draw_noise_settings(layout.box(), self.noise)

    def execute(self, context):
        edit_mode = context.mode == "EDIT_MESH"
        try:
            settings = operator_settings(self, context)
            spec, domain = to_spec(settings), to_domain(settings)
            targets = _targets(context, edit_mode)
            self._check_options(targets)
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        if edit_mode:
            bpy.ops.object.mode_set(mode="OBJECT")  # writes the edit data; vertex-group weights need Object mode
        try:  # whatever happens from here on, Edit mode is restored
            targets, weights = self._weighted_targets(context, targets, edit_mode)
            total = sum(len(_mesh(obj).vertices) for obj in targets)
            with window_progress(context, total) as advance:
                results = [
                    self._displaced(obj, weight, spec, domain, advance)
                    for obj, weight in zip(targets, weights, strict=True)
                ]
            for obj, positions in zip(targets, results, strict=True):
                check_finite_values(f"strength: vertex positions of {obj.name!r}", positions)
            for obj, positions in zip(targets, results, strict=True):
                if self.use_shape_key:
                    mesh_io.add_shape_key(obj, self.shape_key_name, positions)
                else:
                    mesh_io.write_positions(_mesh(obj), positions)
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        finally:
            if edit_mode:
                bpy.ops.object.mode_set(mode="EDIT")
        moved = sum(int(np.count_nonzero(weight)) for weight in weights) if edit_mode else total
        self.report({"INFO"}, f"Displaced {moved} vertices in {len(targets)} mesh(es)")
        return {"FINISHED"}

    def _check_options(self, targets: list[bpy.types.Object]) -> None:
        if self.direction == "CUSTOM" and not any(self.custom_axis):
            raise UserError("custom_axis: the custom direction must not be zero")
        if self.use_shape_key and not self.shape_key_name.strip():
            raise UserError("shape_key_name: give the new shape key a name")
        for obj in targets:
            if self.vertex_group and self.vertex_group not in obj.vertex_groups:
                raise UserError(f"vertex_group: {obj.name!r} has no vertex group {self.vertex_group!r}")

    def _weighted_targets(
        self, context, targets: list[bpy.types.Object], edit_mode: bool
    ) -> tuple[list[bpy.types.Object], list[np.ndarray]]:
        """The targets to displace and their per-vertex weights (called in Object mode).

        In Edit mode only selected vertices move: objects without a selected vertex are skipped (left
        unchanged), and ``UserError`` is raised when no object has one.
        """
        chosen, weights = [], []
        for obj in targets:
            mesh = _mesh(obj)
            selection = mesh_io.read_selection(mesh) if edit_mode else None
            if selection is not None and not selection.any():
                continue
            _check_editable(obj)
            weight = np.ones(len(mesh.vertices), dtype=np.float32)
            if self.vertex_group:
                weight = mesh_io.vertex_group_weights(context, mesh, self.vertex_group)
                if self.invert_vertex_group:
                    weight = 1.0 - weight
            chosen.append(obj)
            weights.append(weight if selection is None else weight * selection)
        if not chosen:
            raise UserError("Select at least one vertex to displace (no edited mesh has a selected vertex)")
        return chosen, weights

    def _directions(self, mesh: bpy.types.Mesh, linear: np.ndarray) -> np.ndarray:
        """(N, 3) or (3,) local-space vectors that move a vertex one unit of the coordinate space."""
        world = self.space == "WORLD"
        try:
            inverse = np.linalg.inv(linear) if world else np.eye(3)
        except np.linalg.LinAlgError:
            raise UserError("space: an object with zero scale cannot use World coordinates") from None
        if self.direction == "NORMAL":
            normals = mesh_io.read_normals(mesh)
            if not world:
                return normals
            normals = normals.astype(np.float64) @ inverse
            normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-30)
            return normals @ inverse.T
        axis = np.array(self.custom_axis if self.direction == "CUSTOM" else AXES[self.direction], dtype=np.float64)
        return inverse @ (axis / np.linalg.norm(axis))

    def _displaced(self, obj, weights: np.ndarray, spec: NoiseSpec, domain: Domain, advance) -> np.ndarray:
        """(N, 3) float32 new positions of ``obj``'s mesh, each vertex's displacement scaled by ``weights``."""
        mesh = _mesh(obj)
        positions = mesh_io.read_positions(mesh)
        matrix = np.array(obj.matrix_world, dtype=np.float64)
        linear = matrix[:3, :3]
        directions = self._directions(mesh, linear)
        sample_at = positions
        if self.space == "WORLD":
            sample_at = positions.astype(np.float64) @ linear.T + matrix[:3, 3]
        noise01 = to_unit(spec, evaluate_chunked(spec, domain.noise_points(sample_at), advance))
        # float32 like the mesh: amount = (noise01 - midlevel) * strength * weight, added in place. An
        # overflow gives infinities, which ``execute`` refuses before anything is written.
        with np.errstate(over="ignore", invalid="ignore"):
            amount = (noise01 - np.float32(self.midlevel)) * np.float32(self.strength)
            amount *= weights
            if directions.ndim == 1:
                for axis in np.flatnonzero(directions):
                    positions[:, axis] += amount * np.float32(directions[axis])
            else:
                positions += amount[:, None] * directions.astype(np.float32)
        return positions


CLASSES = (NOISEWRIGHT_OT_displace,)
