"""4D noise (the W coordinate) and seamless loops in Blender: looping image sequences from Bake Noise Texture,
Displace keyed over frames as shape keys, and the errors that leave the scene as it was."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import scene_state

pytestmark = pytest.mark.blender


def image_pixels(image) -> np.ndarray:
    width, height = image.size
    pixels = np.empty(width * height * 4, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    return pixels.reshape(height, width, 4)


def test_4d_noise_space_reads_w(bpy_empty, addon):
    bpy = bpy_empty
    spec = addon.noise_core.NoiseSpec(kind="simplex", frequency=3.0)
    domain = addon.api.Domain(dimensions=4, w=0.7)
    image = addon.api.bake(bpy.context, spec, domain, image="W", width=32, height=24)
    u, v = addon.noise_core.api.grid_coordinates((24, 32))
    points = np.column_stack([u, v, np.zeros_like(u), np.full_like(u, 0.7)])
    expected = addon.noise_core.ranges.to_unit(spec, addon.noise_core.evaluate(spec, points)).reshape(24, 32)
    np.testing.assert_allclose(image_pixels(image)[..., 0], expected, atol=1e-6)
    settings = bpy.context.scene.noisewright
    settings.dimensions = "4"
    settings.w = 0.7
    assert addon.mapping.to_domain(settings).w == pytest.approx(0.7)
    settings.kind = "voronoi"  # no 4D: the settings fall back to its highest dimension
    assert settings.dimensions == "3"


def test_bake_texture_writes_a_looping_sequence(bpy_empty, addon, tmp_path):
    import imageio.v3 as iio

    bpy = bpy_empty
    bpy.context.scene.noisewright.tiling = True
    target = tmp_path / "loop.png"
    assert bpy.ops.noisewright.bake_texture(
        image_name="Loop", width=40, height=32, loop_frames=5, save_format="PNG", filepath=str(target)
    ) == {"FINISHED"}
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"loop.{f:04d}.png" for f in range(1, 6)]
    sequence = bpy.data.images["Loop"]
    assert sequence.source == "SEQUENCE" and sequence.colorspace_settings.name == "Non-Color"
    spec = addon.noise_core.NoiseSpec(tiling=True)
    loops = addon.noise_core.loops
    for frame in (0, 3):
        expected = addon.noise_core.ranges.to_unit(spec, loops.loop_grid(spec, (32, 40), frame, 5))
        written = iio.imread(tmp_path / f"loop.{frame + 1:04d}.png").astype(np.float64) / 65535
        np.testing.assert_allclose(written[::-1], expected, atol=1.5 / 65535)  # files store the top row first
    assert not any(image.name.startswith(".") for image in bpy.data.images), "the scratch image is removed"


def test_bake_texture_loops_normal_maps(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    assert bpy.ops.noisewright.bake_texture(
        image_name="Normals", width=32, height=32, loop_frames=3, save_format="PNG_8", map_type="NORMAL",
        filepath=str(tmp_path / "n.png"),
    ) == {"FINISHED"}  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.0001.png", "n.0002.png", "n.0003.png"]


@pytest.mark.parametrize(
    ("settings", "arguments", "message"),
    [
        ({"kind": "voronoi"}, {}, "loop_frames: a loop of 2D points moves through 4D noise"),
        ({}, {"noise_dimensions": "SETTINGS"}, "loop_frames: a loop of 3D points moves through 5D noise"),
        ({}, {"save_format": "NONE"}, "save_format: a loop is saved as files name.0001.png"),
        ({}, {"pack": True}, "pack: Blender cannot pack an image sequence"),
    ],
)
def test_bad_loop_bakes_change_nothing(bpy_empty, addon, tmp_path, settings, arguments, message):
    bpy = bpy_empty
    for name, value in settings.items():
        setattr(bpy.context.scene.noisewright, name, value)
    before = scene_state(bpy)
    options = {"save_format": "PNG", "filepath": str(tmp_path / "x.png"), **arguments}
    with pytest.raises(RuntimeError, match=message):
        bpy.ops.noisewright.bake_texture(width=8, height=8, loop_frames=4, **options)
    assert scene_state(bpy) == before
    assert list(tmp_path.iterdir()) == []


def add_grid(bpy):
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=8, y_subdivisions=8, size=2.0)
    return bpy.context.object


def key_positions(key) -> np.ndarray:
    co = np.empty(len(key.data) * 3, dtype=np.float32)
    key.data.foreach_get("co", co)
    return co.reshape(-1, 3)


def evaluated_positions(bpy, obj) -> np.ndarray:
    mesh = obj.evaluated_get(bpy.context.evaluated_depsgraph_get()).data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def test_displace_loop_keys_one_shape_key_per_frame(bpy_empty, addon):
    bpy = bpy_empty
    grid = add_grid(bpy)
    base = np.array([v.co for v in grid.data.vertices])
    bpy.context.scene.noisewright.dimensions = "2"
    assert bpy.ops.noisewright.displace(
        direction="Z", strength=0.5, animate="LOOP", frames=6, frame_start=10, shape_key_name="Waves"
    ) == {"FINISHED"}
    keys = grid.data.shape_keys.key_blocks
    assert [key.name for key in keys] == ["Basis"] + [f"Waves.{f:04d}" for f in range(1, 7)]
    np.testing.assert_array_equal(np.array([v.co for v in grid.data.vertices]), base)  # base mesh unchanged
    spec = addon.noise_core.NoiseSpec()
    loops = addon.noise_core.loops
    for frame in (0, 4):
        noise = loops.evaluate_loop(spec, base[:, :2].astype(np.float64), frame, 6)
        amount = (addon.noise_core.ranges.to_unit(spec, noise) - 0.5) * 0.5
        np.testing.assert_allclose(key_positions(keys[1 + frame])[:, 2], base[:, 2] + amount, atol=1e-6)
    scene = bpy.context.scene
    for frame in (10, 13, 15, 16, 22):  # 16 and 22 are 10 and 16 again: the loop repeats
        scene.frame_set(frame)
        index = (frame - 10) % 6
        np.testing.assert_allclose(evaluated_positions(bpy, grid), key_positions(keys[1 + index]), atol=1e-6)
    scene.frame_set(12)
    scene.frame_set(12, subframe=0.5)  # halfway: the two neighbouring frames blend
    halfway = (key_positions(keys[3]) + key_positions(keys[4])) / 2
    np.testing.assert_allclose(evaluated_positions(bpy, grid), halfway, atol=1e-5)


def test_displace_w_moves_4d_noise(bpy_empty, addon):
    bpy = bpy_empty
    grid = add_grid(bpy)
    base = np.array([v.co for v in grid.data.vertices])
    settings = bpy.context.scene.noisewright
    settings.dimensions = "4"
    settings.w = 1.0
    assert bpy.ops.noisewright.displace(direction="Z", animate="W", frames=3, w_step=0.5) == {"FINISHED"}
    keys = grid.data.shape_keys.key_blocks
    spec = addon.noise_core.NoiseSpec()
    offset = np.asarray(settings.offset, dtype=np.float32).astype(np.float64)
    at = np.column_stack([base + offset, np.full(len(base), 2.0)])  # frame 2: w = 1 + 2 x 0.5
    amount = (addon.noise_core.ranges.to_unit(spec, addon.noise_core.evaluate(spec, at)) - 0.5) * 0.2
    np.testing.assert_allclose(key_positions(keys[3])[:, 2], base[:, 2] + amount, atol=1e-6)


@pytest.mark.parametrize(
    ("dimensions", "arguments", "message"),
    [
        ("3", {"animate": "LOOP"}, "animate: a loop of 3D points moves through 5D noise"),
        ("3", {"animate": "W"}, "animate: 'W' moves the W of 4D noise"),
        ("2", {"animate": "LOOP", "frames": 10_000}, "frames: 10000 frames of 81 vertices"),
    ],
)
def test_bad_animations_change_nothing(bpy_empty, addon, dimensions, arguments, message):
    bpy = bpy_empty
    add_grid(bpy)
    bpy.context.scene.noisewright.dimensions = dimensions
    addon.displace.MAX_ANIMATION_VERTICES, limit = 1 << 18, addon.displace.MAX_ANIMATION_VERTICES
    try:
        before = scene_state(bpy)
        with pytest.raises(RuntimeError, match=message):
            bpy.ops.noisewright.displace(**arguments)
        assert scene_state(bpy) == before
    finally:
        addon.displace.MAX_ANIMATION_VERTICES = limit


def test_loop_bake_with_a_folder_in_the_way_writes_no_frame(bpy_empty, addon, tmp_path):
    """A folder named like frame 2: refused before any frame is renamed into place; frame 3's old file is kept."""
    bpy = bpy_empty
    (tmp_path / "x.0002.png").mkdir()
    (tmp_path / "x.0003.png").write_bytes(b"old frame")
    before = scene_state(bpy)
    with pytest.raises(RuntimeError, match="filepath: could not save"):
        bpy.ops.noisewright.bake_texture(width=8, height=8, loop_frames=4, save_format="PNG",
                                         filepath=str(tmp_path / "x.png"))  # fmt: skip
    assert scene_state(bpy) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.0002.png", "x.0003.png"]
    assert (tmp_path / "x.0003.png").read_bytes() == b"old frame"
