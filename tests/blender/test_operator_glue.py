"""Issue 36: Displace and terrains with the noise-space transform in the kernel give the same bits as the numpy
passes they replaced (written out here as they were), for every kind of domain."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.blender

DOMAINS = [
    {"offset": (0.25, -1.5, 3.75), "scale": (2.5, 1.25, -3.0)},
    {"offset": (0.5, 0.0, 2.0), "scale": (4.0, 4.0, 4.0), "dimensions": 2, "plane": "XY"},
    {"offset": (0.5, 0.1, 2.0), "scale": (1.5, 3.0, 0.5), "dimensions": 2, "plane": "XZ"},
    {"offset": (0.1, 0.7, 2.0), "scale": (1.5, 3.0, 2.5), "dimensions": 2, "plane": "YZ"},
    {"offset": (0.3, 0.2, 0.1), "scale": (3.0, 2.0, 1.0), "dimensions": 1, "axis": "Y"},
    {"offset": (0.3, 0.2, 0.1), "scale": (3.0, 2.0, 1.5), "dimensions": 4, "w": 0.625},
]
ROTATED = {"offset": (0.25, -1.5, 3.75), "rotation": (0.3, -1.1, 2.0), "scale": (2.5, 1.25, 3.0)}


def numpy_noise_points(domain, positions: np.ndarray) -> np.ndarray:
    """``Domain.noise_points`` as it was before issue 36: numpy passes in float64 (scale, rotation, offset)."""
    if domain.dimensions == 4:
        moved = numpy_noise_points(type(domain)(domain.offset, domain.rotation, domain.scale, 3), positions)
        return np.column_stack([moved, np.full(moved.shape[0], domain.w)])
    points = np.asarray(positions, dtype=np.float64) * np.asarray(domain.scale)
    if any(domain.rotation):
        from mathutils import Euler  # with bpy

        points = points @ np.array(Euler(domain.rotation, "XYZ").to_matrix(), dtype=np.float64).T
    points += np.asarray(domain.offset)
    return np.ascontiguousarray(points[:, domain.axes()])


def bits(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)


def spec_for(addon, dimensions: int):
    return addon.noise_core.NoiseSpec(kind="perlin" if dimensions != 1 else "simplex", octaves=3, seed=3)


@pytest.mark.parametrize("direction", ["NORMAL", "CUSTOM"])
@pytest.mark.parametrize("values", DOMAINS)
def test_displace_same_bits_as_the_numpy_transform(bpy_empty, addon, values, direction):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_ico_sphere_add(subdivisions=4, radius=1.3)  # 2562 vertices: two kernel blocks
    obj = bpy.context.object
    before = addon.mesh_io.read_positions(obj.data).copy()
    normals = addon.mesh_io.read_normals(obj.data)
    domain = addon.api.Domain(**values)
    spec = spec_for(addon, domain.dimensions)
    axis = (0.5, 0.0, -2.0)
    addon.api.displace(bpy.context, [obj], spec, domain, direction=direction, custom_axis=axis, strength=0.75,
                       midlevel=0.25)  # fmt: skip
    noise01 = addon.noise_core.ranges.to_unit(spec, addon.noise_core.evaluate(spec, numpy_noise_points(domain, before)))
    amount = (noise01 - np.float32(0.25)) * np.float32(0.75)
    if direction == "NORMAL":
        expected = before + amount[:, None] * normals
    else:
        expected = before.copy()
        unit = np.asarray(axis) / np.linalg.norm(axis)
        for index in (0, 2):
            expected[:, index] += amount * np.float32(unit[index])
    np.testing.assert_array_equal(bits(addon.mesh_io.read_positions(obj.data)), bits(expected))


def test_rotation_changes_at_most_the_last_bits(bpy_empty, addon):
    """With rotation the float64 noise coordinates are ``(R * s) @ p`` summed in order where numpy's matmul summed
    ``R @ (s * p)`` its own way: the same up to the last float64 bits (docs/benchmarks.md)."""
    domain = addon.api.Domain(**ROTATED)
    positions = np.random.default_rng(36).uniform(-2.0, 2.0, size=(5000, 3)).astype(np.float32)
    moved, numpy_moved = domain.noise_points(positions), numpy_noise_points(domain, positions)
    np.testing.assert_allclose(moved, numpy_moved, rtol=0, atol=1e-14)
    spec = spec_for(addon, 3)
    transformed = addon.noise_core.evaluate(spec, positions, transform=domain.matrix())
    np.testing.assert_array_equal(bits(transformed), bits(addon.noise_core.evaluate(spec, moved)))
    np.testing.assert_allclose(transformed, addon.noise_core.evaluate(spec, numpy_moved), rtol=0, atol=1e-6)


@pytest.mark.parametrize("falloff", ["NONE", "RADIAL", "X"])
@pytest.mark.parametrize("values", DOMAINS)
def test_terrain_same_bits_as_the_numpy_passes(bpy_empty, addon, values, falloff):
    bpy = bpy_empty
    domain = addon.api.Domain(**values)
    spec = spec_for(addon, domain.dimensions)
    shape = {"x_subdivisions": 40, "y_subdivisions": 70, "size": 3.0, "height": 0.7, "offset": (0.5, -2.0),
             "falloff": falloff, "falloff_width": 0.4}  # fmt: skip
    recipe = addon.terrain_recipe.TerrainRecipe(spec, domain, shape)
    positions, _quads, _uvs, masks = addon.terrain_recipe.terrain_geometry(bpy.context, recipe)
    grid, _, _ = addon.api.grid(40, 70, 3.0)
    sample_at = grid.copy()
    sample_at[:, :2] += np.asarray(shape["offset"])
    noise01 = addon.noise_core.ranges.to_unit(
        spec, addon.noise_core.evaluate(spec, numpy_noise_points(domain, sample_at))
    )
    grid[:, 2] = noise01 * shape["height"] * addon.api.edge_falloff(grid, 3.0, falloff, 0.4)
    assert masks == (None,) * 6  # erosion, deposition, drainage, river, sediment, talus
    np.testing.assert_array_equal(bits(positions), bits(grid))


@pytest.mark.parametrize("values", DOMAINS[:4])
def test_bake_same_bits_as_the_numpy_passes(addon, values):
    """Baked planes: 2D without rotation on the grid kernels' lattice, 3D moved in the kernel."""
    domain = addon.api.Domain(**values)
    spec = spec_for(addon, domain.dimensions)
    image = addon.pixels.noise01_image(spec, domain, 70, 45)
    points = numpy_noise_points(domain, domain.plane_positions(70, 45))
    expected = addon.noise_core.ranges.to_unit(spec, addon.noise_core.evaluate(spec, points))
    np.testing.assert_array_equal(bits(image), bits(expected))
