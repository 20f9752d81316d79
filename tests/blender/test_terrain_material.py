"""Terrain material in Blender: ``terrain_material.terrain_material`` on grid meshes, the operator, errors."""

from __future__ import annotations

import os

import numpy as np
import pytest

from .test_erode import _attribute, _positions

pytestmark = pytest.mark.blender


def _terrain(bpy, addon):
    """A Noise Terrain with square cells (the flow map the material reads refuses others)."""
    spec = addon.api.NoiseSpec(kind="perlin", octaves=4, frequency=2.0)
    return addon.api.add_terrain(bpy.context, spec, x_subdivisions=24, y_subdivisions=24, size=2.0)


def _attribute_names(material) -> set[str]:
    return {node.attribute_name for node in material.node_tree.nodes if node.bl_idname == "ShaderNodeAttribute"}


def _upstream(socket) -> set[str]:
    """The attributes read by the nodes feeding ``socket``."""
    names: set[str] = set()
    for link in socket.links:
        node = link.from_node
        if node.bl_idname == "ShaderNodeAttribute":
            names.add(node.attribute_name)
        for upstream in node.inputs:
            names |= _upstream(upstream)
    return names


def test_material_computes_the_maps_it_reads(bpy_empty, addon):
    obj = _terrain(bpy_empty, addon)
    assert "slope" not in obj.data.attributes
    material = addon.terrain_material.terrain_material(obj, rock_slope=30.0)
    assert obj.active_material is material and len(obj.material_slots) == 1
    assert _attribute_names(material) == {"slope", "flow"}
    for name in _attribute_names(material):
        attribute = obj.data.attributes[name]
        assert (attribute.domain, attribute.data_type) == ("POINT", "FLOAT")
    expected = addon.terrain_maps.write_terrain_maps(obj, ("slope", "flow"))
    np.testing.assert_array_equal(_attribute(obj, "slope"), expected["slope"])
    ranges = [n for n in material.node_tree.nodes if n.bl_idname == "ShaderNodeMapRange"]
    slope_range = next(n for n in ranges if _upstream(n.inputs["Value"]) == {"slope"})
    low, high = slope_range.inputs["From Min"].default_value, slope_range.inputs["From Max"].default_value
    assert low < 30.0 < high and (low + high) / 2 == pytest.approx(30.0)
    bsdf = next(n for n in material.node_tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    assert bsdf.inputs["Base Color"].is_linked and bsdf.inputs["Roughness"].is_linked


def test_existing_maps_and_deposition_are_used(bpy_empty, addon):
    obj = _terrain(bpy_empty, addon)
    addon.terrain_maps.write_terrain_maps(obj, ("slope", "flow"))
    obj.data.attributes["slope"].data.foreach_set("value", np.full(len(obj.data.vertices), 7.0, np.float32))
    addon.mesh_io.write_point_floats(obj.data, "deposition", np.linspace(0, 1, len(obj.data.vertices)))
    first = addon.terrain_material.terrain_material(obj)
    np.testing.assert_array_equal(_attribute(obj, "slope"), 7.0)  # kept, not recomputed
    assert _attribute_names(first) == {"slope", "flow", "deposition"}
    second = addon.terrain_material.terrain_material(obj)
    assert obj.material_slots[0].material is second and len(obj.material_slots) == 1


def test_operator_and_errors_change_nothing(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=10, y_subdivisions=10, size=2.0)
    assert bpy.ops.noisewright.terrain_material(wet_flow=1.0) == {"FINISHED"}
    assert bpy.context.active_object.active_material is not None
    materials = len(bpy.data.materials)
    bpy.ops.mesh.primitive_uv_sphere_add()
    sphere = bpy.context.active_object
    positions = _positions(sphere)
    with pytest.raises(addon.errors.UserError, match="not a regular grid mesh"):
        addon.terrain_material.terrain_material(sphere)
    with pytest.raises(RuntimeError, match="not a regular grid mesh"):  # the operator's error report
        bpy.ops.noisewright.terrain_material()
    assert "slope" not in sphere.data.attributes and not sphere.material_slots
    np.testing.assert_array_equal(_positions(sphere), positions)
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    bpy.context.scene.collection.objects.link(camera)
    with pytest.raises(addon.errors.UserError, match="object: expected a mesh object, got 'Camera'"):
        addon.terrain_material.terrain_material(camera)
    bpy.context.view_layer.objects.active = camera
    assert not bpy.ops.noisewright.terrain_material.poll()
    with pytest.raises(addon.errors.UserError, match="rock_slope: must be between 0 and 90"):
        addon.terrain_material.terrain_material(sphere, rock_slope=120.0)
    assert len(bpy.data.materials) == materials


LAYERS = ("snow", "sediment", "talus", "moisture", "strata")


def test_the_material_layers_are_read_when_the_mesh_has_them(bpy_empty, addon):
    obj = _terrain(bpy_empty, addon)
    for index, name in enumerate(LAYERS):
        values = np.linspace(0.0, 1.0, len(obj.data.vertices), dtype=np.float32) * (index + 1)
        obj.data.attributes.new(name, "FLOAT", "POINT").data.foreach_set("value", values)
    material = addon.terrain_material.terrain_material(obj)
    assert _attribute_names(material) == {"slope", *LAYERS}  # moisture instead of flow and deposition
    bsdf = next(n for n in material.node_tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    assert _upstream(bsdf.inputs["Base Color"]) == {"slope", *LAYERS}
    assert _upstream(bsdf.inputs["Roughness"]) == {"slope", "snow", "sediment", "talus", "moisture"}
    assert "slope" in _upstream(bsdf.inputs["Normal"])
    with pytest.raises(addon.errors.UserError, match="snow_color: "):
        addon.terrain_material.terrain_material(obj, snow_color=(1.0, 2.0))
    flat = addon.terrain_material.terrain_material(obj, bump=0.0)  # no relief: the normal is the mesh's own
    nodes = {node.bl_idname for node in flat.node_tree.nodes}
    assert "ShaderNodeBump" not in nodes and "ShaderNodeBump" in {n.bl_idname for n in material.node_tree.nodes}
    assert (
        not next(n for n in flat.node_tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
        .inputs["Normal"]
        .is_linked
    )
    with pytest.raises(addon.errors.UserError, match="bump: "):
        addon.terrain_material.terrain_material(obj, bump=1.5)


def _snow_half(bpy, addon, engine: str, bump: float):
    """A flat grid, snow on its east half, seen from straight above: the mean colour of the west and east
    quarters of a tiny render with ``engine`` (grass blue and snow red, to tell them apart)."""
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=16, y_subdivisions=16, size=2.0)
    grid = bpy.context.active_object
    x = np.array([v.co.x for v in grid.data.vertices], dtype=np.float32)
    for name, values in (("snow", (x > 0).astype(np.float32)), ("moisture", np.zeros_like(x))):
        grid.data.attributes.new(name, "FLOAT", "POINT").data.foreach_set("value", values)
    addon.terrain_material.terrain_material(grid, sand_height=0.0, grass_color=(0.05, 0.05, 0.6),
                                            snow_color=(0.7, 0.05, 0.05), blend=0.1, bump=bump)  # fmt: skip
    scene = bpy.context.scene
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    camera.data.type, camera.data.ortho_scale = "ORTHO", 2.0
    camera.location = (0.0, 0.0, 3.0)
    scene.collection.objects.link(camera)
    scene.camera = camera
    scene.world = bpy.data.worlds.new("White")
    if scene.world.node_tree is None:
        scene.world.use_nodes = True
    scene.world.node_tree.nodes["Background"].inputs["Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    scene.render.engine = engine
    if engine == "CYCLES":
        scene.cycles.samples, scene.cycles.use_denoising = 4, False
    else:
        scene.eevee.taa_render_samples = 1
    scene.render.resolution_x = scene.render.resolution_y = 16
    scene.view_settings.view_transform = "Standard"
    bpy.ops.render.render()
    result = bpy.data.images["Render Result"]
    path = bpy.app.tempdir + f"snow_{engine}.png"
    result.save_render(path)
    image = bpy.data.images.load(path)
    pixels = np.array(image.pixels[:], dtype=np.float32).reshape(16, 16, 4)[..., :3]
    return pixels[:, :4].reshape(-1, 3).mean(axis=0), pixels[:, -4:].reshape(-1, 3).mean(axis=0)


@pytest.mark.parametrize(
    ("engine", "bump"),
    [("CYCLES", 0.6), ("BLENDER_EEVEE", 0.0), pytest.param("BLENDER_EEVEE", 0.6, id="BLENDER_EEVEE-bumped")],
)
def test_renders_grass_and_snow_in_their_colours(bpy_empty, addon, engine, bump):
    if engine == "BLENDER_EEVEE" and bump and not os.environ.get("NOISEWRIGHT_TEST_EEVEE"):
        pytest.skip("EEVEE with the Bump node: set NOISEWRIGHT_TEST_EEVEE=1 (its shader takes about 90 s of CPU to "
                    "compile on software OpenGL; docs/terrain-maps.md)")  # fmt: skip
    try:
        west, east = _snow_half(bpy_empty, addon, engine, bump)
    except RuntimeError as error:  # EEVEE needs a GPU context, which a headless machine may not have
        pytest.skip(f"{engine} cannot render here: {error}")
    assert west[2] > 2 * max(west[0], west[1]), west  # grass: the given blue
    assert east[0] > 2 * max(east[1], east[2]), east  # snow: the given red
