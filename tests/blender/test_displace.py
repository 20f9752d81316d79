"""``noisewright.displace`` on real meshes: parity with ``noise_core.evaluate`` and cancelled runs."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import default_offset, scene_state

pytestmark = pytest.mark.blender


def positions(mesh) -> np.ndarray:
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def normals(mesh) -> np.ndarray:
    out = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertex_normals.foreach_get("vector", out)
    return out.reshape(-1, 3)


def expected_amount(addon, sample_at: np.ndarray, strength: float, midlevel: float = 0.5) -> np.ndarray:
    """The documented displacement: (noise01 - midlevel) * strength with noise01 from value_range, read at
    ``sample_at`` moved by the default noise-space offset."""
    spec = addon.noise_core.NoiseSpec()
    low, high = addon.noise_core.value_range(spec)
    noise01 = (addon.noise_core.evaluate(spec, sample_at.astype(np.float64) + default_offset(addon)) - low) / (
        high - low
    )
    return (noise01 - midlevel) * strength


def select_vertices(mesh, mask: np.ndarray) -> None:
    """Select exactly the vertices in ``mask`` (no edges or faces, which Edit Mode would flush)."""
    mesh.polygons.foreach_set("select", np.zeros(len(mesh.polygons), dtype=bool))
    mesh.edges.foreach_set("select", np.zeros(len(mesh.edges), dtype=bool))
    mesh.vertices.foreach_set("select", mask)


def add_grid(bpy, name="Grid", subdivisions=6):
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=subdivisions, y_subdivisions=subdivisions, size=2.0)
    obj = bpy.context.object
    obj.name = name
    return obj


def test_displace_along_normals_matches_evaluate(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_monkey_add()
    monkey = bpy.context.object
    before, before_normals = positions(monkey.data), normals(monkey.data)
    assert bpy.ops.noisewright.displace(strength=0.3) == {"FINISHED"}
    amount = expected_amount(addon, before, 0.3)
    np.testing.assert_allclose(positions(monkey.data), before + amount[:, None] * before_normals, atol=2e-6)


def test_displace_several_objects_in_world_space_along_z(bpy_empty, addon):
    bpy = bpy_empty
    first = add_grid(bpy, "First")
    second = add_grid(bpy, "Second")
    second.location = (3.0, -1.0, 0.5)
    second.rotation_euler = (0.3, 0.0, 1.1)
    second.scale = (2.0, 2.0, 2.0)
    for obj in (first, second):
        obj.select_set(True)
    bpy.context.view_layer.update()
    starts = {obj.name: positions(obj.data) for obj in (first, second)}
    result = bpy.ops.noisewright.displace(direction="Z", space="WORLD", strength=1.5, midlevel=0.25)
    assert result == {"FINISHED"}
    for obj in (first, second):
        matrix = np.array(obj.matrix_world, dtype=np.float64)
        start = starts[obj.name].astype(np.float64)
        world = start @ matrix[:3, :3].T + matrix[:3, 3]
        amount = expected_amount(addon, world, 1.5, midlevel=0.25)
        moved_world = world.copy()
        moved_world[:, 2] += amount
        local = (moved_world - matrix[:3, 3]) @ np.linalg.inv(matrix[:3, :3]).T
        np.testing.assert_allclose(positions(obj.data), local, atol=1e-5)


def test_edit_mode_moves_only_selected_vertices(bpy_empty, addon):
    bpy = bpy_empty
    grid = add_grid(bpy)
    start = positions(grid.data)
    selected = start[:, 0] > 0.1
    select_vertices(grid.data, selected)
    bpy.ops.object.mode_set(mode="EDIT")
    assert bpy.ops.noisewright.displace(direction="CUSTOM", custom_axis=(0.0, 0.0, 2.0)) == {"FINISHED"}
    assert bpy.context.mode == "EDIT_MESH"
    bpy.ops.object.mode_set(mode="OBJECT")
    expected = start.copy()
    expected[:, 2] += np.where(selected, expected_amount(addon, start, 0.2), 0.0)
    np.testing.assert_allclose(positions(grid.data), expected, atol=2e-6)
    np.testing.assert_array_equal(positions(grid.data)[~selected], start[~selected])


def add_weights(grid, name="Mask", weight=0.25) -> np.ndarray:
    """A vertex group ``name`` holding every third vertex at ``weight``; returns the (N,) weights."""
    group = grid.vertex_groups.new(name=name)
    members = list(range(0, len(grid.data.vertices), 3))
    group.add(members, weight, "REPLACE")
    weights = np.zeros(len(grid.data.vertices))
    weights[members] = weight
    return weights


def test_edit_mode_vertex_group_weights_move_selected_vertices(bpy_empty, addon):
    bpy = bpy_empty
    grid = add_grid(bpy)
    start = positions(grid.data)
    weights = add_weights(grid)
    selected = start[:, 1] > 0.1
    select_vertices(grid.data, selected)
    bpy.ops.object.mode_set(mode="EDIT")
    assert bpy.ops.noisewright.displace(direction="Z", vertex_group="Mask") == {"FINISHED"}
    assert bpy.context.mode == "EDIT_MESH"
    bpy.ops.object.mode_set(mode="OBJECT")
    expected = start.copy()
    expected[:, 2] += expected_amount(addon, start, 0.2) * weights * selected
    np.testing.assert_allclose(positions(grid.data), expected, atol=2e-6)
    assert np.any(positions(grid.data)[:, 2] != start[:, 2])
    assert len(bpy.data.objects) == 1 and len(bpy.data.node_groups) == 0


def test_weight_helper_failure_is_a_user_error(bpy_empty, addon):
    bpy = bpy_empty
    grid = add_grid(bpy)
    add_weights(grid)
    bpy.ops.object.mode_set(mode="EDIT")
    with pytest.raises(addon.errors.UserError, match=r"vertex_group: could not read the weights of 'Mask'"):
        addon.mesh_io.vertex_group_weights(bpy.context, grid.data, "Mask")
    assert len(bpy.data.objects) == 1 and len(bpy.data.node_groups) == 0


def edit_two_grids(bpy, first_selection: np.ndarray, second_selection: np.ndarray):
    """Two grids in multi-object Edit mode with the given vertex selections."""
    first, second = add_grid(bpy, "First"), add_grid(bpy, "Second")
    select_vertices(first.data, first_selection)
    select_vertices(second.data, second_selection)
    first.select_set(True)
    second.select_set(True)
    bpy.ops.object.mode_set(mode="EDIT")
    assert len(bpy.context.objects_in_mode) == 2
    return first, second


def test_multi_object_edit_mode_skips_meshes_without_selected_vertices(bpy_empty, addon):
    bpy = bpy_empty
    first, second = edit_two_grids(bpy, np.ones(49, dtype=bool), np.zeros(49, dtype=bool))
    bpy.ops.object.mode_set(mode="OBJECT")
    start = positions(first.data)
    bpy.ops.object.mode_set(mode="EDIT")
    assert bpy.ops.noisewright.displace(direction="Z") == {"FINISHED"}
    bpy.ops.object.mode_set(mode="OBJECT")
    expected = start.copy()
    expected[:, 2] += expected_amount(addon, start, 0.2)
    np.testing.assert_allclose(positions(first.data), expected, atol=2e-6)
    np.testing.assert_array_equal(positions(second.data), start)  # same grid, left in place


@pytest.mark.parametrize("invert", [False, True])
def test_vertex_group_weights_scale_the_displacement(bpy_empty, addon, invert):
    bpy = bpy_empty
    grid = add_grid(bpy)
    start = positions(grid.data)
    group = grid.vertex_groups.new(name="Mask")
    members = [index for index in range(len(start)) if index % 3 == 0]
    group.add(members, 0.25, "REPLACE")
    weights = np.zeros(len(start))
    weights[members] = 0.25
    if invert:
        weights = 1.0 - weights
    result = bpy.ops.noisewright.displace(direction="Z", vertex_group="Mask", invert_vertex_group=invert)
    assert result == {"FINISHED"}
    expected = start.copy()
    expected[:, 2] += expected_amount(addon, start, 0.2) * weights
    np.testing.assert_allclose(positions(grid.data), expected, atol=2e-6)
    assert len(bpy.data.objects) == 1 and len(bpy.data.node_groups) == 0


def test_shape_key_mode_keeps_the_base_mesh(bpy_empty, addon):
    bpy = bpy_empty
    grid = add_grid(bpy)
    start = positions(grid.data)
    result = bpy.ops.noisewright.displace(direction="Z", use_shape_key=True, shape_key_name="Bumps")
    assert result == {"FINISHED"}
    np.testing.assert_array_equal(positions(grid.data), start)
    keys = grid.data.shape_keys.key_blocks
    assert [key.name for key in keys] == ["Basis", "Bumps"] and keys["Bumps"].value == 1.0
    bumps = np.empty(len(start) * 3, dtype=np.float32)
    keys["Bumps"].data.foreach_get("co", bumps)
    expected = start.copy()
    expected[:, 2] += expected_amount(addon, start, 0.2)
    np.testing.assert_allclose(bumps.reshape(-1, 3), expected, atol=2e-6)


def test_operator_reads_the_scene_settings_when_called_without_its_own(bpy_empty, addon):
    bpy = bpy_empty
    grid = add_grid(bpy)
    start = positions(grid.data)
    bpy.context.scene.noisewright.seed = 7
    bpy.context.scene.noisewright.offset = (0.5, 0.0, 0.0)
    assert bpy.ops.noisewright.displace(direction="Z", strength=1.0) == {"FINISHED"}
    spec = addon.noise_core.NoiseSpec(seed=7)
    noise01 = (addon.noise_core.evaluate(spec, start.astype(np.float64) + np.array([0.5, 0.0, 0.0])) + 1.0) / 2.0
    np.testing.assert_allclose(positions(grid.data)[:, 2], start[:, 2] + (noise01 - 0.5), atol=2e-6)


def _library_object(bpy, tmp_path):
    add_grid(bpy, "Shared")
    path = str(tmp_path / "library.blend")
    bpy.data.libraries.write(path, {bpy.data.objects["Shared"]})
    bpy.data.objects.remove(bpy.data.objects["Shared"])
    bpy.data.meshes.remove(bpy.data.meshes["Grid"])
    with bpy.data.libraries.load(path, link=True) as (_source, target):
        target.objects = ["Shared"]
    linked = target.objects[0]
    bpy.context.scene.collection.objects.link(linked)
    linked.select_set(True)


def _bad_context(name, bpy, tmp_path):
    if name == "nothing selected":
        add_grid(bpy).select_set(False)
    elif name == "camera selected":
        add_grid(bpy).select_set(False)
        bpy.ops.object.camera_add()
    elif name == "empty mesh":
        add_grid(bpy, "Good")
        empty = bpy.data.objects.new("Empty Mesh", bpy.data.meshes.new("Nothing"))
        bpy.context.scene.collection.objects.link(empty)
        empty.select_set(True)
    elif name == "linked library data":
        _library_object(bpy, tmp_path)
    elif name == "missing vertex group":
        add_grid(bpy)
        return {"vertex_group": "Nope"}
    elif name == "invalid noise settings":
        add_grid(bpy)
        bpy.context.scene.noisewright.tiling = True
        bpy.context.scene.noisewright.frequency = 2.5
    elif name == "coordinates off the lattice":
        add_grid(bpy)
        bpy.context.scene.noisewright.offset = (1e12, 0.0, 0.0)
    elif name == "nothing selected in edit mode":
        select_vertices(add_grid(bpy).data, np.zeros(49, dtype=bool))
        bpy.ops.object.mode_set(mode="EDIT")
    elif name == "nothing selected in any edited mesh":
        edit_two_grids(bpy, np.zeros(49, dtype=bool), np.zeros(49, dtype=bool))
    return {}


@pytest.mark.parametrize(
    "name",
    [
        "nothing selected",
        "camera selected",
        "empty mesh",
        "linked library data",
        "missing vertex group",
        "invalid noise settings",
        "coordinates off the lattice",
        "nothing selected in edit mode",
        "nothing selected in any edited mesh",
    ],
)
def test_bad_context_cancels_and_changes_nothing(bpy_empty, addon, tmp_path, name):
    bpy = bpy_empty
    arguments = _bad_context(name, bpy, tmp_path)
    before = scene_state(bpy)
    with pytest.raises(RuntimeError, match="Error: "):
        bpy.ops.noisewright.displace(**arguments)
    assert scene_state(bpy) == before
