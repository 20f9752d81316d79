"""Displace: move the vertices of meshes by noise (``displace``) and its operator ``noisewright.displace``.

Each vertex moves by ``(noise01 - midlevel) * strength * weight`` along the chosen direction, as
Blender's Displace modifier (``noise01``: see ``mapping``). ``weight`` is the vertex-group weight (or
1 - weight when inverted), times the selection in Edit Mode. With World coordinates the noise is read
at world positions and strength and direction are in world space; with Local, in the object's space.
Everything is computed and checked before any mesh changes: NaN or infinite positions (noise settings
that give them, or a strength that overflows) cancel the run. Edit Mode, left for Object Mode while the
meshes are read and written, is restored however the run ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import bpy
import numpy as np

from . import erosion_io, mesh_io
from .errors import UserError
from .mapping import Domain, evaluate_chunked, evaluate_mapped, non_finite_error, to_domain, to_spec
from .mesh_io import check_editable, mesh_of
from .noise_core import NoiseSpec, loops, value_range
from .noise_core.displacement import displace_points
from .noise_core.schema import Option
from .options import LOOP_RADIUS, NoiseOperator, check_noise, checked, properties_of, reports
from .progress import window_progress
from .properties import operator_settings
from .ui import draw_noise_settings

AXES = {"X": (1.0, 0.0, 0.0), "Y": (0.0, 1.0, 0.0), "Z": (0.0, 0.0, 1.0)}
MAX_ANIMATION_VERTICES = 1 << 26
"""Largest ``frames x vertices`` an animated displacement stores as shape keys (64 M: some 800 MB)."""

OPTIONS = (
    Option(
        "direction",
        str,
        "NORMAL",
        "Direction vertices move in",
        choices=("NORMAL", "X", "Y", "Z", "CUSTOM"),
        choice_text=(
            ("Normal", "Along the vertex normal"),
            ("X", "Along the X axis"),
            ("Y", "Along the Y axis"),
            ("Z", "Along the Z axis"),
            ("Custom", "Along the custom axis"),
        ),
    ),
    Option("custom_axis", float, (0.0, 0.0, 1.0), "Custom direction (normalised)", size=3, title="Axis", subtype="XYZ"),
    Option("strength", float, 0.2, "Displacement where noise01 - midlevel = 1", soft_minimum=-10.0, soft_maximum=10.0),
    Option(
        "midlevel", float, 0.5, "Noise value (0..1) that leaves vertices in place", soft_minimum=0.0, soft_maximum=1.0
    ),
    Option(
        "space",
        str,
        "LOCAL",
        "Space the noise is read in; direction and strength use the same space",
        choices=("LOCAL", "WORLD"),
        choice_text=(("Local", "Object space"), ("World", "World space")),
        title="Coordinates",
    ),
    Option("vertex_group", str, "", "Scale the displacement by this group's weights (blank: all 1)"),
    Option("invert_vertex_group", bool, False, "Use 1 - weight", title="Invert"),
    Option(
        "animate",
        str,
        "NONE",
        "Key the noise over frames, one shape key per frame (the base mesh is left as it is)",
        choices=("NONE", "LOOP", "W"),
        choice_text=(
            ("Still", "Displace once"),
            (
                "Seamless Loop",
                "Move around a circle in two extra noise dimensions: frame N+1 is frame 1 again, "
                "repeated for ever (2D noise loops through 4D noise)",
            ),
            ("Move W", "Move the W of 4D noise by W Step per frame (evolves without repeating)"),
        ),
    ),
    Option(
        "frames", int, 24, "How many frames (shape keys) to key", minimum=1, maximum=loops.MAX_FRAMES, soft_maximum=240
    ),
    Option("frame_start", int, 1, "The frame of the first shape key", title="Start Frame"),
    LOOP_RADIUS,
    Option("w_step", float, 0.05, "How far W moves per frame", soft_minimum=-1.0, soft_maximum=1.0),
)
"""The options of ``displace``, which the operator has too."""
OPERATOR_OPTIONS = (
    Option(
        "use_shape_key",
        bool,
        False,
        "Write the result into a new shape key instead of the base mesh (non-destructive)",
        title="New Shape Key",
    ),
    Option("shape_key_name", str, "Noise", "Name of the new shape key", title="Shape Key"),
)
"""The operator's own options: they make ``displace``'s ``shape_key``."""


@dataclass(frozen=True)
class _Displacement:
    """How vertices move: ``(noise01 - midlevel) * strength * weight`` along ``direction`` in ``space``."""

    direction: str
    custom_axis: tuple[float, float, float]
    strength: float
    midlevel: float
    space: str


@checked(*OPTIONS)
def displace(
    context: bpy.types.Context,
    objects: Sequence[bpy.types.Object],
    spec: NoiseSpec,
    domain: Domain | None = None,
    *,
    direction: str,
    custom_axis: Sequence[float],
    strength: float,
    midlevel: float,
    space: str,
    vertex_group: str,
    invert_vertex_group: bool,
    shape_key: str | None = None,
    animate: str,
    frames: int,
    frame_start: int | None = None,
    loop_radius: float,
    w_step: float,
) -> tuple[int, int]:
    """Move the vertices of ``objects``' meshes by ``(noise01 - midlevel) * strength * weight`` along
    ``direction`` (``NORMAL``, ``X``, ``Y``, ``Z`` or ``CUSTOM`` = ``custom_axis``), as Blender's Displace
    modifier; ``noise01`` is ``spec`` at the vertex (``space`` ``LOCAL`` or ``WORLD`` coordinates, through
    ``domain``) mapped to 0..1.

    ``weight`` is ``vertex_group``'s weight (1 - weight when inverted; 1 without a group), times the vertex
    selection when ``context`` is in Edit Mode (then only selected vertices move and Edit Mode is restored
    however the call ends). ``shape_key`` names a new shape key to write instead of the base mesh. Each mesh
    is displaced once, however many of ``objects`` use it. Everything is computed and checked before any
    mesh changes: ``UserError`` (naming the argument) leaves every mesh as it was. Returns ``(vertices
    moved, meshes changed)``. Defaults and limits: ``OPTIONS``.

    ``animate`` keys the noise over ``frames`` frames from ``frame_start`` (the scene's start by default) as one
    shape key per frame, ``<shape_key or "Noise">.0001``, ..., each keyed to 1 on its frame and 0 on the others
    (linear in between): ``LOOP`` moves around a circle of ``loop_radius`` in two extra dimensions of the noise
    (a seamless loop, repeated for ever; 2D noise loops through 4D noise, ``noise_core.loops``), ``W`` moves the
    W of 4D noise by ``w_step`` per frame (no repeat). The base mesh is left as it is.
    """
    domain = Domain() if domain is None else domain
    check_noise(spec, domain)
    if direction == "CUSTOM" and not any(custom_axis):
        raise UserError("custom_axis: the custom direction must not be zero")
    if shape_key is not None and (not isinstance(shape_key, str) or not shape_key.strip()):
        raise UserError(f"shape_key: give the new shape key a name (or None for the base mesh), got {shape_key!r}")
    how = _Displacement(direction, tuple(custom_axis), strength, midlevel, space)  # type: ignore[arg-type]
    start = context.scene.frame_start if frame_start is None else frame_start
    animation = _check_animation(domain, spec, _Animation(animate, frames, start, loop_radius, w_step))
    targets = _mesh_objects(objects)
    for obj in targets:
        if vertex_group and vertex_group not in obj.vertex_groups:
            raise UserError(f"vertex_group: {obj.name!r} has no vertex group {vertex_group!r}")
    edit_mode = context.mode == "EDIT_MESH"
    if edit_mode:
        bpy.ops.object.mode_set(mode="OBJECT")  # writes the edit data; vertex-group weights need Object mode
    try:  # whatever happens from here on, Edit mode is restored
        targets, weights = _weighted_targets(context, targets, edit_mode, vertex_group, invert_vertex_group)
        total = sum(len(mesh_of(obj).vertices) for obj in targets)
        if animation is not None:
            _animate(context, targets, weights, spec, domain, how, shape_key or "Noise", animation, total)
            return _moved(weights, edit_mode, total), len(targets)
        with window_progress(context, total) as advance:
            results = [
                _displaced(obj, weight, spec, domain, how, advance)
                for obj, weight in zip(targets, weights, strict=True)
            ]
        for obj, positions in zip(targets, results, strict=True):
            if shape_key is not None:
                mesh_io.add_shape_key(obj, shape_key, positions)
            else:
                mesh_io.write_positions(mesh_of(obj), positions)
                erosion_io.mark_unreplayable(obj, "Displace")  # a Noise Terrain's recipe cannot replay it
    finally:
        if edit_mode:
            bpy.ops.object.mode_set(mode="EDIT")
    return _moved(weights, edit_mode, total), len(targets)


def _mesh_objects(objects: object) -> list[bpy.types.Object]:
    """``objects`` as a list of mesh objects, one per mesh (the first object using it)."""
    if isinstance(objects, (str, bytes, bpy.types.Object)) or not isinstance(objects, Iterable):
        raise UserError(f"objects: expected a list of mesh objects, got {type(objects).__name__}")
    meshes: dict[int, bpy.types.Object] = {}
    for obj in objects:
        if not isinstance(obj, bpy.types.Object) or obj.type != "MESH":
            shown = obj.name if isinstance(obj, bpy.types.Object) else type(obj).__name__
            raise UserError(f"objects: {shown!r} is not a mesh object")
        meshes.setdefault(mesh_of(obj).as_pointer(), obj)
    if not meshes:
        raise UserError("objects: give at least one mesh object to displace")
    return list(meshes.values())


def _weighted_targets(
    context: bpy.types.Context,
    targets: list[bpy.types.Object],
    edit_mode: bool,
    vertex_group: str,
    invert_vertex_group: bool,
) -> tuple[list[bpy.types.Object], list[np.ndarray]]:
    """The targets to displace and their per-vertex weights (called in Object mode).

    In Edit mode only selected vertices move: objects without a selected vertex are skipped (left
    unchanged), and ``UserError`` is raised when no object has one.
    """
    chosen, weights = [], []
    for obj in targets:
        mesh = mesh_of(obj)
        selection = mesh_io.read_selection(mesh) if edit_mode else None
        if selection is not None and not selection.any():
            continue
        check_editable(obj)
        weight = np.ones(len(mesh.vertices), dtype=np.float32)
        if vertex_group:
            weight = mesh_io.vertex_group_weights(context, mesh, vertex_group)
            if invert_vertex_group:
                weight = 1.0 - weight
        chosen.append(obj)
        weights.append(weight if selection is None else weight * selection)
    if not chosen:
        raise UserError("Select at least one vertex to displace (no edited mesh has a selected vertex)")
    return chosen, weights


def _directions(how: _Displacement, mesh: bpy.types.Mesh, linear: np.ndarray) -> np.ndarray:
    """(N, 3) or (3,) local-space vectors that move a vertex one unit of the coordinate space."""
    world = how.space == "WORLD"
    try:
        inverse = np.linalg.inv(linear) if world else np.eye(3)
    except np.linalg.LinAlgError:
        raise UserError("space: an object with zero scale cannot use World coordinates") from None
    if how.direction == "NORMAL":
        normals = mesh_io.read_normals(mesh)
        if not world:
            return normals
        normals = normals.astype(np.float64) @ inverse
        normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-30)
        return normals @ inverse.T
    axis = np.array(how.custom_axis if how.direction == "CUSTOM" else AXES[how.direction], dtype=np.float64)
    return inverse @ (axis / np.linalg.norm(axis))


def _displaced(
    obj: bpy.types.Object,
    weights: np.ndarray,
    spec: NoiseSpec,
    domain: Domain,
    how: _Displacement,
    advance,
    loop: tuple[int, int, float] | None = None,
) -> np.ndarray:
    """(N, 3) float32 new positions of ``obj``'s mesh, each vertex's displacement scaled by ``weights``;
    ``loop = (frame, frames, radius)``: by that frame of the loop of the noise (``noise_core.loops``)."""
    mesh = mesh_of(obj)
    positions = mesh_io.read_positions(mesh)
    matrix = np.array(obj.matrix_world, dtype=np.float64)
    linear = matrix[:3, :3]
    directions = _directions(how, mesh, linear)
    sample_at = positions
    if how.space == "WORLD":
        sample_at = positions.astype(np.float64) @ linear.T + matrix[:3, 3]
    if loop is None:  # moved into noise space in the kernel, float32 positions read as they are
        noise = evaluate_mapped(spec, domain, sample_at, advance)
    else:
        noise = evaluate_chunked(spec, loops.loop_points(domain.noise_points(sample_at), *loop), advance)
    # float32 like the mesh, one pass: amount = (noise01 - midlevel) * strength * weight, added in place
    # (noise_core.displacement). An overflow gives infinities: refused here, before anything is written.
    bad = displace_points(positions, noise, value_range(spec), how.midlevel, how.strength,
                          weights, directions.reshape(-1, 3))  # fmt: skip
    if bad:
        raise non_finite_error(f"strength: vertex positions of {obj.name!r}", bad, positions.size)
    return positions


def _moved(weights: list[np.ndarray], edit_mode: bool, total: int) -> int:
    """How many vertices a displacement moves: the selected ones in Edit mode, else all."""
    return sum(int(np.count_nonzero(weight)) for weight in weights) if edit_mode else total


@dataclass(frozen=True)
class _Animation:
    mode: str
    frames: int
    frame_start: int
    radius: float
    w_step: float


def _check_animation(domain: Domain, spec: NoiseSpec, animation: _Animation) -> _Animation | None:
    """The animation ``displace`` keys (None for ``NONE``); ``UserError`` naming ``animate`` when the noise
    space cannot move that way."""
    if animation.mode == "NONE":
        return None
    if animation.mode == "LOOP":
        try:
            loops.check_loop_kind(spec, domain.dimensions)
        except ValueError as error:
            raise UserError(
                f"animate: {str(error).removeprefix('loop: ')}; use 2D noise (Dimensions 2D), or animate W of 4D noise"
            ) from None
    elif domain.dimensions != 4:
        raise UserError(f"animate: 'W' moves the W of 4D noise; set the noise space to 4D (not {domain.dimensions}D)")
    return animation


def _animate(
    context: bpy.types.Context,
    targets: list[bpy.types.Object],
    weights: list[np.ndarray],
    spec: NoiseSpec,
    domain: Domain,
    how: _Displacement,
    name: str,
    animation: _Animation,
    total: int,
) -> None:
    """Every frame's positions of every target, checked, then one keyed shape key per frame and target (all or
    none: keys added before a failure are removed)."""
    if animation.frames * total > MAX_ANIMATION_VERTICES:
        raise UserError(
            f"frames: {animation.frames} frames of {total} vertices exceed the limit of {MAX_ANIMATION_VERTICES} "
            f"stored shape-key vertices; use fewer frames or a lighter mesh"
        )
    results: list[list[np.ndarray]] = [[] for _ in targets]
    with window_progress(context, total * animation.frames) as advance:
        for frame in range(animation.frames):
            if animation.mode == "LOOP":
                at, loop = domain, (frame, animation.frames, animation.radius)
            else:
                at, loop = replace(domain, w=domain.w + frame * animation.w_step), None
            for index, (obj, weight) in enumerate(zip(targets, weights, strict=True)):
                positions = _displaced(obj, weight, spec, at, how, advance, loop)
                results[index].append(positions)
    written: list[tuple[bpy.types.Object, list[bpy.types.ShapeKey], bool]] = []
    try:
        for obj, frames in zip(targets, results, strict=True):
            written.append((obj, [], obj.data.shape_keys is not None))
            for frame, positions in enumerate(frames):
                written[-1][1].append(mesh_io.add_shape_key(obj, f"{name}.{frame + 1:04d}", positions))
            mesh_io.key_frames(obj, written[-1][1], animation.frame_start, cyclic=animation.mode == "LOOP")
    except BaseException:
        for obj, added, had_keys in written:
            mesh_io.remove_shape_keys(obj, added, had_keys)
        raise


def _targets(context: bpy.types.Context, edit_mode: bool) -> list[bpy.types.Object]:
    """The selected mesh objects (the objects in Edit Mode when editing); ``UserError`` when there are none."""
    objects = context.objects_in_mode if edit_mode else context.selected_objects
    meshes = [obj for obj in objects if obj.type == "MESH"]
    if not meshes:
        raise UserError("Select at least one mesh object to displace")
    return meshes


class NOISEWRIGHT_OT_displace(NoiseOperator, bpy.types.Operator):
    """Displace the vertices of the selected meshes (selected vertices in Edit Mode) by noise"""

    bl_idname = "noisewright.displace"
    bl_label = "Displace with Noise"
    __annotations__ = properties_of(*OPTIONS, *OPERATOR_OPTIONS)

    def invoke(self, context, event):
        self.frame_start = context.scene.frame_start
        return self.execute(context)

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
        layout.prop(self, "animate")
        if self.animate != "NONE":
            for name in ("frames", "frame_start", "loop_radius" if self.animate == "LOOP" else "w_step"):
                layout.prop(self, name)
            layout.prop(self, "shape_key_name", text="Shape Keys")
        else:
            layout.prop(self, "use_shape_key")
            if self.use_shape_key:
                layout.prop(self, "shape_key_name")
        draw_noise_settings(layout.box(), self.noise)

    @reports
    def execute(self, context):
        settings = operator_settings(self, context)
        moved, meshes = displace(
            context,
            _targets(context, context.mode == "EDIT_MESH"),
            to_spec(settings),
            to_domain(settings),
            shape_key=self.shape_key_name if self.use_shape_key or self.animate != "NONE" else None,
            **self.keywords("use_shape_key", "shape_key_name"),
        )
        if self.animate != "NONE":
            self.report({"INFO"}, f"Keyed {self.frames} frames of {moved} vertices in {meshes} mesh(es) as shape keys")
            return {"FINISHED"}
        self.report({"INFO"}, f"Displaced {moved} vertices in {meshes} mesh(es)")
        return {"FINISHED"}


CLASSES = (NOISEWRIGHT_OT_displace,)
