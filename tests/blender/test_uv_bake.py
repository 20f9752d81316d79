"""Bake Noise to UVs (``noisewright.bake_uv`` over ``api.bake_uv``): texels, seams, spaces, UDIM tiles, errors."""

from __future__ import annotations

import numpy as np
import pytest

from noise_core.io.images import read_image

from .conftest import scene_state

pytestmark = pytest.mark.blender

EIGHT_BITS = 1.0 / 255.0


def image_grey(image) -> np.ndarray:
    pixels = np.empty(len(image.pixels), dtype=np.float32)
    image.pixels.foreach_get(pixels)
    return pixels.reshape(image.size[1], image.size[0], 4)[..., 0]


def expected_tile(addon, bpy, obj, spec, size, tile=1001, space="OBJECT"):
    """What the bake must hold: the noise at each covered texel's surface point (the add-on's noise_core)."""
    uvs, positions = addon.api.surface_triangles(bpy.context, obj, "", space)
    points, owner = addon.noise_core.uv_bake.rasterize(uvs, positions, size, tile)
    covered = owner >= 0
    values = np.zeros(owner.shape, dtype=np.float32)
    values[covered] = addon.noise_core.ranges.to_unit(spec, addon.noise_core.evaluate(spec, points[covered]))
    return values, covered


def test_cube_texels_hold_the_noise_at_their_surface_points(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.active_object
    spec = addon.noise_core.NoiseSpec(frequency=2.0, octaves=2)
    image = addon.api.bake_uv(bpy.context, cube, spec, width=256, height=256, margin=0)
    assert image.source != "TILED" and tuple(image.size) == (256, 256)
    assert image.colorspace_settings.name == "Non-Color"
    expected, covered = expected_tile(addon, bpy, cube, spec, (256, 256))
    assert 0.1 < covered.mean() < 0.9  # Blender's cube unwrap: a cross of six faces
    np.testing.assert_allclose(image_grey(image)[covered], expected[covered], atol=1e-6)


def test_operator_uv_sphere_seam_matches(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_uv_sphere_add(segments=64, ring_count=32)
    settings = bpy.context.scene.noisewright
    settings.frequency = 1.0
    result = bpy.ops.noisewright.bake_uv(width=2048, height=1024, margin=4, image_name="Sphere")
    assert result == {"FINISHED"}
    grey = image_grey(bpy.data.images["Sphere"])
    rows = slice(128, 1024 - 128)  # away from the poles
    assert np.abs(grey[rows, 0] - grey[rows, -1]).max() <= EIGHT_BITS  # u = 0 and u = 1 meet at the seam
    assert np.abs(np.diff(grey[rows, 512])).max() > 0.0


def test_object_space_moves_with_the_object_and_world_space_does_not(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.active_object
    spec = addon.noise_core.NoiseSpec(frequency=2.0)
    before = {s: image_grey(addon.api.bake_uv(bpy.context, cube, spec, space=s, width=64, height=64)) for s in
              ("OBJECT", "WORLD")}  # fmt: skip
    cube.location = (0.37, 0.0, 0.0)
    bpy.context.view_layer.update()
    after = {s: image_grey(addon.api.bake_uv(bpy.context, cube, spec, space=s, width=64, height=64)) for s in
             ("OBJECT", "WORLD")}  # fmt: skip
    np.testing.assert_array_equal(after["OBJECT"], before["OBJECT"])
    assert np.abs(after["WORLD"] - before["WORLD"]).max() > 0.05


def udim_cube(bpy):
    """A cube whose first three faces' UVs move one tile right: UDIM tiles 1001 and 1002."""
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.active_object
    mesh = cube.data
    uv = mesh.uv_layers.active.uv
    for polygon in list(mesh.polygons)[:3]:
        for loop in polygon.loop_indices:
            uv[loop].vector = (uv[loop].vector[0] + 1.0, uv[loop].vector[1])
    return cube


def test_udim_bake_writes_tile_files_and_a_tiled_image(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    cube = udim_cube(bpy)
    spec = addon.noise_core.NoiseSpec(frequency=2.0)
    path = tmp_path / "noise.png"
    image = addon.api.bake_uv(
        bpy.context, cube, spec, width=128, height=96, margin=2, save_format="PNG", filepath=str(path)
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["noise.1001.png", "noise.1002.png"]
    assert image.source == "TILED" and sorted(t.number for t in image.tiles) == [1001, 1002]
    assert image.name == "Noise UV" and len(bpy.data.images) == 1  # the per-tile images are gone
    for tile in (1001, 1002):
        expected, covered = expected_tile(addon, bpy, cube, spec, (128, 96), tile)
        written = read_image(tmp_path / f"noise.{tile}.png")[::-1]  # files store rows top-down
        assert covered.any()
        np.testing.assert_allclose(written[covered], expected[covered], atol=0.5 / 65535 + 1e-6)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "save_format: the UVs reach UDIM tiles 1001, 1002"),
        ({"save_format": "PNG", "filepath": "/nonexistent-noisewright-folder/n.png"}, "filepath: "),
        ({"margin": -1}, "margin: must be a whole number"),
        ({"uv_map": "Missing"}, "uv_map: 'Cube' has no UV map 'Missing'"),
        ({"space": "CAMERA"}, "space: 'CAMERA' is not allowed"),
    ],
)
def test_bad_uv_bakes_create_nothing(bpy_empty, addon, arguments, message):
    bpy = bpy_empty
    cube = udim_cube(bpy)
    before = scene_state(bpy)
    with pytest.raises(addon.api.UserError, match=message):
        addon.api.bake_uv(bpy.context, cube, addon.noise_core.NoiseSpec(), width=32, height=32, **arguments)
    assert scene_state(bpy) == before and len(bpy.data.images) == 0


def test_operator_needs_a_mesh_with_uvs(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.object.empty_add()
    assert not bpy.ops.noisewright.bake_uv.poll()
    bpy.ops.mesh.primitive_plane_add()
    mesh = bpy.context.active_object.data
    mesh.uv_layers.remove(mesh.uv_layers[0])
    assert len(mesh.uv_layers) == 0
    bpy.context.view_layer.update()
    with pytest.raises(RuntimeError, match="uv_map: 'Plane' has no UV map; unwrap it first"):
        bpy.ops.noisewright.bake_uv(width=16, height=16)


def test_udim_bake_with_a_folder_in_the_way_writes_no_tile(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    cube = udim_cube(bpy)
    (tmp_path / "n.1001.png").mkdir()
    (tmp_path / "n.1002.png").write_bytes(b"old tile")
    before = scene_state(bpy)
    with pytest.raises(addon.api.UserError, match="filepath: could not save"):
        addon.api.bake_uv(bpy.context, cube, addon.noise_core.NoiseSpec(), width=16, height=16, save_format="PNG",
                          filepath=str(tmp_path / "n.png"))  # fmt: skip
    assert scene_state(bpy) == before and len(bpy.data.images) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.1001.png", "n.1002.png"]
    assert (tmp_path / "n.1002.png").read_bytes() == b"old tile"


def test_faces_outside_the_udim_tiles_are_reported(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_cube_add()
    cube = bpy.context.active_object
    uv = cube.data.uv_layers.active.uv
    for loop in cube.data.polygons[2].loop_indices:  # face 2 half past the left edge of tile 1001
        uv[loop].vector = (uv[loop].vector[0] - 0.5, uv[loop].vector[1])
    heard = []
    image = addon.api.bake_uv(bpy.context, cube, addon.noise_core.NoiseSpec(), width=16, height=16, warn=heard.append)
    assert image.source != "TILED"
    assert heard == ["uv_map: faces of 'Cube' 2 (1 of 6) reach outside the UDIM tiles 1001-1100 (u and v from 0 to "
                     "10); the parts outside are not baked"]  # fmt: skip
    assert bpy.ops.noisewright.bake_uv(width=16, height=16, image_name="Again") == {"FINISHED"}
