"""Vertex data in and out of meshes as numpy arrays (``foreach_get``/``foreach_set``, no per-vertex Python)."""

from __future__ import annotations

from typing import Any, cast

import bpy
import numpy as np

from .errors import UserError

WEIGHT_ATTRIBUTE = ".noisewright_weight"
HELPER_NAME = ".noisewright_weights"


def read_vectors(collection, attribute: str, count: int) -> np.ndarray:
    """(count, 3) float32 from ``collection.foreach_get(attribute)`` (positions, normals, shape-key points)."""
    out = np.empty(count * 3, dtype=np.float32)
    collection.foreach_get(attribute, out)
    return out.reshape(count, 3)


def _position_data(mesh: bpy.types.Mesh) -> Any:
    """The ``position`` attribute's data: the same values as ``vertices[i].co``, read and written in bulk
    20-60x faster than through ``mesh.vertices`` (1M vertices: 1.7 ms against 35 ms read, 110 ms write)."""
    return cast(bpy.types.FloatVectorAttribute, mesh.attributes["position"]).data


def read_positions(mesh: bpy.types.Mesh) -> np.ndarray:
    """(N, 3) float32 vertex positions."""
    return read_vectors(_position_data(mesh), "vector", len(mesh.vertices))


def read_normals(mesh: bpy.types.Mesh) -> np.ndarray:
    """(N, 3) float32 unit vertex normals."""
    return read_vectors(mesh.vertex_normals, "vector", len(mesh.vertices))


def read_selection(mesh: bpy.types.Mesh) -> np.ndarray:
    """(N,) bool: which vertices are selected."""
    out = np.empty(len(mesh.vertices), dtype=bool)
    mesh.vertices.foreach_get("select", out)
    return out


def write_positions(mesh: bpy.types.Mesh, positions: np.ndarray) -> None:
    """Set the base mesh's vertex positions (and its reference shape key's, which would override them)."""
    flat = np.ascontiguousarray(positions, dtype=np.float32).ravel()
    _position_data(mesh).foreach_set("vector", flat)
    if mesh.shape_keys is not None:
        mesh.shape_keys.reference_key.data.foreach_set("co", flat)
    mesh.update()


def add_shape_key(obj: bpy.types.Object, name: str, positions: np.ndarray) -> bpy.types.ShapeKey:
    """A new shape key ``name`` (value 1) holding ``positions``; adds the Basis first when there is none."""
    if obj.data.shape_keys is None:
        obj.shape_key_add(name="Basis", from_mix=False)
    key = obj.shape_key_add(name=name, from_mix=False)
    key.data.foreach_set("co", np.ascontiguousarray(positions, dtype=np.float32).ravel())
    key.value = 1.0
    obj.data.update()
    return key


def _socket(sockets: Any, name: str | int) -> Any:
    """A node socket by name (the stubs type a node's socket collections as optional)."""
    return sockets[name]


def _weight_reader(group_name: str) -> bpy.types.NodeTree:
    """A geometry-node tree storing vertex group ``group_name`` as the float point attribute WEIGHT_ATTRIBUTE."""
    tree = bpy.data.node_groups.new(HELPER_NAME, "GeometryNodeTree")
    tree.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    tree.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    group_input = tree.nodes.new("NodeGroupInput")
    group_output = tree.nodes.new("NodeGroupOutput")
    read = cast(bpy.types.GeometryNodeInputNamedAttribute, tree.nodes.new("GeometryNodeInputNamedAttribute"))
    read.data_type = "FLOAT"
    _socket(read.inputs, "Name").default_value = group_name
    store = cast(bpy.types.GeometryNodeStoreNamedAttribute, tree.nodes.new("GeometryNodeStoreNamedAttribute"))
    store.data_type = "FLOAT"
    store.domain = "POINT"
    _socket(store.inputs, "Name").default_value = WEIGHT_ATTRIBUTE
    tree.links.new(_socket(group_input.outputs, 0), _socket(store.inputs, "Geometry"))
    tree.links.new(_socket(read.outputs, "Attribute"), _socket(store.inputs, "Value"))
    tree.links.new(_socket(store.outputs, "Geometry"), _socket(group_output.inputs, 0))
    return tree


def vertex_group_weights(context: bpy.types.Context, mesh: bpy.types.Mesh, group_name: str) -> np.ndarray:
    """(N,) float32 weights of vertex group ``group_name`` (0 where a vertex is not in the group).

    The Python API has no bulk access to vertex-group weights, so a temporary object sharing ``mesh``
    evaluates a geometry-node tree that copies the group into a float attribute, read with
    ``foreach_get``; the temporary object and tree are removed again. ``mesh`` must not be in Edit mode
    (the helper then sees no attribute); any such failure raises ``UserError``.
    """
    tree = _weight_reader(group_name)
    helper = bpy.data.objects.new(HELPER_NAME, mesh)
    try:
        context.scene.collection.objects.link(helper)
        modifier = helper.modifiers.new(HELPER_NAME, "NODES")
        modifier.node_group = tree  # type: ignore[attr-defined]
        evaluated = helper.evaluated_get(context.evaluated_depsgraph_get()).data
        attribute = evaluated.attributes.get(WEIGHT_ATTRIBUTE)
        if attribute is None or len(attribute.data) != len(mesh.vertices) or attribute.domain != "POINT":
            why = "the mesh is in Edit mode" if mesh.is_editmode else "the geometry-node helper returned no weights"
            raise UserError(f"vertex_group: could not read the weights of {group_name!r} on {mesh.name!r} ({why})")
        weights = np.empty(len(mesh.vertices), dtype=np.float32)
        attribute.data.foreach_get("value", weights)
    finally:
        bpy.data.objects.remove(helper)
        bpy.data.node_groups.remove(tree)
    return weights


def build_grid(mesh: bpy.types.Mesh, positions: np.ndarray, quads: np.ndarray, uvs: np.ndarray) -> None:
    """Fill an empty ``mesh`` with vertices ``positions`` (N, 3), quad faces ``quads`` (F, 4) and a UV map
    ``uvs`` (N, 2) per vertex."""
    corners = quads.ravel()
    mesh.vertices.add(positions.shape[0])
    mesh.loops.add(corners.shape[0])
    mesh.polygons.add(quads.shape[0])
    mesh.vertices.foreach_set("co", np.ascontiguousarray(positions, dtype=np.float32).ravel())
    mesh.loops.foreach_set("vertex_index", corners.astype(np.int32))
    mesh.polygons.foreach_set("loop_start", np.arange(0, corners.shape[0], 4, dtype=np.int32))
    mesh.update(calc_edges=True)
    layer = mesh.uv_layers.new(name="UVMap")
    layer.data.foreach_set("uv", np.ascontiguousarray(uvs[corners], dtype=np.float32).ravel())
