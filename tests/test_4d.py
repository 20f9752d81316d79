"""4D noise (value, Perlin, simplex) and seamless loops (``noise_core.loops``): transcriptions, range, continuity,
tiling, loops that close, sequences written all or none, the CLI, errors."""

from __future__ import annotations

import math
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import pytest

import noise_core as nc
from noise_core import loops
from noise_core.cli import main
from noise_core.gradients import PERLIN_4D_MAX, SIMPLEX_4D_MAX

from . import reference
from .test_simplex import simplex_reference

# Sweeps every kernel variant: once per run (scripts/run.sh), the golden digests pin the bits on both Pythons.
pytestmark = pytest.mark.once_per_run

LATTICE = {"value": reference.value_gradient, "perlin": reference.perlin_gradient}
FOUR_D = ("value", "perlin", "simplex_value", "simplex")


@pytest.fixture(scope="module")
def points4() -> np.ndarray:
    return np.random.default_rng(44).uniform(-3.0, 3.0, size=(4096, 4))


@pytest.mark.parametrize("kind", LATTICE)
def test_lattice_4d_matches_the_transcription(kind: str, points4: np.ndarray) -> None:
    spec = nc.NoiseSpec(kind=kind, seed=7, frequency=3.0, octaves=3)
    at = points4[:24]
    expected = [reference.fractal(LATTICE[kind], 7, tuple(p), 3.0, 3, 2.0, 0.5) for p in at]
    np.testing.assert_allclose(nc.evaluate(spec, at), expected, rtol=0, atol=2e-6)


@pytest.mark.parametrize("kind", ["simplex_value", "simplex"])
def test_simplex_4d_matches_the_transcription(kind: str, points4: np.ndarray) -> None:
    spec = nc.NoiseSpec(kind=kind, seed=7, frequency=3.0, octaves=2)
    at = points4[:24]
    expected = [
        (simplex_reference(kind, 7, tuple(p), 3.0) + 0.5 * simplex_reference(kind, 8, tuple(p), 6.0)) / 1.5 for p in at
    ]
    np.testing.assert_allclose(nc.evaluate(spec, at), expected, rtol=0, atol=2e-6)


def test_value_4d_at_lattice_points_is_the_hash_value() -> None:
    lattice = np.array([[-2, 5, 1, 9], [0, 0, 0, 0], [3, -7, 4, -1]])
    got = nc.evaluate(nc.NoiseSpec(kind="value", seed=11, frequency=1.0), lattice.astype(np.float64))
    expected = [(reference.hash_of(11, *p) & 255) / 255 * 2 - 1 for p in lattice.tolist()]
    np.testing.assert_allclose(got, expected, atol=1e-7)


def test_perlin_4d_vanishes_at_lattice_points() -> None:
    lattice = np.random.default_rng(1).integers(-50, 50, size=(64, 4)).astype(np.float64)
    np.testing.assert_array_equal(nc.evaluate(nc.NoiseSpec(kind="perlin", frequency=1), lattice), 0.0)


@pytest.mark.parametrize("kind", FOUR_D)
def test_range_is_used_and_kept(kind: str) -> None:
    at = np.random.default_rng(2).uniform(-40, 40, size=(200_000, 4))
    values = nc.evaluate(nc.NoiseSpec(kind=kind, frequency=1.0), at)
    assert values.min() >= -1.0 and values.max() <= 1.0
    assert values.max() - values.min() > 1.2, "the normalisation should let the noise use most of -1..1"


def test_normalisation_maxima_bound_the_blend() -> None:
    """The 4D scales divide by the largest blend with each corner's best gradient: at the maximising points
    found when deriving them (docs/sources.md) the bound holds and is nearly reached."""
    corners = np.array(np.meshgrid(*[[0, 1]] * 4, indexing="ij")).reshape(4, -1).T
    vectors = np.array([reference.hypercube_vector(h) for h in range(4096)], dtype=np.float64)
    p = np.array([0.35641249, 0.5, 0.49192551, 0.48162516])
    t = p**3 * (p * (p * 6 - 15) + 10)
    blend = sum(np.prod(np.where(c == 1, t, 1 - t)) * (vectors @ (p - c)).max() for c in corners.astype(np.float64))
    assert 1.5365 < blend <= PERLIN_4D_MAX
    skew, unskew = (math.sqrt(5) - 1) / 4, (5 - math.sqrt(5)) / 20
    q = np.array([1.97983739, -0.98504021, 1.97983739, 1.944715])
    s = q + q.sum() * skew
    cell = np.floor(s)
    order = np.argsort(-(s - cell), kind="stable")
    corner, total = cell.copy(), 0.0
    for step in range(5):
        if step:
            corner[order[step - 1]] += 1
        offset = q - (corner - corner.sum() * unskew)
        falloff = 8 * max(0.0, 0.5 - offset @ offset) ** 3
        total += falloff * (vectors @ offset).max() / math.sqrt(3)
    assert 0.17176 < total <= SIMPLEX_4D_MAX


@pytest.mark.parametrize("kind", FOUR_D)
@pytest.mark.parametrize("origin", [0.0, 1e4])
def test_continuity(kind: str, origin: float) -> None:
    """A step of 1e-6 moves the value by at most slope x step: no jumps at lattice or simplex faces."""
    at = origin + np.random.default_rng(3).uniform(-4, 4, size=(50_000, 4))
    spec = nc.NoiseSpec(kind=kind, frequency=2.0, octaves=2)
    base = nc.evaluate(spec, at).astype(np.float64)
    for axis in range(4):
        moved = at.copy()
        moved[:, axis] += 1e-6
        assert np.abs(nc.evaluate(spec, moved) - base).max() < 1e-4


@pytest.mark.parametrize("kind", LATTICE)
def test_lattice_4d_tiles_with_period_one(kind: str, points4: np.ndarray) -> None:
    spec = nc.NoiseSpec(kind=kind, frequency=3.0, octaves=2, tiling=True)
    shift = np.array([1.0, -2.0, 3.0, -1.0])
    np.testing.assert_array_equal(nc.evaluate(spec, points4 + shift), nc.evaluate(spec, points4))


def test_4d_warp_moves_all_four_axes(points4: np.ndarray) -> None:
    plain = nc.NoiseSpec(kind="perlin")
    warped = nc.NoiseSpec(kind="perlin", warp="independent", warp_amplitude=0.2)
    assert not np.array_equal(nc.evaluate(plain, points4), nc.evaluate(warped, points4))
    values = nc.evaluate(warped, points4)
    assert np.isfinite(values).all() and values.min() >= -1 and values.max() <= 1


@pytest.mark.parametrize(("kind", "dims"), [("voronoi", "1, 2, 3"), ("cellular", "2, 3"), ("hill", "1, 2, 3")])
def test_kinds_without_4d_refuse_it_by_name(kind: str, dims: str, points4: np.ndarray) -> None:
    with pytest.raises(ValueError, match=rf"points: kind '{kind}' is defined in {dims} dimensions, got d=4"):
        nc.evaluate(nc.NoiseSpec(kind=kind), points4)


def test_five_columns_are_refused() -> None:
    with pytest.raises(ValueError, match=r"points: shape must be \(N, d\) with d in 1, 2, 3, 4; got \(3, 5\)"):
        nc.evaluate(nc.NoiseSpec(), np.zeros((3, 5)))


# --- loops --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", FOUR_D)
def test_a_loop_closes_and_moves(kind: str) -> None:
    spec = nc.NoiseSpec(kind=kind, frequency=8.0, octaves=2)
    frames = [loops.loop_grid(spec, (96, 96), frame, 12) for frame in range(13)]
    np.testing.assert_array_equal(frames[12], frames[0])
    np.testing.assert_array_equal(loops.loop_grid(spec, (96, 96), -1, 12), frames[11])
    steps = [np.abs(frames[f + 1] - frames[f]).mean() for f in range(12)]
    assert min(steps) > 0.0, "every frame differs from the next"
    assert max(steps) < 2 * min(steps), "similar steps around the circle"
    inside = steps[:-1]
    assert 0.8 * min(inside) <= steps[-1] <= 1.25 * max(inside), "the step from the last frame to the first is no jump"


def test_loop_points_step_equally_around_the_circle() -> None:
    at = [loops.loop_points(np.zeros((1, 2)), frame, 7, radius=0.3)[0, 2:] for frame in range(8)]
    distances = [np.linalg.norm(at[f + 1] - at[f]) for f in range(7)]
    np.testing.assert_allclose(distances, 2 * 0.3 * math.sin(math.pi / 7), rtol=1e-12)
    np.testing.assert_allclose(at[7], at[0], atol=1e-15)


def test_loop_frame_is_the_4d_noise_on_the_circle() -> None:
    spec = nc.NoiseSpec(kind="simplex", frequency=3.0)
    xy = np.random.default_rng(5).uniform(0, 1, size=(500, 2))
    angle = 2 * math.pi * 3 / 10
    expected = nc.evaluate(
        spec, np.column_stack([xy, np.full(500, 0.4 * math.cos(angle)), np.full(500, 0.4 * math.sin(angle))])
    )
    np.testing.assert_array_equal(loops.evaluate_loop(spec, xy, 3, 10, radius=0.4), expected)


def test_tiling_loop_frames_tile() -> None:
    spec = nc.NoiseSpec(kind="perlin", frequency=4.0, octaves=2, tiling=True)
    xy = np.random.default_rng(6).uniform(0, 1, size=(500, 2))
    np.testing.assert_array_equal(
        loops.evaluate_loop(spec, xy + np.array([1.0, -1.0]), 5, 16), loops.evaluate_loop(spec, xy, 5, 16)
    )


def test_loops_of_1d_points_go_through_3d_noise_of_any_kind() -> None:
    spec = nc.NoiseSpec(kind="voronoi")
    x = np.linspace(0, 1, 64)[:, None]
    np.testing.assert_array_equal(loops.evaluate_loop(spec, x, 0, 8), loops.evaluate_loop(spec, x, 8, 8))


def test_time_points_add_w() -> None:
    xyz = np.random.default_rng(7).uniform(0, 1, size=(10, 3))
    moved = loops.time_points(xyz, 2.5)
    assert moved.shape == (10, 4) and (moved[:, 3] == 2.5).all() and (moved[:, :3] == xyz).all()


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ((0, 0, 0.25), ValueError, r"^frames: must be between 1 and 10000, got 0$"),
        ((0, 10_001, 0.25), ValueError, r"^frames: must be between 1 and 10000"),
        ((0, 2.5, 0.25), TypeError, r"^frames: expected an integer"),
        ((0, True, 0.25), TypeError, r"^frames: expected an integer"),
        ((0, 8, 0.0), ValueError, r"^radius: must be in \(0, 1e\+06\], got 0.0$"),
        ((0, 8, float("nan")), ValueError, r"^radius: must be a finite number"),
        ((0.5, 8, 0.25), TypeError, r"^frame: expected an integer"),
    ],
)
def test_loop_arguments_are_checked(arguments: tuple, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        loops.loop_grid(nc.NoiseSpec(), (4, 4), *arguments)


def test_a_loop_needs_noise_two_dimensions_up() -> None:
    with pytest.raises(ValueError, match=r"^loop: a loop of 2D points moves through 4D noise, which kind 'voronoi'"):
        loops.loop_grid(nc.NoiseSpec(kind="voronoi"), (4, 4), 0, 8)
    with pytest.raises(ValueError, match=r"^loop: a loop of 3D points moves through 5D noise"):
        loops.evaluate_loop(nc.NoiseSpec(), np.zeros((2, 3)), 0, 8)


def test_write_sequence_is_all_or_none(tmp_path: Path) -> None:
    kept = loops.frame_path(tmp_path / "n.png", 1)
    kept.write_bytes(b"old frame")

    def render(frame: int) -> np.ndarray:
        if frame == 3:
            raise RuntimeError("interrupted")
        return np.full((4, 4), frame / 4, dtype=np.float32)

    with pytest.raises(RuntimeError, match="interrupted"):
        loops.write_sequence(tmp_path / "n.png", 5, render)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.0002.png"] and kept.read_bytes() == b"old frame"
    paths = loops.write_sequence(tmp_path / "n.png", 3, lambda f: np.full((4, 4), f / 4, dtype=np.float32))
    assert [p.name for p in paths] == ["n.0001.png", "n.0002.png", "n.0003.png"]


def test_cli_writes_a_looping_sequence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from noise_core.io.images import read_image

    assert main(["bake", "--out", str(tmp_path / "n.png"), "--size", "32", "--frames", "6", "--tiling"]) == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [f"n.{f:04d}.png" for f in range(1, 7)]
    assert "wrote 6 frames" in capsys.readouterr().out
    spec = nc.NoiseSpec(tiling=True)
    for frame in (0, 4):
        expected = loops.loop_grid(spec, (32, 32), frame, 6)
        got = read_image(tmp_path / names[frame]).astype(np.float64) * 2 - 1  # 0..1 from the 16-bit file
        np.testing.assert_allclose(got, expected, atol=4e-5)


def test_cli_loop_of_normal_maps_analytic_matches_differences(tmp_path: Path) -> None:
    from noise_core.io.images import read_image

    for method in ("analytic", "differences"):
        args = ["bake", "--out", str(tmp_path / f"{method}.png"), "--size", "64", "--frames", "3", "--map", "normal"]
        assert main([*args, "--normal-method", method, "--normal-strength", "0.05", "--kind", "simplex"]) == 0
    analytic = read_image(tmp_path / "analytic.0002.png").astype(np.float64) * 2 - 1
    differences = read_image(tmp_path / "differences.0002.png").astype(np.float64) * 2 - 1
    cosine = (analytic * differences).sum(axis=2) / (
        np.linalg.norm(analytic, axis=2) * np.linalg.norm(differences, axis=2)
    )
    assert np.degrees(np.arccos(np.clip(cosine, -1, 1))).mean() < 0.5


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--frames", "4", "--kind", "voronoi"], "loop: a loop of 2D points moves through 4D noise"),
        (["--frames", "0"], "frames: must be between 1 and 10000, got 0"),
        (["--frames", "4", "--loop-radius", "-1"], "loop-radius: must be in"),
        (["--loop-radius", "2"], "loop-radius: only used with --frames"),
    ],
)
def test_cli_loop_errors_write_nothing(
    arguments: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bake", "--out", str(tmp_path / "n.png"), "--size", "16", *arguments])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_render_loop_writes_the_readme_pictures(tmp_path: Path) -> None:
    import render_loop

    strip, gif = render_loop.main(["--out-dir", str(tmp_path), "--frames", "4", "--strip", "2", "--size", "16"])
    assert iio.imread(strip).shape == (16, 3 * 16 + 2 * 4, 3)  # two frames and the first again, 4-pixel gaps
    frames = iio.imread(gif, index=None)
    assert frames.shape[0] == 4
    np.testing.assert_array_equal(iio.imread(strip)[:, :16], iio.imread(strip)[:, -16:])  # the loop closes
