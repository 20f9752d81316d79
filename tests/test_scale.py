"""Windows of a global grid (``evaluate_grid(..., window=)``) and tiled bakes on Dask (``noise_core.scale``,
``noise_core.tiled_bake``): bit-identical to one ``evaluate_grid`` call."""

from __future__ import annotations

import numpy as np
import pytest

import noise_core as nc

WINDOW_SPECS = [
    nc.NoiseSpec(kind="value", octaves=3, tiling=True),
    nc.NoiseSpec(kind="perlin", octaves=3, turbulence=True),
    nc.NoiseSpec(kind="perlin", octaves=3, tiling=True),
    nc.NoiseSpec(kind="simplex_value", octaves=2),
    nc.NoiseSpec(kind="simplex", seed=-7, octaves=2),
    nc.NoiseSpec(kind="voronoi", distance="chebyshev", function="f2_minus_f1", jitter=0.5),
    nc.NoiseSpec(kind="voronoi", function="cell", tiling=True),
    nc.NoiseSpec(kind="cellular", distance="manhattan", function="f3", octaves=2),
    nc.NoiseSpec(kind="hill", distribution="weibull", beta=2.0),
]
SHAPE = (45, 61)  # 2745 pixels: three of the kernel's 1024-point blocks, none aligned with a row
WINDOWS = [
    (0, 0, 45, 61),
    (0, 0, 1, 1),
    (44, 60, 1, 1),
    (0, 60, 1, 1),
    (44, 0, 1, 61),
    (0, 60, 45, 1),
    (17, 0, 1, 61),
    (3, 5, 40, 55),
    (30, 41, 15, 20),
]


def _bits(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values).view(np.uint32)


@pytest.mark.parametrize("spec", WINDOW_SPECS, ids=lambda spec: f"{spec.kind}-{spec.distance}-{spec.tiling}")
def test_windows_are_the_full_grid_bit_for_bit(spec: nc.NoiseSpec) -> None:
    full = nc.evaluate_grid(spec, SHAPE)
    rng = np.random.default_rng(15)
    windows = list(WINDOWS)
    for _ in range(12):
        row0, col0 = int(rng.integers(SHAPE[0])), int(rng.integers(SHAPE[1]))
        windows.append(
            (row0, col0, int(rng.integers(1, SHAPE[0] - row0 + 1)), int(rng.integers(1, SHAPE[1] - col0 + 1)))
        )
    for row0, col0, height, width in windows:
        window = nc.evaluate_grid(spec, SHAPE, window=(row0, col0, height, width))
        assert window.shape == (height, width) and window.dtype == np.float32
        np.testing.assert_array_equal(_bits(window), _bits(full[row0 : row0 + height, col0 : col0 + width]))


def test_a_window_of_a_grid_beyond_the_sample_limit() -> None:
    """A 65536² grid is too large for one call, but any window of it is computed as the same pixels."""
    spec = nc.NoiseSpec(octaves=2)
    shape = (1 << 16, 1 << 16)
    corner = nc.evaluate_grid(spec, shape, window=(65534, 65533, 2, 3))
    rows, cols = np.mgrid[65534:65536, 65533:65536]
    points = np.column_stack([(cols.ravel() + 0.5) / 65536, (rows.ravel() + 0.5) / 65536])
    np.testing.assert_array_equal(_bits(corner.ravel()), _bits(nc.evaluate(spec, points)))


@pytest.mark.parametrize(
    ("window", "error", "message"),
    [
        ([0, 0, 1, 1], TypeError, r"window: expected a tuple \(row0, col0, height, width\)"),
        ((0, 0, 1), TypeError, r"window: expected a tuple"),
        ((0, 0, 1.0, 1), TypeError, r"window: expected a tuple"),
        ((0, True, 1, 1), TypeError, r"window: expected a tuple"),
        ((-1, 0, 1, 1), ValueError, r"window: .* must have row0, col0 >= 0, height, width >= 1 and lie inside the 8x6"),
        ((0, 0, 0, 1), ValueError, r"window: .* lie inside"),
        ((0, 0, 9, 1), ValueError, r"window: .* lie inside"),
        ((7, 5, 1, 2), ValueError, r"window: .* lie inside"),
    ],
)
def test_bad_windows(window: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        nc.evaluate_grid(nc.NoiseSpec(), (8, 6), window=window)  # type: ignore[arg-type]


def test_window_sample_limit_applies_to_the_window() -> None:
    with pytest.raises(ValueError, match=r"window: 32768x32768 exceeds the limit"):
        nc.evaluate_grid(nc.NoiseSpec(), (1 << 16, 1 << 16), window=(0, 0, 1 << 15, 1 << 15))


# --- Dask: the lazy grid and tiled bakes (the scale extra; pinned in both lock files) -------------------------------

import logging  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import distributed  # noqa: E402
import zarr  # noqa: E402

from noise_core import scale, tiled_bake  # noqa: E402
from noise_core.cli import main  # noqa: E402
from noise_core.io.images import read_image  # noqa: E402
from noise_core.ranges import to_unit  # noqa: E402

SPEC = nc.NoiseSpec(kind="perlin", octaves=3, seed=15)
BAKE_SHAPE = (1000, 1300)  # 3 x 4 tiles of 384: the last row and column are cut short
TILE = 384


@pytest.fixture(scope="module")
def cluster() -> distributed.LocalCluster:
    """Two worker processes of one thread each (processes, so the fault test can kill one)."""
    nc.precompile(SPEC, 2)  # the workers load the kernel from the disk cache instead of compiling it twice
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=logging.ERROR
    ) as local:
        yield local


@pytest.fixture
def client(cluster: distributed.LocalCluster) -> distributed.Client:
    with distributed.Client(cluster, set_as_default=False) as connected:
        connected.wait_for_workers(2)
        yield connected


@pytest.fixture(scope="module")
def expected() -> np.ndarray:
    """The single-process reference: ``evaluate_grid`` mapped to [0, 1] as every bake maps it."""
    return to_unit(SPEC, nc.evaluate_grid(SPEC, BAKE_SHAPE))


def _codes(unit: np.ndarray) -> np.ndarray:
    return np.round(unit * 65535.0).astype(np.uint16)


def _tile_set(pattern: str, shape: tuple[int, int] = BAKE_SHAPE, tile: int = TILE) -> np.ndarray:
    rows, cols = -(-shape[0] // tile), -(-shape[1] // tile)
    return np.block([[read_image(Path(pattern.format(row=r, col=c))) for c in range(cols)] for r in range(rows)])


def test_lazy_grid_is_evaluate_grid_bit_for_bit() -> None:
    lazy = scale.grid(SPEC, BAKE_SHAPE, chunks=(300, 512))
    assert lazy.shape == BAKE_SHAPE and lazy.dtype == np.float32 and lazy.numblocks == (4, 3)
    full = nc.evaluate_grid(SPEC, BAKE_SHAPE)
    np.testing.assert_array_equal(_bits(lazy.compute(scheduler="threads")), _bits(full))
    np.testing.assert_array_equal(_bits(lazy[299:301, 1:1299].compute(scheduler="sync")), _bits(full[299:301, 1:1299]))


def test_importing_noise_core_does_not_import_dask() -> None:
    code = "import sys, noise_core, noise_core.cli; print(sorted(m for m in sys.modules if m.split('.')[0] in " + (
        "('dask', 'distributed', 'zarr')))"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "[]\n"


def test_missing_scale_extra_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ModuleNotFoundError, match=r"scale: .*'distributed'.*pip install 'noisewright\[scale\]'"):
        scale.require("distributed")
    assert main(["bake", "--size", "8", "--out", str(tmp_path / "w.zarr")]) == 2
    assert "pip install 'noisewright[scale]'" in capsys.readouterr().err


def test_zarr_stores_and_tile_sets_equal_evaluate_grid(
    tmp_path: Path, client: distributed.Client, expected: np.ndarray
) -> None:
    store = tmp_path / "world.zarr"
    result = tiled_bake.bake(SPEC, BAKE_SHAPE, store, client, tile=TILE, overview=tmp_path / "o.tiff", overview_size=90)
    assert (result.written, result.skipped) == (12, 0)
    array = zarr.open_array(str(store), mode="r")
    assert array.dtype == np.float32 and array.chunks == (TILE, TILE)
    np.testing.assert_array_equal(_bits(array[:]), _bits(expected))
    factor = 15  # ceil(1300 / 90)
    padded = np.full((1005, 1305), np.nan)
    padded[:1000, :1300] = expected
    overview = np.nanmean(padded.reshape(67, factor, 87, factor), axis=(1, 3))
    np.testing.assert_allclose(read_image(tmp_path / "o.tiff"), overview, atol=1e-6)

    tiled_bake.bake(SPEC, BAKE_SHAPE, tmp_path / "w16.zarr", client, tile=TILE, bits=16, progress=False)
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "w16.zarr"), mode="r")[:], _codes(expected))

    (tmp_path / "png").mkdir()
    tiled_bake.bake(SPEC, BAKE_SHAPE, str(tmp_path / "png" / "{row}" / "{col}.png"), client, tile=TILE)
    np.testing.assert_array_equal(_codes(_tile_set(str(tmp_path / "png" / "{row}" / "{col}.png"))), _codes(expected))
    tiled_bake.bake(SPEC, BAKE_SHAPE, str(tmp_path / "t_{row}_{col}.exr"), client, tile=TILE)
    np.testing.assert_array_equal(_bits(_tile_set(str(tmp_path / "t_{row}_{col}.exr"))), _bits(expected))


def test_cli_bakes_on_a_running_scheduler(
    tmp_path: Path, cluster: distributed.LocalCluster, expected: np.ndarray, capsys: pytest.CaptureFixture[str]
) -> None:
    common = ["bake", "--kind", "perlin", "--octaves", "3", "--seed", "15", "--width", "1300", "--height", "1000"]
    out = tmp_path / "w.zarr"
    arguments = [*common, "--tile", str(TILE), "--bits", "16", "--out", str(out), "--overview", str(tmp_path / "o.png")]
    assert main([*arguments, "--scheduler", cluster.scheduler_address]) == 0
    assert "12 tiles: 12 written, 0 already finished" in capsys.readouterr().out
    np.testing.assert_array_equal(zarr.open_array(str(out), mode="r")[:], _codes(expected))
    assert read_image(tmp_path / "o.png").shape == (500, 650)  # factor ceil(1300 / 1024) = 2
    assert main([*arguments, "--scheduler", cluster.scheduler_address]) == 0  # everything finished: resumes at once
    assert "12 tiles: 0 written, 12 already finished" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:  # other settings: refused before a LocalCluster starts
        main([*common[:-4], "--width", "1300", "--height", "999", *arguments[len(common) :], "--workers", "1"])
    assert exit_info.value.code == 2
    assert "holds a bake with other settings (shape: [1000, 1300] -> [999, 1300])" in capsys.readouterr().err


def test_a_worker_killed_mid_bake_still_gives_the_same_output(
    tmp_path: Path, client: distributed.Client, expected: np.ndarray
) -> None:
    pids = client.run(os.getpid)
    killed: list[tuple[int, int]] = []

    def kill_one_worker(done: int, total: int, written: bool) -> None:
        if not killed:
            pid = next(iter(pids.values()))
            os.kill(pid, signal.SIGKILL)
            killed.append((pid, done))

    store = tmp_path / "w.zarr"
    result = tiled_bake.bake(SPEC, BAKE_SHAPE, store, client, tile=128, bits=16, on_tile=kill_one_worker)
    assert killed and killed[0][1] < 88  # killed after the first of 88 tiles, while the others were in flight
    assert result.written == 88
    np.testing.assert_array_equal(zarr.open_array(str(store), mode="r")[:], _codes(expected))
    client.wait_for_workers(2)  # the nanny restarts the killed worker for the next tests
    assert killed[0][0] not in client.run(os.getpid).values()


class _Interrupt(Exception):
    pass


def _interrupt_after(count: int):
    def on_tile(done: int, total: int, written: bool) -> None:
        if done >= count:
            raise _Interrupt

    return on_tile


def _executing(dask_worker: distributed.Worker) -> int:
    return dask_worker.state.executing_count


def _wait_until_idle(client: distributed.Client) -> None:
    """Wait for tasks a stopped bake cancelled but its workers still run (Dask does not interrupt a running task)."""
    while sum(client.run(_executing).values()):
        time.sleep(0.05)


def _state(path: Path) -> tuple[int, int]:
    status = path.stat()
    return status.st_ino, status.st_mtime_ns


def test_resume_writes_only_the_missing_tiles(tmp_path: Path, client: distributed.Client, expected: np.ndarray) -> None:
    pattern = str(tmp_path / "{row}_{col}.png")
    with pytest.raises(_Interrupt):
        tiled_bake.bake(SPEC, BAKE_SHAPE, pattern, client, tile=TILE, on_tile=_interrupt_after(4))
    _wait_until_idle(client)  # the interrupted bake cancelled its tasks; a running tile still finishes, whole
    before = {path: _state(path) for path in tmp_path.glob("[0-9]*.png")}
    assert 4 <= len(before) <= 12
    result = tiled_bake.bake(SPEC, BAKE_SHAPE, pattern, client, tile=TILE, overview=tmp_path / "o.exr")
    assert (result.written, result.skipped) == (12 - len(before), len(before))
    assert {path: _state(path) for path in before} == before
    np.testing.assert_array_equal(_codes(_tile_set(pattern)), _codes(expected))
    assert read_image(tmp_path / "o.exr").shape == (500, 650)

    store = tmp_path / "w.zarr"
    tiled_bake.bake(SPEC, BAKE_SHAPE, store, client, tile=TILE)
    chunks = sorted(path for path in (store / "c").rglob("*") if path.is_file())
    assert len(chunks) == 12
    # An interrupted run: one chunk cut short before its marker, one chunk written without its marker.
    (store / tiled_bake.MARKERS / "2.3").unlink()
    (store / "c" / "2" / "3").write_bytes((store / "c" / "2" / "3").read_bytes()[:100])
    (store / tiled_bake.MARKERS / "0.1").unlink()
    before = {path: _state(path) for path in chunks}
    result = tiled_bake.bake(SPEC, BAKE_SHAPE, store, client, tile=TILE)
    assert (result.written, result.skipped) == (2, 10)
    changed = {path.relative_to(store).as_posix() for path in chunks if _state(path) != before[path]}
    assert changed == {"c/0/1", "c/2/3"}
    np.testing.assert_array_equal(_bits(zarr.open_array(str(store), mode="r")[:]), _bits(expected))

    with pytest.raises(ValueError, match=r"out: .* holds a bake with other settings \(spec.octaves: 3 -> 4"):
        tiled_bake.bake(nc.NoiseSpec(kind="perlin", octaves=4, seed=15), BAKE_SHAPE, store, client, tile=TILE)


def _limit_file_size(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))


def test_failed_writes_keep_finished_tiles(tmp_path: Path, client: distributed.Client, expected: np.ndarray) -> None:
    """A file-size limit on the workers (like a full disk: the write fails with an OSError) fails the big tiles."""
    pattern = str(tmp_path / "{row}_{col}.tiff")
    shape = (600, 600)  # tiles of 512: one 1 MB tile, two of 180 kB, one of 31 kB
    client.run(_limit_file_size, 200_000)
    try:
        with pytest.raises(OSError, match=r"tile \(0, 0\) failed: .*; [0-3] of 4 tiles are finished and kept: run the"):
            tiled_bake.bake(SPEC, shape, pattern, client, tile=512)
        _wait_until_idle(client)
    finally:
        client.run(_limit_file_size, resource.RLIM_INFINITY)
    written = sorted(path.name for path in tmp_path.iterdir())
    assert "0_0.tiff" not in written
    assert [name for name in written if name.startswith(".") and name != tiled_bake.MANIFEST] == []
    reference = to_unit(SPEC, nc.evaluate_grid(SPEC, shape))
    # Which small tiles finished before the failure cancelled the rest depends on the workers' timing; each one kept
    # is whole and right.
    kept = [name for name in written if name.endswith(".tiff")]
    for name in kept:
        row, col = (int(part) for part in name.removesuffix(".tiff").split("_"))
        window = reference[row * 512 : (row + 1) * 512, col * 512 : (col + 1) * 512]
        np.testing.assert_array_equal(read_image(tmp_path / name), window)
    result = tiled_bake.bake(SPEC, shape, pattern, client, tile=512)
    assert (result.written, result.skipped) == (4 - len(kept), len(kept))
    np.testing.assert_array_equal(_tile_set(pattern, shape, 512), reference)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--out", "{tmp}/w.zarr", "--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "0.5"], "scheduler: "),
        (["--out", "{tmp}/w.png", "--tile", "64"], "tile: --tile needs a tiled output"),
        (["--out", "{tmp}/w.png", "--size", "20000"], "size: 20000x20000 is larger than 16384 for one image"),
        (["--out", "{tmp}/t_{row}.png"], "out: a tile pattern needs exactly the placeholders {row} and {col}"),
        (["--out", "{tmp}/t_{row}_{col}.exr", "--bits", "16"], "bits: .exr tiles are 32-bit"),
        (["--out", "{tmp}/w.zarr", "--size", "2000000"], "must be between 1 and 16384 (1048576 for a tiled bake)"),
    ],
)
def test_bad_tiled_arguments_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bake", *(argument.replace("{tmp}", str(tmp_path)) for argument in arguments)])
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert message in error and "Traceback" not in error
    assert list(tmp_path.iterdir()) == []


def test_unwritable_outputs_exit_2(
    tmp_path: Path, client: distributed.Client, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main(["bake", "--out", str(blocker / "w.zarr"), "--scheduler", client.scheduler.address]) == 2
    assert "out: cannot write" in capsys.readouterr().err
    blocker.unlink()
    (tmp_path / "0_0.png").mkdir()  # a folder where a tile goes
    with pytest.raises(
        OSError, match=r"tile \(0, 0\) failed: \[Errno 21\] .*; ([0-3]) of 4 tiles are finished and kept"
    ) as failed:
        tiled_bake.bake(SPEC, (64, 64), str(tmp_path / "{row}_{col}.png"), client, tile=32)
    _wait_until_idle(client)
    assert (tmp_path / "0_0.png").is_dir()
    # The failure cancels the tiles not yet started (which ones depends on the workers' timing; a running tile still
    # finishes): at least the reported ones are kept, each whole and right, and nothing else is left behind.
    kept = sorted(path.name for path in tmp_path.glob("[0-9]*") if path.is_file())
    assert set(kept) <= {"0_1.png", "1_0.png", "1_1.png"}
    assert len(kept) >= int(re.search(r"([0-3]) of 4 tiles", str(failed.value)).group(1))
    assert [path.name for path in tmp_path.iterdir() if path.name.startswith(".")] in ([], [tiled_bake.MANIFEST])
    reference = to_unit(SPEC, nc.evaluate_grid(SPEC, (64, 64)))
    for name in kept:
        row, col = (int(part) for part in name.removesuffix(".png").split("_"))
        window = reference[row * 32 : (row + 1) * 32, col * 32 : (col + 1) * 32]
        np.testing.assert_array_equal(_codes(read_image(tmp_path / name)), _codes(window))
