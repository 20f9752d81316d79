"""Issue 11, Blender side: no NaN/inf in or out, cancelled runs leave everything as it was, saves whole or not at all.

Displace never writes non-finite coordinates and restores Edit mode however it ends; add_terrain works with a
linked active collection and leaves no orphan data; bakes into existing images of another size, restore the
image (size, pixels, colour space, ``is_dirty``) when they fail, bake 2D noise whatever the settings'
dimensions; the default Displace moves the default cube.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest

from .conftest import default_offset, scene_state

pytestmark = pytest.mark.blender

NAN = float("nan")


def positions(mesh) -> np.ndarray:
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def image_pixels(image) -> np.ndarray:
    pixels = np.empty(len(image.pixels), dtype=np.float32)
    image.pixels.foreach_get(pixels)
    return pixels


def unit(addon, spec, values):
    low, high = addon.noise_core.value_range(spec)
    return (values - low) / (high - low)


def add_grid(bpy, name="Grid"):
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=6, y_subdivisions=6, size=2.0)
    obj = bpy.context.object
    obj.name = name
    return obj


# --- Displace -----------------------------------------------------------------------------------------------


def test_default_displace_moves_every_vertex_of_the_default_cube(addon):
    """Blender's default cube has its corners on lattice points of the default noise (Perlin, frequency 4),
    where Perlin noise is 0; the default noise-space offset (Z 0.13) moves them off it."""
    import bpy

    bpy.ops.wm.read_homefile()  # the default scene: camera, light and the cube, selected
    cube = bpy.data.objects["Cube"]
    assert bpy.context.selected_objects == [cube]
    before = positions(cube.data)
    assert np.abs(before).max() == 1.0 and np.all(np.abs(before) == 1.0)  # the corners at +-1
    assert bpy.ops.noisewright.displace() == {"FINISHED"}
    moved = np.linalg.norm(positions(cube.data) - before, axis=1)
    assert np.all(moved > 1e-3), moved
    assert np.all(moved <= 0.1 + 1e-6)  # |noise01 - 0.5| * strength 0.2
    spec = addon.noise_core.NoiseSpec()
    at_corners = addon.noise_core.evaluate(spec, before.astype(np.float64))
    np.testing.assert_allclose(at_corners, 0.0, atol=1e-7)  # without the offset nothing would have moved
    assert tuple(bpy.context.scene.noisewright.offset) == tuple(np.float32(addon.properties.DEFAULT_OFFSET))


def _nan_noise(addon, monkeypatch) -> None:
    """``noise_core.evaluate`` as the add-on calls it, returning NaN for every other point."""
    real = addon.mapping.evaluate

    def evaluate(spec, points, **options):
        values = real(spec, points, **options)
        values[::2] = np.nan
        return values

    monkeypatch.setattr(addon.mapping, "evaluate", evaluate)


@pytest.mark.parametrize("edit_mode", [False, True], ids=["object mode", "edit mode"])
def test_displace_never_writes_nan_noise(bpy_empty, addon, monkeypatch, edit_mode):
    bpy = bpy_empty
    add_grid(bpy)
    if edit_mode:
        bpy.ops.object.mode_set(mode="EDIT")
    before = scene_state(bpy)
    _nan_noise(addon, monkeypatch)
    with pytest.raises(RuntimeError, match=r"Error: noise: 25 of 49 values would be NaN or infinite"):
        bpy.ops.noisewright.displace()
    assert scene_state(bpy) == before


@pytest.mark.parametrize("edit_mode", [False, True], ids=["object mode", "edit mode"])
def test_displace_refuses_an_overflowing_displacement(bpy_empty, addon, edit_mode):
    bpy = bpy_empty
    add_grid(bpy)
    if edit_mode:
        bpy.ops.object.mode_set(mode="EDIT")
    before = scene_state(bpy)
    with pytest.raises(RuntimeError, match=r"Error: strength: vertex positions of 'Grid': \d+ of 147 values"):
        bpy.ops.noisewright.displace(strength=1e30, midlevel=-1e30)  # (noise01 + 1e30) * 1e30 overflows float32
    assert scene_state(bpy) == before


@pytest.mark.parametrize("beta", [0.01, 0.001])
def test_weibull_extremes_write_finite_positions_or_change_nothing(bpy_empty, addon, beta):
    """The issue's cases (beta 0.01: NaN coordinates; beta 0.001 in Edit mode: a traceback left Object mode)."""
    bpy = bpy_empty
    grid = add_grid(bpy)
    settings = bpy.context.scene.noisewright
    settings.kind = "hill"
    settings.distribution = "weibull"
    settings.beta = beta
    bpy.ops.object.mode_set(mode="EDIT")
    before = scene_state(bpy)
    try:
        result = bpy.ops.noisewright.displace()
    except RuntimeError:
        assert scene_state(bpy) == before  # cancelled (or a noise_core error): nothing changed, Edit mode kept
    else:
        assert result == {"FINISHED"} and bpy.context.mode == "EDIT_MESH"
        bpy.ops.object.mode_set(mode="OBJECT")
        assert np.isfinite(positions(grid.data)).all()


def test_edit_mode_is_restored_on_any_failure(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    add_grid(bpy)
    bpy.ops.object.mode_set(mode="EDIT")
    before = scene_state(bpy)

    def broken(*_args):
        raise MemoryError("out of memory while writing")

    monkeypatch.setattr(addon.mesh_io, "write_positions", broken)
    with pytest.raises(RuntimeError, match="MemoryError: out of memory while writing"):
        bpy.ops.noisewright.displace()
    assert bpy.context.mode == "EDIT_MESH"
    assert scene_state(bpy) == before


# --- NaN and infinity in any float option -------------------------------------------------------------------


def _set_scene(bpy, **values):
    for name, value in values.items():
        setattr(bpy.context.scene.noisewright, name, value)


@pytest.mark.parametrize(
    ("operator", "arguments", "scene", "message"),  # NaN: Blender stores infinities as the largest float
    [
        ("add_terrain", {"height": NAN}, {}, "height: must be a finite number, got nan"),
        ("add_terrain", {"size": NAN}, {}, "size: must be a finite number, got nan"),
        ("add_terrain", {"offset": (0.0, NAN)}, {}, "offset: must be a finite number, got 0, nan"),
        ("add_terrain", {}, {"offset": (NAN, 0.0, 0.0)}, "offset: must be a finite number, got nan, 0, 0"),
        ("add_terrain", {}, {"frequency": NAN}, "frequency: must be a finite number, got nan"),
        ("displace", {"strength": NAN}, {}, "strength: must be a finite number, got nan"),
        ("displace", {"midlevel": NAN}, {}, "midlevel: must be a finite number, got nan"),
        ("displace", {"direction": "CUSTOM", "custom_axis": (0.0, NAN, 1.0)}, {}, "custom_axis: must be a finite"),
        ("displace", {}, {"scale": (1.0, -NAN, 1.0)}, "scale: must be a finite number, got 1, nan, 1"),
        ("displace", {}, {"rotation": (NAN, 0.0, 0.0)}, "rotation: must be a finite number"),
        ("bake_texture", {"color_mode": "RAMP", "color_high": (NAN, 0.0, 0.0)}, {}, "color_high: must be a finite"),
        ("bake_texture", {}, {"persistence": NAN}, "persistence: must be a finite number, got nan"),
    ],
)
def test_nan_and_infinity_are_refused_in_every_float_option(bpy_empty, addon, operator, arguments, scene, message):
    bpy = bpy_empty
    add_grid(bpy)
    bpy.data.images.new("Keep", 4, 4)
    _set_scene(bpy, **scene)
    before = scene_state(bpy)
    with pytest.raises(RuntimeError, match="Error: " + message.replace("(", r"\(")):
        getattr(bpy.ops.noisewright, operator)(**arguments)
    assert scene_state(bpy) == before


@pytest.mark.parametrize("operator", ["displace", "add_terrain", "bake_texture"])
def test_every_float_option_of_every_operator_is_checked(bpy_empty, addon, operator):
    """``check_finite`` walks the operator's float properties and its noise settings: no list to forget."""
    bpy = bpy_empty
    add_grid(bpy)
    before = scene_state(bpy)
    run = getattr(bpy.ops.noisewright, operator)
    properties = run.get_rna_type().properties
    floats = [prop for prop in properties if prop.type == "FLOAT"]
    assert floats
    for prop in floats:
        value = (NAN,) * prop.array_length if prop.array_length else NAN
        with pytest.raises(RuntimeError, match=f"Error: {prop.identifier}: must be a finite number"):
            run(**{prop.identifier: value})
    settings = bpy.context.scene.noisewright
    for prop in settings.bl_rna.properties:
        if prop.type != "FLOAT":
            continue
        saved = tuple(getattr(settings, prop.identifier)) if prop.array_length else getattr(settings, prop.identifier)
        setattr(settings, prop.identifier, (NAN,) * prop.array_length if prop.array_length else NAN)
        with pytest.raises(RuntimeError, match=f"Error: {prop.identifier}: must be a finite number"):
            run()
        setattr(settings, prop.identifier, saved)
    assert scene_state(bpy) == before


def test_the_panel_names_a_nan_setting(bpy_empty, addon):
    settings = bpy_empty.context.scene.noisewright
    assert addon.ui.settings_error(settings) == ""
    settings.scale = (1.0, NAN, 1.0)
    assert addon.ui.settings_error(settings) == "scale: must be a finite number, got 1, nan, 1"


# --- add_terrain with a linked active collection -------------------------------------------------------------


def _linked_active_collection(bpy, tmp_path: Path):
    library = bpy.data.collections.new("Library Collection")
    path = str(tmp_path / "collections.blend")
    bpy.data.libraries.write(path, {library})
    bpy.data.collections.remove(library)
    with bpy.data.libraries.load(path, link=True) as (_source, target):
        target.collections = ["Library Collection"]
    linked = target.collections[0]
    bpy.context.scene.collection.children.link(linked)
    view_layer = bpy.context.view_layer
    view_layer.active_layer_collection = view_layer.layer_collection.children[linked.name]
    assert bpy.context.collection == linked and not linked.is_editable
    return linked


def test_terrain_with_a_linked_active_collection_goes_into_the_scene_collection(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    linked = _linked_active_collection(bpy, tmp_path)
    assert bpy.ops.noisewright.add_terrain(x_subdivisions=4, y_subdivisions=4) == {"FINISHED"}
    terrain = bpy.context.object
    assert terrain.name == "Noise Terrain" and terrain.users_collection == (bpy.context.scene.collection,)
    assert len(linked.objects) == 0
    assert (len(bpy.data.objects), len(bpy.data.meshes)) == (1, 1)


def test_a_terrain_that_cannot_be_built_leaves_no_orphan_data(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty
    before = scene_state(bpy)

    def broken(*_args):
        raise RuntimeError("could not allocate the mesh")

    monkeypatch.setattr(addon.mesh_io, "build_grid", broken)
    with pytest.raises(RuntimeError, match="Error: Could not add the terrain to 'Scene Collection'"):
        bpy.ops.noisewright.add_terrain(x_subdivisions=4, y_subdivisions=4)
    assert scene_state(bpy) == before
    assert len(bpy.data.meshes) == 0 and len(bpy.data.objects) == 0


# --- Bake into existing images --------------------------------------------------------------------------------


def _saved_png(bpy, path: Path, width: int, height: int) -> Path:
    """A ``width`` x ``height`` 8-bit sRGB PNG of a grey ramp, written by Blender."""
    image = bpy.data.images.new("Source", width, height)
    ramp = np.linspace(0.0, 1.0, width * height * 4, dtype=np.float32)
    ramp[3::4] = 1.0
    image.pixels.foreach_set(ramp)
    image.filepath_raw = str(path)
    image.file_format = "PNG"
    image.save()
    bpy.data.images.remove(image)
    return path


def test_bake_into_a_loaded_image_of_another_size_resizes_it(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    image = bpy.data.images.load(str(_saved_png(bpy, tmp_path / "small.png", 40, 20)))
    result = bpy.ops.noisewright.bake_texture(target="EXISTING", image_name=image.name, width=64, height=64)
    assert result == {"FINISHED"}
    assert tuple(image.size) == (64, 64) and image.colorspace_settings.name == "Non-Color"
    spec = addon.noise_core.NoiseSpec()
    expected = unit(addon, spec, addon.noise_core.evaluate_grid(spec, (64, 64)))
    pixels = image_pixels(image).reshape(64, 64, 4)[..., 0]
    np.testing.assert_allclose(pixels, expected, atol=0.5 / 255 + 1e-6)  # an 8-bit image keeps its bit depth


@contextlib.contextmanager
def _writer_fails(addon, monkeypatch, where: str = "rename"):
    """The file cannot be written: the encoder fails (in the worker, before the image is touched) or the rename
    that puts the file in place does (after the image was filled), as on a full disk."""

    def full(*_arguments):
        raise OSError(28, "No space left on device")

    if where == "encode":
        monkeypatch.setattr(addon.image_io, "write_image", full)
    else:
        monkeypatch.setattr(addon.noise_core.io.files, "_rename_all", full)
    yield


def _image_state(image) -> tuple:
    return (tuple(image.size), image.colorspace_settings.name, image.is_dirty, image_pixels(image).tobytes())


@pytest.mark.parametrize("where", ["encode", "rename"])
@pytest.mark.parametrize("dirty", [False, True], ids=["clean", "unsaved changes"])
def test_a_failed_save_leaves_the_existing_image_and_file_as_they_were(
    bpy_empty, addon, monkeypatch, tmp_path, dirty, where
):
    bpy = bpy_empty
    source = _saved_png(bpy, tmp_path / "source.png", 40, 20)
    image = bpy.data.images.load(str(source))
    image.colorspace_settings.name = "sRGB"
    if dirty:
        pixels = image_pixels(image)
        pixels[: pixels.size // 2] = 0.25
        image.pixels.foreach_set(pixels)
    target = tmp_path / "keep.png"
    target.write_bytes(b"an existing good file")
    before, state = scene_state(bpy), _image_state(image)
    assert state[2] == dirty
    with _writer_fails(addon, monkeypatch, where), pytest.raises(RuntimeError, match="Error: filepath: could not save"):
        bpy.ops.noisewright.bake_texture(
            target="EXISTING", image_name=image.name, width=64, height=48, save_format="PNG", filepath=str(target)
        )
    assert _image_state(image) == state  # size, colour space, is_dirty and pixels
    assert scene_state(bpy) == before
    assert target.read_bytes() == b"an existing good file"
    assert sorted(os.listdir(tmp_path)) == ["keep.png", "source.png"]


def test_a_failed_save_into_a_generated_image_keeps_it_clean(bpy_empty, addon, monkeypatch, tmp_path):
    bpy = bpy_empty
    image = bpy.data.images.new("Generated", 16, 8, float_buffer=True)
    state = (*_image_state(image), image.generated_width, image.generated_height)
    with _writer_fails(addon, monkeypatch), pytest.raises(RuntimeError, match="Error: filepath: "):
        bpy.ops.noisewright.bake_texture(
            target="EXISTING",
            image_name="Generated",
            width=32,
            height=32,
            save_format="PNG",
            filepath=str(tmp_path / "g"),
        )
    assert (*_image_state(image), image.generated_width, image.generated_height) == state
    assert not image.is_dirty
    assert os.listdir(tmp_path) == []


def test_a_failed_save_of_a_new_image_removes_it(bpy_empty, addon, monkeypatch, tmp_path):
    bpy = bpy_empty
    before = scene_state(bpy)
    with _writer_fails(addon, monkeypatch), pytest.raises(RuntimeError, match="Error: filepath: "):
        bpy.ops.noisewright.bake_texture(width=8, height=8, save_format="PNG", filepath=str(tmp_path / "new.png"))
    assert scene_state(bpy) == before
    assert os.listdir(tmp_path) == []


def test_a_file_name_of_another_format_is_refused_not_renamed(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    before = scene_state(bpy)
    message = r"Error: filepath: 'noise.exr' ends in .exr, but the Save format writes .png"
    with pytest.raises(RuntimeError, match=message):
        bpy.ops.noisewright.bake_texture(width=8, height=8, save_format="PNG", filepath=str(tmp_path / "noise.exr"))
    assert scene_state(bpy) == before
    assert os.listdir(tmp_path) == []


def test_an_unwritable_folder_is_refused_before_anything_changes(bpy_empty, addon):
    bpy = bpy_empty
    if os.access("/sys", os.W_OK) and not Path("/sys/kernel").is_dir():
        pytest.skip("needs Linux's /sys, where no file can be created")
    bpy.data.images.new("Keep", 4, 4)
    before = scene_state(bpy)
    with pytest.raises(RuntimeError, match=r"Error: filepath: cannot write into the folder '/sys'"):
        bpy.ops.noisewright.bake_texture(width=8, height=8, save_format="PNG", filepath="/sys/noise.png")
    assert scene_state(bpy) == before


def test_a_save_replaces_an_existing_file_whole(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    target = tmp_path / "noise.png"
    target.write_bytes(b"old")
    target.chmod(0o640)
    assert bpy.ops.noisewright.bake_texture(width=24, height=16, save_format="PNG", filepath=str(target))
    assert iio.imread(target).shape == (16, 24) and target.stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["noise.png"]  # no temporary file left


# --- Bake: 2D noise whatever the settings' dimensions -------------------------------------------------------


@pytest.mark.parametrize("kind", ["cellular", "voronoi", "perlin"])
@pytest.mark.parametrize("dimensions", ["1", "3"])
def test_bake_uses_2d_noise_whatever_the_dimensions(bpy_empty, addon, kind, dimensions):
    bpy = bpy_empty
    settings = bpy.context.scene.noisewright
    settings.kind = kind
    settings.dimensions = dimensions  # cellular has no 1D noise: the 2D bake does not need it
    assert bpy.ops.noisewright.bake_texture(image_name="Baked", width=24, height=16) == {"FINISHED"}
    spec = addon.noise_core.NoiseSpec(kind=kind)
    expected = unit(addon, spec, addon.noise_core.evaluate_grid(spec, (16, 24)))
    pixels = image_pixels(bpy.data.images["Baked"]).reshape(16, 24, 4)
    np.testing.assert_allclose(pixels[..., 0], expected, atol=1e-6)
    if kind == "cellular" and dimensions == "1":
        with pytest.raises(RuntimeError, match="Error: dimensions: kind 'cellular' is defined in 2D, 3D, not 1D"):
            bpy.ops.noisewright.bake_texture(width=8, height=8, noise_dimensions="SETTINGS")


def test_default_offset_moves_only_z(addon):
    assert addon.properties.DEFAULT_OFFSET[:2] == (0.0, 0.0) and addon.properties.DEFAULT_OFFSET[2] != 0.0
    offset = default_offset(addon)[2]
    for frequency in range(1, 100):  # off the lattice at every whole-number frequency below 100
        assert abs(offset * frequency - round(offset * frequency)) > 1e-3
