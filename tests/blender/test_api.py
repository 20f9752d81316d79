"""The Python API under the operators (``api.add_terrain``) and Add Terrain placed like Add > Mesh objects."""

from __future__ import annotations

import math

import numpy as np
import pytest

from .conftest import scene_state

pytestmark = pytest.mark.blender


def heights(obj) -> np.ndarray:
    co = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)[:, 2]


def test_add_terrain_from_python_matches_the_operator(bpy_empty, addon):
    bpy = bpy_empty
    spec = addon.api.NoiseSpec(kind="simplex", octaves=3, seed=4)
    domain = addon.api.Domain(offset=tuple(bpy.context.scene.noisewright.offset))  # float32 (0, 0, 0.13)
    bpy.context.scene.cursor.location = (2.0, -1.0, 0.5)
    terrain = addon.api.add_terrain(bpy.context, spec, domain, x_subdivisions=6, y_subdivisions=5, height=1.5)
    assert terrain.name == "Noise Terrain" and tuple(terrain.location) == (2.0, -1.0, 0.5)
    assert bpy.context.view_layer.objects.active == terrain and terrain.select_get()
    settings = bpy.context.scene.noisewright
    settings.kind, settings.octaves, settings.seed = "simplex", 3, 4
    assert bpy.ops.noisewright.add_terrain(x_subdivisions=6, y_subdivisions=5, height=1.5) == {"FINISHED"}
    np.testing.assert_array_equal(heights(bpy.context.object), heights(terrain))


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"spec": {"kind": "perlin"}}, r"^spec: expected a NoiseSpec, got dict"),
        ({"domain": (0, 0, 0)}, r"^domain: expected a Domain, got tuple"),
        ({"x_subdivisions": 0}, r"^x_subdivisions: must be a whole number between 1 and 16384, got 0"),
        ({"y_subdivisions": 2.5}, r"^y_subdivisions: expected an integer, got float 2\.5"),
        ({"x_subdivisions": 16384, "y_subdivisions": 16384}, r"^x_subdivisions, y_subdivisions: .* exceed the limit"),
        ({"size": 0.0}, r"^size: must be > 0, got 0\.0"),
        ({"size": math.inf}, r"^size: must be a finite number, got inf"),
        ({"height": "tall"}, r"^height: expected a number, got str"),
        ({"offset": (1.0,)}, r"^offset: expected two numbers \(x, y\)"),
        ({"offset": (1.0, math.nan)}, r"^offset: must be a finite number, got 1, nan"),
        ({"falloff": "SQUARE"}, r"^falloff: 'SQUARE' is not allowed; choose one of 'NONE', 'X', 'Y', 'RADIAL'"),
        ({"falloff_width": 1.5}, r"^falloff_width: must be between 0 and 1, got 1\.5"),
    ],
)
def test_add_terrain_names_the_bad_argument_and_changes_nothing(bpy_empty, addon, arguments, message):
    bpy = bpy_empty
    before = scene_state(bpy)
    arguments = {"spec": addon.api.NoiseSpec(), "domain": addon.api.Domain(), **arguments}
    with pytest.raises(addon.api.UserError, match=message):
        addon.api.add_terrain(bpy.context, **arguments)
    assert scene_state(bpy) == before


def test_add_terrain_refuses_a_dimension_the_kind_lacks(bpy_empty, addon):
    bpy = bpy_empty
    spec = addon.api.NoiseSpec(kind="cellular")
    with pytest.raises(addon.api.UserError, match=r"^domain: kind 'cellular' is defined in 2D, 3D, not 1D"):
        addon.api.add_terrain(bpy.context, spec, addon.api.Domain(dimensions=1))
    assert len(bpy.data.meshes) == 0


def test_location_and_rotation_from_the_redo_panel(bpy_empty, addon):
    bpy = bpy_empty
    result = bpy.ops.noisewright.add_terrain(
        x_subdivisions=2, y_subdivisions=2, align="WORLD", location=(1.0, 2.0, 3.0), rotation=(0.0, 0.0, 0.5)
    )
    assert result == {"FINISHED"}
    terrain = bpy.context.object
    assert tuple(terrain.location) == pytest.approx((1.0, 2.0, 3.0))
    assert tuple(terrain.rotation_euler) == pytest.approx((0.0, 0.0, 0.5))


def test_align_to_the_3d_cursor_takes_its_rotation(bpy_empty, addon):
    bpy = bpy_empty
    cursor = bpy.context.scene.cursor
    cursor.location = (0.5, 0.0, 0.0)
    cursor.rotation_euler = (0.3, 0.0, 1.2)
    edit = bpy.context.preferences.edit
    edit.object_align = "CURSOR"  # "Align New Objects: 3D Cursor"; AddObjectHelper starts from the preference
    try:
        assert bpy.ops.noisewright.add_terrain(x_subdivisions=2, y_subdivisions=2) == {"FINISHED"}
    finally:
        edit.object_align = "WORLD"
    terrain = bpy.context.object
    assert tuple(terrain.location) == pytest.approx((0.5, 0.0, 0.0))
    assert tuple(terrain.rotation_euler) == pytest.approx((0.3, 0.0, 1.2), abs=1e-6)


def test_the_enter_edit_mode_preference_is_honoured(bpy_empty, addon):
    bpy = bpy_empty
    edit = bpy.context.preferences.edit
    edit.use_enter_edit_mode = True
    try:
        assert bpy.ops.noisewright.add_terrain(x_subdivisions=2, y_subdivisions=2) == {"FINISHED"}
        assert bpy.context.object.mode == "EDIT"
    finally:
        if bpy.context.object is not None and bpy.context.object.mode != "OBJECT":
            bpy.ops.object.mode_set(mode="OBJECT")
        edit.use_enter_edit_mode = False
    assert bpy.ops.noisewright.add_terrain(x_subdivisions=2, y_subdivisions=2) == {"FINISHED"}
    assert bpy.context.object.mode == "OBJECT"


def _two_planes(bpy):
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=6, y_subdivisions=6, size=2.0)
    first = bpy.context.object
    bpy.ops.mesh.primitive_uv_sphere_add(segments=8, ring_count=6, location=(3.0, 0.0, 0.0))
    return first, bpy.context.object


def test_displace_from_python_matches_the_operator(bpy_empty, addon):
    bpy = bpy_empty
    plane, sphere = _two_planes(bpy)
    before = heights(sphere).copy()
    spec, domain = addon.api.NoiseSpec(octaves=2), addon.api.Domain(offset=(0.0, 0.0, 0.25))
    moved = addon.api.displace(bpy.context, [sphere, plane, sphere], spec, domain, direction="Z", strength=0.5)
    assert moved == (len(sphere.data.vertices) + len(plane.data.vertices), 2)  # one displacement per mesh
    python_result = heights(sphere).copy()
    assert np.any(python_result != before)
    bpy.ops.object.select_all(action="DESELECT")
    sphere.select_set(True)
    bpy.ops.object.delete()
    bpy.ops.mesh.primitive_uv_sphere_add(segments=8, ring_count=6, location=(3.0, 0.0, 0.0))
    settings = bpy.context.scene.noisewright
    settings.octaves, settings.offset = 2, (0.0, 0.0, 0.25)
    assert bpy.ops.noisewright.displace(direction="Z", strength=0.5) == {"FINISHED"}
    np.testing.assert_allclose(heights(bpy.context.object), python_result, atol=1e-6)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"direction": "UP"}, r"^direction: 'UP' is not allowed; choose one of 'NORMAL', 'X', 'Y', 'Z', 'CUSTOM'"),
        ({"direction": "CUSTOM", "custom_axis": (0, 0, 0)}, r"^custom_axis: the custom direction must not be zero"),
        ({"custom_axis": (1.0, 2.0)}, r"^custom_axis: expected three numbers"),
        ({"strength": math.nan}, r"^strength: must be a finite number, got nan"),
        ({"midlevel": None}, r"^midlevel: expected a number, got NoneType"),
        ({"space": "VIEW"}, r"^space: 'VIEW' is not allowed; choose one of 'LOCAL', 'WORLD'"),
        ({"shape_key": "  "}, r"^shape_key: give the new shape key a name"),
        ({"vertex_group": "Mask"}, r"^vertex_group: 'Plane' has no vertex group 'Mask'"),
        ({"objects": []}, r"^objects: give at least one mesh object"),
        ({"objects": "Plane"}, r"^objects: expected a list of mesh objects, got str"),
        ({"spec": "perlin"}, r"^spec: expected a NoiseSpec, got str"),
    ],
)
def test_displace_names_the_bad_argument_and_changes_nothing(bpy_empty, addon, arguments, message):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_plane_add()
    plane = bpy.context.object
    before = scene_state(bpy)
    arguments = {"objects": [plane], "spec": addon.api.NoiseSpec(), **arguments}
    with pytest.raises(addon.api.UserError, match=message):
        addon.api.displace(bpy.context, **arguments)
    assert scene_state(bpy) == before


def test_displace_refuses_objects_that_are_not_meshes(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.object.camera_add()
    camera = bpy.context.object
    with pytest.raises(addon.api.UserError, match=r"^objects: 'Camera' is not a mesh object"):
        addon.api.displace(bpy.context, [camera], addon.api.NoiseSpec())


def test_bake_from_python_is_evaluate_grid(bpy_empty, addon):
    bpy = bpy_empty
    spec = addon.api.NoiseSpec(kind="value", octaves=3, tiling=True)
    image = addon.api.bake(bpy.context, spec, image="Height", width=24, height=16)
    assert (image.name, tuple(image.size), image.is_float) == ("Height", (24, 16), True)
    pixels = np.empty(len(image.pixels), dtype=np.float32)
    image.pixels.foreach_get(pixels)
    grey = pixels.reshape(16, 24, 4)[:, :, 0]
    expected = addon.noise_core.ranges.to_unit(spec, addon.noise_core.evaluate_grid(spec, (16, 24)))
    np.testing.assert_allclose(grey, expected, atol=1e-6)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"image": ""}, r"^image: give the new image a name"),
        ({"image": 3}, r"^image: expected an image or the name of a new one, got int"),
        ({"width": 0}, r"^width: must be a whole number >= 1, got 0"),
        ({"width": 9000, "height": 9000}, r"^width, height: 9000x9000 exceeds the limit"),
        ({"color_mode": "HSV"}, r"^color_mode: 'HSV' is not allowed; choose one of 'GRAYSCALE', 'RAMP'"),
        ({"color_mode": "RAMP", "color_low": (1.0, 0.0)}, r"^color_low: expected three numbers"),
        ({"color_mode": "RAMP", "color_high": (1.0, -1.0, 0.0)}, r"^color_high: channels must be >= 0"),
        ({"save_format": "JPEG"}, r"^save_format: 'JPEG' is not allowed"),
        ({"save_format": "PNG", "filepath": ""}, r"^filepath: give a file path"),
        ({"save_format": "PNG", "filepath": "/no/such/folder/x.png"}, r"^filepath: the folder '/no/such/folder'"),
        ({"domain": "XY"}, r"^domain: expected a Domain, got str"),
    ],
)
def test_bake_names_the_bad_argument_and_changes_nothing(bpy_empty, addon, arguments, message):
    bpy = bpy_empty
    before = scene_state(bpy)
    arguments = {"spec": addon.api.NoiseSpec(), **arguments}
    with pytest.raises(addon.api.UserError, match=message):
        addon.api.bake(bpy.context, **{"width": 8, "height": 8, **arguments})
    assert scene_state(bpy) == before
