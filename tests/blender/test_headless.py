"""The headless entry points (scripts/demo.py, bake_texture.py, make_terrain.py) run as a user runs them.

Each runs in its own process as ``blender --background --python scripts/<name>.py -- ...`` runs it (the file
executed as ``__main__`` by its path, ``scripts/`` not on ``sys.path``, no ``PYTHONPATH``, another working
folder; ``runpy.run_path`` does what Blender does) with the throw-away Blender user folder of ``conftest.py``;
they stage the checkout's extension into a per-session local repository, so Numba
compiles once per session. Their files are read back with Blender (``bpy.data.temp_data``), OpenEXR and
imageio and compared with ``noise_core``.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import imageio.v3 as iio
import numpy as np
import OpenEXR
import pytest

from noise_core import NoiseSpec, evaluate, evaluate_grid, value_range

from .conftest import extension_repository

pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"
SPEC_FIELDS = tuple(field.name for field in dataclasses.fields(NoiseSpec))


@pytest.fixture(scope="session")
def extension_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return extension_repository(tmp_path_factory, "headless-extensions")


BLENDER_RUN = (
    "import runpy, sys; sys.argv = ['blender', '--background', '--python', *sys.argv[1:]]; "
    "runpy.run_path(sys.argv[3], run_name='__main__')"
)
"""What ``blender --background --python SCRIPT -- ARGS`` does with the script: runs the file by its path."""


def run_script(
    script: str, *arguments: str | Path, repo: Path, preexec_fn: Callable[[], None] | None = None
) -> subprocess.CompletedProcess:
    """``blender --background --python scripts/<script> -- arguments --extension-repo repo`` as the bpy module runs
    it, in a new process from the repository's parent folder without ``PYTHONPATH``, output captured."""
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            BLENDER_RUN,
            str(SCRIPTS / script),
            "--",
            *map(str, arguments),
            "--extension-repo",
            str(repo),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        preexec_fn=preexec_fn,
        cwd=ROOT.parent,
        env=environment,
    )


def ok(result: subprocess.CompletedProcess) -> str:
    """The script's standard output; fails the test with the end of its output unless it exited 0."""
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result.stdout


def _noise01(settings: dict, points: np.ndarray | None = None, shape: tuple[int, int] | None = None) -> np.ndarray:
    """``noise_core`` values mapped to 0..1 as the add-on maps them (by the spec's documented range)."""
    renamed = {"fractal_offset": "offset", "fractal_gain": "gain"}  # the add-on's names of the mode's options
    spec = NoiseSpec(**{renamed.get(n, n): v for n, v in settings.items() if renamed.get(n, n) in SPEC_FIELDS})
    low, high = value_range(spec)
    values = evaluate_grid(spec, shape) if shape else evaluate(spec, points)
    return (values.astype(np.float64) - low) / (high - low)


def _vertices(mesh) -> np.ndarray:
    positions = np.empty(len(mesh.vertices) * 3)
    mesh.vertices.foreach_get("co", positions)
    return positions.reshape(-1, 3)


def _read_blend(path: Path, collection: str, read):
    """``read(datablocks)`` on the ``collection`` (objects, meshes) of the .blend at ``path``, loaded aside.

    Only plain values may leave: the datablocks are freed with the temporary data.
    """
    import bpy

    with bpy.data.temp_data() as temp:
        with temp.libraries.load(str(path)) as (source, target):
            setattr(target, collection, getattr(source, collection))
        del source, target
        return read(getattr(temp, collection))


def _terrain_scene(objects) -> tuple[np.ndarray, dict[str, float], set[str], set[str]]:
    terrain = max((obj for obj in objects if obj.type == "MESH"), key=lambda obj: len(obj.data.vertices))  # not haze
    masks = {}
    for name in ("erosion", "deposition"):
        values = np.empty(len(terrain.data.vertices), dtype=np.float32)
        terrain.data.attributes[name].data.foreach_get("value", values)
        masks[name] = float(values.max())
    nodes = {node.attribute_name for node in terrain.active_material.node_tree.nodes if node.type == "ATTRIBUTE"}
    assert nodes <= set(terrain.data.attributes.keys())  # every Attribute node reads an attribute of the mesh
    return _vertices(terrain.data), masks, nodes, {obj.type for obj in objects}


def _mesh_and_shape_key(meshes) -> tuple[np.ndarray, list[str], np.ndarray]:
    mesh = meshes[0]
    detail = np.empty(len(mesh.vertices) * 3)
    mesh.shape_keys.key_blocks["Detail"].data.foreach_get("co", detail)
    return _vertices(mesh), [key.name for key in mesh.shape_keys.key_blocks], detail.reshape(-1, 3)


@pytest.mark.once_per_run
def test_demo_writes_an_eroded_terrain_blend_textures_and_a_preview(tmp_path: Path, extension_repo: Path) -> None:
    import bpy
    import demo

    out = tmp_path / "demo"
    preview_size = (160, 90)  # the README's 1600 x 900, smaller
    stdout = ok(run_script("demo.py", "--out", out, "--size", "small", "--width", "160", "--height", "90",
                           repo=extension_repo))  # fmt: skip
    subdivisions, pixels = demo.SIZES["small"]
    paths = {kind: out / name for kind, name in demo.FILES.items()}
    for path in paths.values():
        assert str(path) in stdout

    with OpenEXR.File(str(paths["height"])) as exr:
        (channels,) = exr.channels().values()
        grey = channels.pixels if channels.pixels.ndim == 2 else channels.pixels[..., 0]
        height = np.flipud(grey)  # the heightmap's first row is the terrain's +Y edge, Blender's grid row 0 its -Y
    low, high = json.loads(Path(f"{paths['height']}.json").read_text())["height_range"]
    terrain01 = _noise01(demo.TERRAIN_NOISE, shape=(pixels, pixels))

    for kind in ("color", "preview"):
        image = bpy.data.images.load(str(paths[kind]))
        try:
            size = tuple(image.size)
            rgba = np.empty(len(image.pixels), dtype=np.float32)
            image.pixels.foreach_get(rgba)
        finally:
            bpy.data.images.remove(image)
        if kind == "color":
            assert size == (pixels, pixels)
            red = rgba.reshape(pixels, pixels, 4)[..., 0]
            assert np.corrcoef(red.ravel(), terrain01.ravel())[0, 1] > 0.99  # the ramp follows the same noise
        else:
            assert size == preview_size and rgba.reshape(-1, 4)[:, :3].std() > 0.02  # a picture, not a flat fill

    positions, masks, attribute_nodes, object_types = _read_blend(paths["blend"], "objects", _terrain_scene)
    assert object_types == {"MESH", "CAMERA", "LIGHT"}
    layers = {"snow", "moisture", "strata", "sediment", "talus"}  # Terrain Material v2 reads the material layers
    assert layers <= attribute_nodes and min(masks.values()) > 0
    side = subdivisions + 1
    assert positions.shape == (side * side, 3)
    grid = np.linspace(-0.5, 0.5, side)
    grid_points = np.stack((np.tile(grid, side) + 0.5, np.repeat(grid, side) + 0.5), axis=1)
    np.testing.assert_allclose(positions[:, :2], grid_points - 0.5, atol=1e-6)
    base_height = demo.TERRAIN_HEIGHT * _noise01(demo.TERRAIN_NOISE, points=grid_points)
    assert np.corrcoef(positions[:, 2], base_height)[0, 1] > 0.7  # the noise terrain, eroded
    assert np.abs(positions[:, 2] - base_height).max() > 1e-3
    # height.exr is the eroded terrain: its own grid, its heights over the sidecar's range
    np.testing.assert_allclose(low + height.ravel().astype(np.float64) * (high - low), positions[:, 2], atol=1e-6)


def test_bake_texture_writes_the_noise_core_image(tmp_path: Path, extension_repo: Path) -> None:
    out = tmp_path / "noise.png"
    options = {"kind": "perlin", "seed": 11, "frequency": 5.0, "octaves": 3}
    arguments = [f"--{name}={value}" for name, value in options.items()]
    ok(run_script("bake_texture.py", "--out", out, "--width", "40", "--height", "24", *arguments, repo=extension_repo))
    image = iio.imread(out)
    assert image.shape == (24, 40) and image.dtype == np.uint16
    expected = _noise01(options, shape=(24, 40))
    np.testing.assert_allclose(np.flipud(image) / 65535.0, expected, atol=1.0 / 65535)


def test_make_terrain_generates_then_displaces_into_a_shape_key(tmp_path: Path, extension_repo: Path) -> None:
    plain, displaced = tmp_path / "terrain.blend", tmp_path / "displaced.blend"
    noise = [
        "--kind",
        "perlin",
        "--dimensions",
        "2",
        "--seed",
        "4",
        "--frequency",
        "3.3",
    ]  # 3.3: the 0.25 grid misses the lattice, where Perlin is 0
    ok(
        run_script(
            "make_terrain.py", "--out", plain, "--subdivisions", "8", "--falloff", "radial", *noise, repo=extension_repo
        )
    )
    ok(
        run_script(
            "make_terrain.py",
            *("--open", plain, "--objects", "Noise Terrain", "--shape-key", "Detail", "--strength", "0.3"),
            *("--out", displaced, *noise),
            repo=extension_repo,
        )
    )
    (before,) = _read_blend(plain, "meshes", lambda meshes: (_vertices(meshes[0]),))
    after, keys, detail = _read_blend(displaced, "meshes", _mesh_and_shape_key)
    assert before.shape == (81, 3) and np.ptp(before[:, 2]) > 0.01
    np.testing.assert_array_equal(after, before)  # the base mesh is untouched
    assert keys == ["Basis", "Detail"]
    assert np.abs(detail - before).max() > 0.01


def test_entry_points_name_the_bad_option(tmp_path: Path, extension_repo: Path) -> None:
    bad_format = run_script("bake_texture.py", "--out", tmp_path / "noise.jpg", repo=extension_repo)
    assert bad_format.returncode == 2
    assert "--out: unsupported image format '.jpg'; use one of .png, .exr" in bad_format.stderr
    missing = run_script(
        "make_terrain.py", "--open", tmp_path / "nope.blend", "--out", tmp_path / "x.blend", repo=extension_repo
    )
    assert missing.returncode == 2
    assert "--open: no such file" in missing.stderr
    assert not (tmp_path / "x.blend").exists()
    clamped = run_script("bake_texture.py", "--out", tmp_path / "noise.png", "--frequency", "0", repo=extension_repo)
    assert clamped.returncode == 2
    assert "--frequency: must be > 0, got 0.0" in clamped.stderr
    assert not (tmp_path / "noise.png").exists()


@pytest.fixture(scope="module")
def helpers() -> ModuleType:
    return importlib.import_module("_blender_addon")


def _apply_noise_options(helpers: ModuleType, *arguments: str) -> None:
    """The entry points' noise option handling, in this process (the add-on is enabled by conftest)."""
    parser, args = helpers.parse_arguments("noise options", lambda _parser: None, ["script.py", *arguments])
    helpers.apply_noise_arguments(parser, args, {"dimensions": "2", "plane": "XY"})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--frequency", "0"], "--frequency: must be > 0, got 0.0"),
        (["--octaves", "99"], "--octaves: must be between 1 and 16, got 99"),
        (["--kind", "voronoi", "--jitter", "5"], "--jitter: must be between 0 and 1, got 5.0"),
        (["--jitter", "5"], "--jitter: not an option of kind 'perlin'"),
        (["--kind", "perlin", "--distance", "worley"], "--distance: not an option of kind 'perlin'"),
        (["--kind", "perlin", "--jitter", "1"], "--jitter: not an option of kind 'perlin' (it applies to kind"),
        (["--kind", "hill", "--sizes", "1, 0.5", "--sines", "12"], "--sines: unused when --sizes is given"),
        (["--kind", "hill", "--alpha", "1"], "--alpha: only used with --distribution weibull"),
        (["--kind", "simplex", "--tiling"], "--tiling: kind 'simplex' cannot tile; tileable kinds: "),
        (["--kind", "hill", "--tiling"], "--tiling: kind 'hill' cannot tile"),
        (["--kind", "cellular", "--density", "0.0001"], "--density: 0.0001 is out of range (allowed: 0.001 to 16)"),
        (["--tiling", "--frequency", "2.5"], "--frequency: tiling needs a whole-number frequency"),
    ],
)
def test_bad_noise_options_exit_2_naming_the_option(
    bpy_empty, helpers: ModuleType, capsys: pytest.CaptureFixture, arguments: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _apply_noise_options(helpers, *arguments)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_valid_noise_options_are_applied_unchanged(bpy_empty, addon, helpers: ModuleType) -> None:
    arguments = ["--kind", "voronoi", "--jitter", "0.3", "--frequency", "3", "--tiling", "--offset", "0.1", "0.2", "0"]
    _apply_noise_options(helpers, *arguments)
    settings = bpy_empty.context.scene.noisewright
    spec = addon.mapping.to_spec(settings)
    assert (spec.kind, spec.frequency, spec.tiling, settings.dimensions) == ("voronoi", 3.0, True, "2")
    assert spec.jitter == pytest.approx(0.3) and tuple(settings.offset) == pytest.approx((0.1, 0.2, 0.0))


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["blender", "--background", "--python", "scripts/demo.py", "--", "--size", "small"], ["--size", "small"]),
        (["blender", "--background", "--python", "scripts/demo.py"], []),
        (["scripts/demo.py", "--size", "small"], ["--size", "small"]),
        (["scripts/demo.py", "--", "--out", "x"], ["--out", "x"]),
    ],
)
def test_script_arguments_inside_blender_and_python(argv: list[str], expected: list[str]) -> None:
    assert importlib.import_module("_blender_addon").script_arguments(argv) == expected


def test_render_textures_writes_the_readme_picture(tmp_path: Path, extension_repo: Path) -> None:
    import imageio.v3 as iio

    out = tmp_path / "textures.png"
    args = ("--out", out, "--width", "48", "--height", "24", "--samples", "1")
    stdout = ok(run_script("render_textures.py", *args, repo=extension_repo))
    assert str(out) in stdout
    picture = iio.imread(out)
    assert picture.shape[:2] == (24, 48) and picture[..., :3].std() > 2.0  # a picture, not a flat fill
    assert [p.name for p in tmp_path.iterdir()] == ["textures.png"]  # the UDIM tiles went to a temporary folder
