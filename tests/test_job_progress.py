"""Progress and cancel of the long noise_core work the add-on runs as jobs (``addon/jobs.py``): a lattice in blocks
of rows (``api.evaluate_lattice``), a UV/UDIM bake per block of points and pass of the margin (``uv_bake.bake_uv``,
``uv_bake.dilate``), a loop's frames (``loops.write_sequence``). Progress is monotone and ends at its total, the
values are bit for bit those of the work done in one go, and an exception raised by the progress callback (how a
job's cancel arrives) stops the work there, leaving no file of a set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core import api, loops, uv_bake

from .test_uv_bake import cube


class Cancelled(Exception):
    pass


def _recorder(stop_after: int | None = None):
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        if stop_after is not None and len(seen) >= stop_after:
            raise Cancelled

    return seen, progress


@pytest.mark.parametrize(
    "spec",
    [
        nc.NoiseSpec(kind="perlin", frequency=3.0, octaves=3),  # the separable grid kernel
        nc.NoiseSpec(kind="simplex", frequency=5.0, octaves=2),  # the point kernel in grid mode
        nc.NoiseSpec(kind="cellular", frequency=4.0, tiling=True),
        nc.NoiseSpec(kind="value", frequency=2.0, warp="independent", warp_amplitude=0.3),  # warped: the point path
    ],
    ids=["perlin", "simplex", "cellular-tiling", "warped-value"],
)
def test_a_lattice_in_blocks_of_rows_is_bit_identical_and_reports_every_block(spec, monkeypatch) -> None:
    monkeypatch.setattr(api, "LATTICE_BLOCK", 200)  # 200 // 37 = 5 rows a block
    xs = (np.arange(37) + 0.5) / 37 * 1.3 - 0.2
    ys = (np.arange(23) + 0.5) / 23
    whole = api.evaluate_lattice(spec, xs, ys)
    seen, progress = _recorder()
    blocks = api.evaluate_lattice(spec, xs, ys, progress)
    np.testing.assert_array_equal(blocks, whole)
    assert seen == [(5, 23), (10, 23), (15, 23), (20, 23), (23, 23)]


def test_a_cancel_stops_a_lattice_after_the_block_it_came_in(monkeypatch) -> None:
    monkeypatch.setattr(api, "LATTICE_BLOCK", 64)  # 64 // 16 = 4 rows a block
    seen, progress = _recorder(stop_after=2)
    with pytest.raises(Cancelled):
        api.evaluate_lattice(nc.NoiseSpec(), np.linspace(0, 1, 16), np.linspace(0, 1, 40), progress)
    assert seen == [(4, 40), (8, 40)]


def test_a_uv_bake_reports_monotone_progress_and_gives_the_same_bits(monkeypatch) -> None:
    monkeypatch.setattr(uv_bake, "POINT_BLOCK", 500)  # several blocks of points per tile
    uvs, positions, _ = cube(tile_of_face=lambda face: face // 2)  # tiles 1001, 1002, 1003
    spec = nc.NoiseSpec(kind="simplex", frequency=2.0, octaves=2)
    whole = uv_bake.bake_uv(spec, uvs, positions, (64, 48), margin=3)
    seen, progress = _recorder()
    reported = uv_bake.bake_uv(spec, uvs, positions, (64, 48), margin=3, progress=progress)
    assert sorted(reported) == sorted(whole)
    for tile in whole:
        np.testing.assert_array_equal(reported[tile], whole[tile])
    done = [d for d, _ in seen]
    assert {t for _, t in seen} == {3 * uv_bake.TILE_STEPS}
    assert done == sorted(done) and done[-1] == 3 * uv_bake.TILE_STEPS
    assert len(seen) > 3 * 4  # rasterising, several blocks of points, the margin's passes, per tile


def test_a_cancel_stops_a_uv_bake_between_blocks(monkeypatch) -> None:
    monkeypatch.setattr(uv_bake, "POINT_BLOCK", 500)
    uvs, positions, _ = cube(tile_of_face=lambda face: face // 2)
    calls: list[int] = []
    evaluate = uv_bake.evaluate

    def counted(spec, points):
        calls.append(points.shape[0])
        return evaluate(spec, points)

    monkeypatch.setattr(uv_bake, "evaluate", counted)
    seen, progress = _recorder(stop_after=3)  # rasterised, then two blocks of the first tile
    with pytest.raises(Cancelled):
        uv_bake.bake_uv(nc.NoiseSpec(), uvs, positions, (64, 48), margin=3, progress=progress)
    assert len(calls) == 2 and all(count <= 500 for count in calls)
    assert seen[-1][0] < uv_bake.TILE_STEPS  # still in the first tile


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 24), st.integers(1, 24)),
    density=st.floats(0.0, 0.3),
    margin=st.integers(0, 12),
)
def test_a_margin_pass_by_pass_equals_the_margin_in_one_go(seed, shape, density, margin) -> None:
    rng = np.random.default_rng(seed)
    filled = rng.random(shape) < density
    values = np.where(filled, rng.random(shape), 0.0).astype(np.float32)
    passes: list[int] = []
    by_pass = uv_bake.dilate(values, filled, margin, passes.append)
    np.testing.assert_array_equal(by_pass, uv_bake.dilate(values, filled, margin))
    assert passes == sorted(passes) and len(set(passes)) == len(passes)
    assert (passes[-1] == margin) if margin else not passes


def test_a_cancelled_sequence_leaves_no_frame_and_keeps_the_old_files(tmp_path: Path) -> None:
    (tmp_path / "n.0002.png").write_bytes(b"old")
    frames: list[int] = []

    def progress(frame: int) -> None:
        frames.append(frame)
        if frame == 2:
            raise Cancelled

    with pytest.raises(Cancelled):
        loops.write_sequence(tmp_path / "n.png", 5, lambda f: np.full((4, 4), f / 5, np.float32), progress=progress)
    assert frames == [0, 1, 2]
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == {"n.0002.png": b"old"}
