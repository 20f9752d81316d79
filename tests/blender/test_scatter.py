"""The scatter node groups and the asset library: instances only on dry faces no steeper than Max Slope, densities
by layers, the library's groups, presets, catalogs and previews."""

from __future__ import annotations

import math

import numpy as np
import pytest

from .test_erode import _positions

pytestmark = pytest.mark.blender


def _grid(bpy, addon, subdivisions: int = 20):
    """A Noise Terrain 2 units wide: rough enough to have faces above and below 30 degrees."""
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3, frequency=2.0)
    return addon.api.add_terrain(bpy.context, spec, x_subdivisions=subdivisions, y_subdivisions=subdivisions,
                                 size=2.0, height=0.6)  # fmt: skip


def _instances(bpy, obj) -> np.ndarray:
    """The world positions of the instances ``obj``'s modifiers make, (N, 3)."""
    depsgraph = bpy.context.evaluated_depsgraph_get()
    found = [
        tuple(instance.matrix_world.translation)
        for instance in depsgraph.object_instances
        if instance.is_instance and instance.parent is not None and instance.parent.original == obj
    ]
    return np.array(found, dtype=np.float64).reshape(-1, 3)


def _faces(obj):
    """Each polygon's corner vertex indices (quads), normal and the polygon under each (x, y) point."""
    mesh = obj.data
    corners = np.empty(len(mesh.polygons) * 4, dtype=np.int32)
    mesh.polygons.foreach_get("vertices", corners)
    corners = corners.reshape(-1, 4)
    positions = _positions(obj).astype(np.float64)
    quad = positions[corners]
    normals = np.cross(quad[:, 2] - quad[:, 0], quad[:, 3] - quad[:, 1])  # Newell's normal of a quad
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    centres = quad.mean(axis=1)
    return corners, normals, centres


def _under(points: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The polygon whose centre is nearest in (x, y): the cell a point on a regular grid lies in."""
    distance = ((points[:, None, :2] - centres[None, :, :2]) ** 2).sum(axis=2)
    return distance.argmin(axis=1)


def test_no_instances_in_water_or_on_steep_faces(bpy_empty, addon):
    bpy = bpy_empty
    obj = _grid(bpy, addon)
    positions = _positions(obj)
    water = np.where(positions[:, 0] < -0.3, 0.05, 0.0)  # a lake over the west third
    addon.mesh_io.write_point_floats(obj.data, "water_depth", water)
    addon.assets.add_scatter(obj, instances="TREES", density_scale=4.0, seed=3)
    points = _instances(bpy, obj)
    corners, normals, centres = _faces(obj)
    faces = _under(points, centres)
    limit = math.cos(math.radians(addon.scatter.KINDS["trees"].max_slope))
    steep = normals[:, 2] < limit
    wet = (water[corners] > 0).any(axis=1)
    assert steep.any() and (~steep & ~wet).sum() > 20  # the test can fail both ways
    assert len(points) > 50
    assert not steep[faces].any(), "an instance on a face steeper than Max Slope"
    assert not wet[faces].any(), "an instance in water"
    assert (points[:, 0] >= -0.3 - 2.0 / 20).all()
    # all allowed faces get some: the expected count per face is 4 * 400 * area, about 16
    assert len(np.unique(faces)) > 0.8 * (~steep & ~wet).sum()


def test_weight_and_avoid_layers_set_the_density(bpy_empty, addon):
    bpy = bpy_empty
    obj = _grid(bpy, addon, subdivisions=12)
    x = _positions(obj)[:, 0]
    addon.mesh_io.write_point_floats(obj.data, "talus", (x > 0).astype(np.float32))  # rocks east only
    addon.mesh_io.write_point_floats(obj.data, "snow", (x > 0.5).astype(np.float32))  # but none under snow
    modifier = addon.assets.add_scatter(obj, instances="ROCKS", density_scale=3.0)
    addon.assets.set_input(modifier, "Max Slope", math.radians(90.0))
    points = _instances(bpy, obj)
    spacing = 2.0 / 12
    assert len(points) > 20
    assert (points[:, 0] > -spacing).all() and (points[:, 0] < 0.5 + spacing).all()
    addon.assets.set_input(modifier, "Weight", "")  # no weight layer: everywhere but under snow
    everywhere = _instances(bpy, obj)
    assert (everywhere[:, 0] < -0.5).any() and (everywhere[:, 0] < 0.5 + spacing).all()
    addon.assets.set_input(modifier, "Density", 0.0)
    assert len(_instances(bpy, obj)) == 0


def test_scatter_errors(bpy_empty, addon):
    bpy = bpy_empty
    camera = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    with pytest.raises(addon.errors.UserError, match="object: expected a mesh object, got 'Camera'"):
        addon.assets.add_scatter(camera)
    obj = _grid(bpy, addon, subdivisions=4)
    with pytest.raises(addon.errors.UserError, match="instances: "):
        addon.assets.add_scatter(obj, instances="BUSHES")
    with pytest.raises(ValueError, match="kind: expected one of rocks, trees, grass"):
        addon.scatter.scatter_group("bushes")
    assert not obj.modifiers
    bpy.context.view_layer.objects.active = obj
    assert bpy.ops.noisewright.add_scatter(instances="GRASS") == {"FINISHED"}
    assert obj.modifiers[0].node_group.name == "Noisewright Scatter Grass"
