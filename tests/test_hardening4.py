"""Hardening 4 (issue 46): terrain maps, rivers, water and export under bad input and faults. For allowed input a
finite answer or an error naming the user's argument; nothing lost, nothing half-written. One section per class of
defect; each property test would have found its class."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import sys
import tempfile
import tracemalloc
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import noise_core as nc
from noise_core.cli import erode as erode_cli
from noise_core.cli import main
from noise_core.io import heightmaps
from noise_core.io.images import write_image
from noise_core.terrain import flow, maps

from .test_flow_mfd import sinks

# --- 1. MFD flow loses no water -----------------------------------------------------------------------------------


@pytest.mark.once_per_run
@given(
    seed=st.integers(0, 2**16),
    rows=st.integers(3, 24),
    columns=st.integers(3, 24),
    exponent=st.one_of(st.sampled_from([flow.MAX_EXPONENT, 50.0, 1.0]), st.floats(1e-3, flow.MAX_EXPONENT)),
    relief=st.sampled_from([1e-300, 1e-6, 1.0, 1e6, 1e30]),
    filled=st.booleans(),
    dtype=st.sampled_from([np.float32, np.float64]),
)
def test_mfd_passes_on_every_share_at_any_allowed_exponent(
    seed: int, rows: int, columns: int, exponent: float, relief: float, filled: bool, dtype: type
) -> None:
    """A share that rounds to 0 (a gentle neighbour at a large exponent) still lets its receiver pass its water
    on: every drop of rain ends in a sink, and every cell holds at least its own rain."""
    rng = np.random.default_rng(seed)
    heights = (rng.normal(size=(rows, columns)).cumsum(axis=0) * relief).astype(dtype)
    if filled:
        heights = nc.fill_depressions(heights, epsilon=True)
    rain = rng.uniform(0.0, 2.0, size=heights.shape)
    area = nc.flow_accumulation(heights, method="mfd", weights=rain, exponent=exponent)
    assert np.isfinite(area).all()
    assert (area >= rain * (1 - 1e-12)).all()
    assert area[sinks(heights)].sum() == pytest.approx(rain.sum(), rel=1e-12)


def test_mfd_at_the_max_exponent_with_a_far_steeper_neighbour() -> None:
    """The case the audit found: a cell whose drop to one neighbour is 10^4 times its drop to the others, exponent
    100: those shares are (10^-4)^100 = 0, and their receivers were never passed on (their water lost)."""
    heights = np.zeros((5, 5))
    heights[1:4, 1:4] = 100.0
    heights[2, 2], heights[2, 3] = 101.0, -9899.0
    area = nc.flow_accumulation(heights, method="mfd", exponent=flow.MAX_EXPONENT)
    assert area[sinks(heights)].sum() == pytest.approx(heights.size, rel=1e-12)


# --- 7. damaged tile-set sidecars: untrusted input ----------------------------------------------------------------


@pytest.fixture(scope="module")
def tile_set(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, np.ndarray]:
    """A 2 x 2 tile set of a 9 x 9 grid (tiles of 4 + 1 samples): its set name, set sidecar and values."""
    folder = tmp_path_factory.mktemp("tiles")
    values = np.random.default_rng(7).random((9, 9)).astype(np.float32)
    heightmaps.write_tiles(folder / "land.r32", values, 4, height_range=(-5.0, 20.0), unit="m", cell_size=(2.0, 3.0))
    record = json.loads((folder / "land.r32.json").read_text())
    return folder / "land.r32", record, values


def _paths(record: object, prefix: tuple = ()) -> list[tuple]:
    """Every path to a value in the JSON ``record`` (dict keys and list indices)."""
    found = [prefix] if prefix else []
    items = record.items() if isinstance(record, dict) else enumerate(record) if isinstance(record, list) else ()
    for key, value in items:
        found += _paths(value, (*prefix, key))
    return found


JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.sampled_from([10**9, 2**31, 2**40, -1, 0, 1]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6), st.lists(st.integers(-3, 3), max_size=3),
    st.just({}), st.sampled_from(["land.r32", "../land_x0_y0.r32", "/etc/passwd", "a\\b.r32", "land_x0_y0.r16"]),
)  # fmt: skip


@pytest.fixture(scope="module")
def single_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, np.ndarray]:
    """One 6 x 8 raw heightmap with its sidecar (the shape comes from it)."""
    folder = tmp_path_factory.mktemp("single")
    values = np.random.default_rng(8).random((6, 8)).astype(np.float32)
    heightmaps.write_heightmap(folder / "one.r32", values, height_range=(0.0, 3.0), unit="m", engine=None)
    return folder / "one.r32", json.loads((folder / "one.r32.json").read_text()), values


def _damage(record: dict, data: st.DataObject) -> dict:
    """``record`` with one damage: a key removed, a value replaced by junk, or an unknown key added."""
    damaged = copy.deepcopy(record)
    where = data.draw(st.sampled_from(_paths(record)), label="where")
    action = data.draw(st.sampled_from(["remove", "replace", "add"]), label="action")
    parent = damaged
    for key in where[:-1]:
        parent = parent[key]
    if action == "remove":
        del parent[where[-1]]
    elif action == "add" and isinstance(parent[where[-1]], dict):
        parent[where[-1]]["unknown"] = 1
    else:
        parent[where[-1]] = data.draw(JUNK, label="junk")
    return damaged


@pytest.mark.parametrize("which", ["tile_set", "single_file"])
@given(data=st.data())
def test_a_damaged_sidecar_is_read_or_refused_naming_the_path(
    which: str, request: pytest.FixtureRequest, data: st.DataObject
) -> None:
    """Any one damage to a sidecar (of a tile set or of one file) reads back a grid in [0, 1] (of the claimed size,
    for a set), or is refused by a ``ValueError``/``TypeError``/``OSError`` starting with ``path:``: never a
    ``KeyError``, a recursion, an index error or a huge allocation."""
    path, record, _values = request.getfixturevalue(which)
    damaged = _damage(record, data)
    sidecar = heightmaps.sidecar_path(path)
    sidecar.write_text(json.dumps(damaged))
    tracemalloc.start()
    try:
        back = heightmaps.read_heightmap(path)
    except (ValueError, TypeError, OSError) as error:
        assert str(error).startswith("path: "), str(error)
    else:
        if which == "tile_set":
            assert back.values.shape == (damaged["height"], damaged["width"])
        assert np.isfinite(back.values).all() and back.values.min() >= 0.0 and back.values.max() <= 1.0
        assert back.height_range is None or np.isfinite(back.heights).all()
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        sidecar.write_text(json.dumps(record))
    assert peak < 16 << 20, f"{peak} bytes allocated"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"width": 10**5, "height": 10**5}, r"^path: the sidecar 'land.r32.json' is damaged: width x height"),
        ({"width": 2**14, "height": 2**14}, r"^path: .* lists 4 tiles of 5 x 5 samples, too few to cover"),
        ({"tiles": None}, r"^path: .* tiles must be a JSON object"),
        ({"tiles": {"tile": 4, "overlap": 1}}, r"^path: .* tiles has no 'across', 'down', 'files'"),
        ({"height_range": 5}, r"^path: .* height_range must be \[low, high\]"),
    ],
)
def test_set_sidecar_refusals_name_the_field(tile_set: tuple, change: dict, message: str) -> None:
    path, record, values = tile_set
    sidecar = heightmaps.sidecar_path(path)
    try:
        sidecar.write_text(json.dumps({**record, **change}))
        with pytest.raises(ValueError, match=message):
            heightmaps.read_heightmap(path)
    finally:
        sidecar.write_text(json.dumps(record))
    np.testing.assert_array_equal(heightmaps.read_heightmap(path).values, values)


def test_a_set_listing_itself_is_refused_not_recursed(tile_set: tuple) -> None:
    path, record, _values = tile_set
    sidecar = heightmaps.sidecar_path(path)
    damaged = copy.deepcopy(record)
    damaged["tiles"]["files"][0]["file"] = path.name  # the set's own name: no such file, so it was a set again
    try:
        sidecar.write_text(json.dumps(damaged))
        with pytest.raises(FileNotFoundError, match=r"^path: the tile 'land.r32' listed in 'land.r32.json' is missing"):
            heightmaps.read_heightmap(path)
    finally:
        sidecar.write_text(json.dumps(record))


@pytest.mark.parametrize("text", ["[" * 100_000, '{"tiles": ' * 50_000, " " * (heightmaps.MAX_SIDECAR_BYTES + 1)])
def test_a_sidecar_too_deep_or_too_large_is_refused(tmp_path: Path, text: str) -> None:
    (tmp_path / "deep.r16.json").write_text(text)
    with pytest.raises(ValueError, match=r"^path: cannot read the sidecar .*deep.r16.json"):
        heightmaps.read_heightmap(tmp_path / "deep.r16")


# --- 5. unchecked arrays: NaN and junk are refused by name ----------------------------------------------------------

RAMP = np.add.outer(np.linspace(0.0, 9.0, 12), np.linspace(0.0, 20.0, 16))
SLOPE_LAYERS = [{"name": "base"}, {"name": "rock", "bands": [{"map": "slope", "low": 30.0}]}]


@given(
    cells=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 15)), min_size=1, max_size=5),
    bad=st.sampled_from([np.nan, np.inf, -np.inf, 1e39]),
    name=st.sampled_from(["slope", "erosion"]),
)
def test_splat_weights_refuse_a_given_map_with_nan_or_junk(cells: list, bad: float, name: str) -> None:
    values = np.zeros(RAMP.shape)
    for cell in cells:
        values[cell] = bad
    layers = [{"name": "base"}, {"name": "rock", "bands": [{"map": name, "low": 30.0}]}]
    with pytest.raises(ValueError, match=rf"^maps\['{name}'\]: "):
        nc.splat_weights(RAMP, layers, maps={name: values})


@pytest.mark.parametrize(
    ("maps", "error", "message"),
    [
        ({"slope": np.full(RAMP.shape, "x")}, TypeError, r"^maps\['slope'\]: expected real numbers"),
        ({"slope": np.zeros((3, 3))}, ValueError, r"^maps\['slope'\]: shape \(3, 3\) differs"),
        ([("slope", np.zeros(RAMP.shape))], TypeError, r"^maps: expected a dict"),
    ],
)
def test_splat_weights_refuse_junk_maps(maps: object, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        nc.splat_weights(RAMP, SLOPE_LAYERS, maps=maps)


WEIGHTS = st.one_of(
    st.builds(lambda shape: np.full(shape, 0.25, np.float32), st.lists(st.integers(0, 3), min_size=0, max_size=4)
              .map(tuple)),
    st.builds(lambda bad: np.full((2, 3, 3), bad), st.sampled_from([np.nan, np.inf, -0.5, 1.5])),
    st.sampled_from([np.zeros((0, 3, 3)), np.zeros((2, 0, 3)), np.array(["a"]), [[[0.5]]], None, 0.5]),
)  # fmt: skip


@given(weights=WEIGHTS)
def test_write_splat_checks_its_weights_and_writes_nothing_else(weights: object) -> None:
    """Weights of the wrong rank, no layers, NaN, out of [0, 1] or not an array: refused naming ``weights``, no file
    written; good weights (N, H, W) in [0, 1]: ceil(N / 4) files."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "s.exr"
        good = isinstance(weights, np.ndarray) and weights.ndim == 3 and 0 not in weights.shape
        good = good and weights.dtype.kind == "f" and bool(((weights >= 0) & (weights <= 1)).all())
        if good:
            assert len(nc.write_splat(target, weights)) == -(-weights.shape[0] // 4)
        else:
            with pytest.raises((ValueError, TypeError), match=r"^weights: "):
                nc.write_splat(target, weights)
            assert not list(Path(folder).iterdir())


@pytest.mark.parametrize("suffix", [".r32", ".exr"])
@given(cells=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 6)), min_size=1, max_size=4),
       bad=st.sampled_from([np.nan, np.inf, -np.inf]))  # fmt: skip
def test_a_heightmap_with_nan_samples_is_refused_by_every_reader(suffix: str, cells: list, bad: float) -> None:
    values = np.full((5, 7), 0.5, np.float32)
    for cell in cells:
        values[cell] = bad
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"nan{suffix}"
        if suffix == ".r32":
            path.write_bytes(values.astype("<f4").tobytes())
            (Path(folder) / "nan.r32.json").write_text(json.dumps({"width": 7, "height": 5}))
        else:
            write_image(path, values)
        with pytest.raises(ValueError, match=r"^path: .* has samples that are not finite"):
            heightmaps.read_heightmap(path)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((np.zeros(9, np.int64), np.arange(8), np.ones(9)), r"^order: must hold one entry per cell \(9\)"),
        ((np.full(9, 9), np.arange(9), np.ones(9)), r"^receivers: every entry must be a cell index"),
        ((np.arange(9), np.full(9, -1), np.ones(9)), r"^order: every entry must be a cell index"),
        ((np.arange(9), np.arange(9), np.full(9, np.nan)), r"^weights: must be finite"),
    ],
)
def test_accumulate_checks_the_indices_its_kernel_trusts(arguments: tuple, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        flow.accumulate(*arguments)


def test_unit_map_refuses_nan_and_unknown_maps() -> None:
    with pytest.raises(ValueError, match=r"^values: the slope map must be finite"):
        maps.unit_map("slope", np.array([[np.nan]]))
    with pytest.raises(ValueError, match=r"^name: "):
        maps.unit_map("slopes", np.zeros((2, 2)))


# --- 6. extreme but allowed values: finite results, or documented limits refused by name ----------------------------

FLOAT32_MAX = float(np.finfo(np.float32).max)
RELIEFS = st.sampled_from([0.0, 1e-300, 1e-30, 1e-6, 1.0, 1e6, 1e30, 1e38, FLOAT32_MAX, 1e39, 1e300])
CELLS = st.one_of(st.sampled_from([1e-300, 1e-30, 1e-10, 1.0, 1e10, 1e30]), st.floats(1e-300, 1e30))


@given(seed=st.integers(0, 2**16), relief=RELIEFS, cell=CELLS, dtype=st.sampled_from([np.float32, np.float64]),
       spike=st.booleans())  # fmt: skip
def test_every_map_is_finite_or_refused_naming_heights_or_cell_size(
    seed: int, relief: float, cell: float, dtype: type, spike: bool
) -> None:
    rng = np.random.default_rng(seed)
    unit = rng.normal(size=(9, 11)).cumsum(axis=1)
    unit /= max(np.abs(unit).max(), 1e-300)
    if spike:
        unit[4, 5] = 1.0 if unit[4, 5] < 0 else -1.0
    with np.errstate(over="ignore"):
        heights = (unit * relief).astype(dtype)
    if not np.isfinite(heights).all():
        return
    try:
        computed = nc.compute_maps(heights, list(maps.MAP_NAMES), cell_size=cell, radius=3, horizon_radius=3,
                                   directions=8)  # fmt: skip
    except ValueError as error:
        assert str(error).split(":")[0] in ("heights", "cell_size", "cell_size, heights"), str(error)
        assert relief > 1e30 or relief / cell > 1e90 or "curvature" in str(error), str(error)
        return
    for name, values in computed.items():
        assert values.dtype == np.float32 and np.isfinite(values).all(), name


@pytest.mark.once_per_run
@given(top=st.sampled_from([np.float32, np.float64]), steps=st.integers(0, 4), pit=st.booleans())
def test_epsilon_filling_near_the_float_maximum_is_finite_or_refused(top: type, steps: int, pit: bool) -> None:
    """A lake whose spill height is the dtype's largest number minus a few steps: the epsilon fill raises its cells
    by one step each towards the outlet, past the largest number when the lake holds more cells than steps."""
    largest = np.finfo(top).max
    heights = np.full((5, 5), largest, dtype=top)
    spill = largest
    for _ in range(steps):
        spill = np.nextafter(spill, top(0))
    heights[0, 2] = spill  # the outlet
    if pit:
        heights[1:4, 1:4] = top(0)
    try:
        filled = nc.fill_depressions(heights, epsilon=True)
    except ValueError as error:
        message = f"heights: filling with epsilon steps raises cells past the largest {top(0).dtype}"
        assert str(error).startswith(message), str(error)
    else:
        assert np.isfinite(filled).all() and filled.dtype == top
    assert np.isfinite(nc.fill_depressions(heights)).all()  # the plain fill never rises above the spill height


@given(seed=st.integers(0, 2**10), exponent=st.sampled_from([0.5, 1.0, flow.MAX_EXPONENT]))
def test_mfd_of_heights_near_the_float64_maximum_is_finite_and_conserves(seed: int, exponent: float) -> None:
    rng = np.random.default_rng(seed)
    heights = rng.uniform(-1.0, 1.0, size=(7, 8)) * np.finfo(np.float64).max
    area = nc.flow_accumulation(heights, method="mfd", exponent=exponent)
    assert np.isfinite(area).all()
    assert area[sinks(heights)].sum() == pytest.approx(heights.size, rel=1e-12)


@given(relief=RELIEFS, cell=st.sampled_from([1e-30, 1e-6, 1.0, 1e15, 1e18, 1e30]), rain=st.sampled_from([None, 1e10]))
def test_fluvial_is_finite_or_refused_up_to_its_largest_cell_size(relief: float, cell: float, rain: float) -> None:
    heights = np.random.default_rng(2).random((12, 12)) * relief
    precipitation = None if rain is None else np.full(heights.shape, rain)
    try:
        result = nc.erode_fluvial(heights, steps=2, dt=1e4, uplift=1e-3, erodibility=2e-5, cell_size=cell,
                                  diffusion=1.0, precipitation=precipitation)  # fmt: skip
    except ValueError as error:
        assert str(error).split(":")[0] in ("heights", "cell_size", "cell_size, precipitation", "uplift"), str(error)
        return
    arrays = (result.heights, result.drainage_area, result.erosion, result.deposition)
    assert all(np.isfinite(a).all() for a in arrays) and np.isfinite([result.eroded, result.deposited]).all()


@given(
    low=st.sampled_from([-1.7e308, -1e300, -1e6, 0.0]),
    high=st.sampled_from([1e-300, 1.0, 1e300, 1.7e308]),
    cell=st.sampled_from([1e-300, 1.0, 1e300]),
    engine=st.sampled_from([None, "unreal", "unity", "godot"]),
)
def test_heightmap_ranges_and_engine_numbers_are_finite_or_refused(low: float, high: float, cell: float, engine):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "h.r16"
        side = {"unreal": 127, "unity": 129}.get(engine, 33)
        values = np.random.default_rng(1).random((side, side)).astype(np.float32)
        try:
            heightmaps.write_heightmap(path, values, height_range=(low, high), unit="m", engine=engine, cell_size=cell)
        except ValueError as error:
            assert str(error).split(":")[0] in ("height_range", "cell_size"), str(error)
            assert not list(Path(folder).iterdir())
            return
        back = heightmaps.read_heightmap(path)
        assert np.isfinite(back.heights).all()
        text = heightmaps.sidecar_path(path).read_text()
        assert "Infinity" not in text and "NaN" not in text


def test_normalize_refuses_heights_whose_span_overflows() -> None:
    with pytest.raises(ValueError, match=r"^heights: they span .* a range beyond float64"):
        heightmaps.normalize(np.array([[-1.7e308, 1.7e308]]))


# --- 3. the erode command: its outputs all or none, distinct, its inputs named -----------------------------------

ERODE_OUTPUTS = ("out", "area-out", "rivers-out", "erosion-out", "deposition-out")


def _run(arguments: list[str]) -> tuple[int, str]:
    """``python -m noise_core`` with ``arguments``: its exit code and what it printed to stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            code = main(arguments)
        except SystemExit as exit_info:
            code = int(exit_info.code or 0)
    return code, err.getvalue()


@pytest.fixture(scope="module")
def hill(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hill") / "hill.exr"
    y, x = np.mgrid[0:14, 0:16] / 16.0
    write_image(path, (0.6 - 0.5 * np.hypot(x - 0.5, y - 0.4)).astype(np.float32))
    return path


@given(
    outputs=st.lists(st.sampled_from(ERODE_OUTPUTS[1:]), unique=True, max_size=4),
    fail_at=st.integers(0, 5),
    old=st.booleans(),
    suffix=st.sampled_from([".exr", ".png", ".tif"]),
)
def test_erode_writes_its_outputs_all_or_none(hill: Path, outputs: list, fail_at: int, old: bool, suffix: str) -> None:
    """A failure writing any output (the ``fail_at``-th) leaves no new file and every old one as it was; the
    error names the outputs' flags."""
    flags = ["out", *sorted(outputs, key=ERODE_OUTPUTS.index)]  # the messages list them in this order
    with tempfile.TemporaryDirectory() as folder:
        paths = {flag: Path(folder) / f"{flag}{suffix}" for flag in flags}
        if old:
            for path in paths.values():
                path.write_bytes(b"old")
        real, calls = erode_cli.write_image, []

        def failing(path, values, bits=16):
            calls.append(path)
            if len(calls) == fail_at + 1:
                raise OSError(28, "No space left on device")
            real(path, values, bits)

        arguments = ["erode", str(hill), "--steps", "2", *(f"--{flag}={paths[flag]}" for flag in flags)]
        with mock.patch.object(erode_cli, "write_image", failing):
            code, err = _run(arguments)
        left = sorted(p.name for p in Path(folder).iterdir())
        if fail_at < len(flags):
            assert code == 2 and f"error: {', '.join('--' + flag for flag in flags)}: cannot write" in err
            assert "none was written" in err
            assert left == (sorted(p.name for p in paths.values()) if old else [])
            assert all(p.read_bytes() == b"old" for p in paths.values() if old)
        else:
            written = [*(p.name for p in paths.values()), f"out{suffix}.json"]  # and the heights' sidecar
            assert code == 0 and left == sorted(written), err
            assert all(p.read_bytes() != b"old" for p in paths.values())


@given(pair=st.lists(st.sampled_from(ERODE_OUTPUTS), min_size=2, max_size=2, unique=True))
def test_erode_refuses_two_outputs_with_one_path_naming_both(hill: Path, pair: list) -> None:
    with tempfile.TemporaryDirectory() as folder:
        same = Path(folder) / "same.exr"
        flags = dict.fromkeys(pair, same)
        if "out" not in flags:
            flags["out"] = Path(folder) / "out.exr"
        code, err = _run(["erode", str(hill), "--steps", "2", *(f"--{flag}={path}" for flag, path in flags.items())])
        first, second = sorted(pair, key=ERODE_OUTPUTS.index)  # checked in this order
        assert code == 2 and f"error: --{second}: '{same}' is also --{first}'s file" in err, err
        assert list(Path(folder).iterdir()) == []


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["{missing}", "--out", "{folder}/o.exr"], "error: input: no such file '{missing}'"),
        (["{hill}", "--out", "{folder}/o.exr", "--uplift-map", "{missing}"], "error: --uplift-map: no such file"),
        (["{hill}", "--out", "{folder}/o.exr", "--outlets-map", "{missing}"], "error: --outlets-map: no such file"),
        (
            ["{hill}", "--out", "{folder}/o.exr", "--area-out", "{bad}/no/a.exr"],
            "error: --area-out: cannot create the folder '{bad}/no'",
        ),  # a file in its place
        (["{bad}", "--out", "{folder}/o.exr"], "error: input: cannot read '{bad}' as 16-bit grayscale PNG"),
        (["{hill}", "--out", "{folder}/o.exr", "--relief", "1e308"], "error: --relief: 1e+308 makes heights up to"),
    ],
)
def test_erode_names_the_input_or_output_at_fault(hill: Path, tmp_path: Path, arguments: list, message: str) -> None:
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"not a png")
    names = {"missing": tmp_path / "missing.exr", "folder": tmp_path, "hill": hill, "bad": bad}
    code, err = _run(["erode", *(argument.format(**names) for argument in arguments)])
    assert code == 2 and message.format(**names) in err and "Traceback" not in err, err
    assert not (tmp_path / "o.exr").exists()


# --- 8. errors name the argument the user gave --------------------------------------------------------------------


@pytest.fixture(scope="module")
def height_image(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("heights") / "h.exr"
    write_image(path, (RAMP / RAMP.max()).astype(np.float32))
    return path


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["{h}", "--maps", "slope", "--out", "{d}/m_{{map}}.exr", "--height-scale", "nan"],
         "error: --height-scale: must be a finite number, got nan"),
        (["{big}", "--maps", "slope", "--out", "{d}/m_{{map}}.exr", "--height-scale", "1e10"],
         "error: --height-scale: 1e+10 makes heights up to 1e+40, beyond float32"),
        (["{h}", "--splat", "{rules}", "--splat-out", "{bad}/no/s.png"],
         "error: --splat-out: cannot create the folder '{bad}/no'"),  # a file in its place
        (["{h}", "--maps", "slope", "--out", "{bad}/no/m_{{map}}.exr"],
         "error: --out: cannot create the folder '{bad}/no'"),
        (["{d}/missing.exr", "--maps", "slope", "--out", "{d}/m_{{map}}.exr"], "error: heights: no such file"),
        (["{bad}", "--maps", "slope", "--out", "{d}/m_{{map}}.exr"], "error: heights: cannot read '{bad}' as"),
    ],
)  # fmt: skip
def test_maps_errors_name_the_argument(height_image: Path, tmp_path: Path, arguments: list, message: str) -> None:
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"\x89PNG broken")
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(SLOPE_LAYERS))
    big = tmp_path / "big.npy"
    np.save(big, np.full((6, 6), 1e30))
    names = {"h": height_image, "d": tmp_path, "bad": bad, "rules": rules, "big": big}
    code, err = _run(["maps", *(argument.format(**names) for argument in arguments)])
    assert code == 2 and message.format(**names) in err and "Traceback" not in err, err
    assert "None" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.png", "big.npy", "rules.json"]


def test_two_outputs_of_maps_on_one_path_name_both(height_image: Path, tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps(SLOPE_LAYERS))
    out = str(tmp_path / "s_{map}.png")  # the slope map would be s_slope.png; the splat s_0.png: apart
    code, err = _run(["maps", str(height_image), "--maps", "slope", "--out", out, "--splat", str(rules),
                      "--splat-out", str(tmp_path / "s.png")])  # fmt: skip
    assert code == 0, err
    code, err = _run(["maps", str(height_image), "--maps", "slope", "--out", str(tmp_path / "x_{map}.png"),
                      "--splat", str(rules), "--splat-out", str(tmp_path / "x_slope.png")])  # fmt: skip
    assert code == 2 and "error: --splat-out: " in err and "is also a file of --out" in err, err


@pytest.mark.parametrize(("suffix", "module"), [(".png", "png"), (".tif", "tifffile"), (".exr", "OpenEXR")])
def test_a_missing_reader_is_reported_as_reading_the_input(
    height_image: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str, module: str
) -> None:
    source = tmp_path / f"in{suffix}"
    write_image(source, np.full((6, 7), 0.5))
    for name in [name for name in sys.modules if name == module or name.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)  # import raises ModuleNotFoundError, as when not installed
    code, err = _run(["erode", str(source), "--out", str(tmp_path / "o.exr" if suffix != ".exr" else "o.tif")])
    assert code == 2 and f"error: input: reading {suffix} files needs the optional package" in err, err
    assert "writing" not in err
    with pytest.raises(ModuleNotFoundError, match=rf"^path: reading \{suffix} files needs"):
        heightmaps.read_heightmap(source)


def test_read_heightmap_names_its_path() -> None:
    with pytest.raises(ValueError, match=r"^path: unsupported heightmap format '.txt'"):
        heightmaps.read_heightmap("h.txt")


def test_fluvial_heights_beyond_float32_are_blamed_on_heights_not_uplift() -> None:
    heights = np.full((5, 5), 1e39)
    heights[2, 2] = 2e39
    with pytest.raises(ValueError, match=r"^heights: values up to 2e\+39 lie beyond float32"):
        nc.erode_fluvial(heights, steps=1, dt=1.0, uplift=0.0, erodibility=1e-5)


# --- 2. grids with cells that are not square -------------------------------------------------------------------------


def _quadratic(rows: int, columns: int, dy: float, dx: float, c: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``z = c0 x + c1 y + c2 x² + c3 xy + c4 y²`` on a grid of rows ``dy`` and columns ``dx`` apart, and x, y."""
    y, x = np.mgrid[0:rows, 0:columns].astype(np.float64)
    x, y = x * dx, y * dy
    return c[0] * x + c[1] * y + c[2] * x * x + c[3] * x * y + c[4] * y * y, x, y


@given(
    dy=st.floats(0.05, 20.0),
    dx=st.floats(0.05, 20.0),
    c=st.tuples(*(st.floats(-2.0, 2.0),) * 2, *(st.floats(-0.05, 0.05),) * 3),
    shape=st.tuples(st.integers(3, 9), st.integers(3, 9)),
)
def test_slope_aspect_and_curvature_use_both_spacings(dy: float, dx: float, c: tuple, shape: tuple) -> None:
    """On a quadratic surface the stencils are exact (the edge rule too), with rows ``dy`` and columns ``dx``
    apart: ``p = c0 + 2 c2 x + c3 y``, ``q = c1 + c3 x + 2 c4 y``, ``r = 2 c2``, ``t = 2 c4``, ``s = c3``."""
    z, x, y = _quadratic(*shape, dy, dx, c)
    p, q = c[0] + 2 * c[2] * x + c[3] * y, c[1] + c[3] * x + 2 * c[4] * y
    r, t, s = 2 * c[2], 2 * c[4], c[3]
    scale = 1.0 + np.abs(z).max() / min(dy, dx)
    np.testing.assert_allclose(nc.slope(z, (dy, dx)), np.degrees(np.arctan(np.hypot(p, q))), atol=2e-4 * scale)
    w = 1 + p * p + q * q
    mean = -((1 + q * q) * r - 2 * p * q * s + (1 + p * p) * t) / (2 * w**1.5)
    np.testing.assert_allclose(nc.curvature(z, (dy, dx)), mean, atol=1e-5 * scale / min(dy, dx) ** 2, rtol=1e-4)
    steep = np.hypot(p, q) > 1e-3
    expected = np.degrees(np.arctan2(-p, -q)) % 360.0
    turn = np.abs((nc.aspect(z, (dy, dx)) - expected + 180.0) % 360.0 - 180.0)
    assert (turn[steep] < 0.05).all()


def test_equal_spacings_are_the_square_cell_size_bit_for_bit() -> None:
    z = np.random.default_rng(3).normal(size=(20, 23)).cumsum(axis=0)
    names = [name for name in maps.MAP_NAMES if name not in ("flow", "wetness")]
    square = nc.compute_maps(z, names, cell_size=0.7, radius=4, horizon_radius=5)
    pair = nc.compute_maps(z, names, cell_size=(0.7, 0.7), radius=4, horizon_radius=5)
    for name in names:
        np.testing.assert_array_equal(pair[name], square[name])


def _bowl(dy: float, dx: float, rows: int, columns: int) -> np.ndarray:
    y = (np.arange(rows) - rows // 2) * dy
    x = (np.arange(columns) - columns // 2) * dx
    return 0.5 * np.hypot(y[:, None], x[None, :])


@pytest.mark.parametrize(("dy", "dx"), [(1.0, 3.0), (3.0, 1.0), (1.0, 2.0)])
def test_openness_and_occlusion_of_a_bowl_on_cells_that_are_not_square(dy: float, dx: float) -> None:
    """The same cone-shaped bowl on 1 x 1 cells and on ``dy x dx`` cells: its openness and occlusion agree (the
    horizons are searched on the ground, along directions evenly spread there); as square cells they did not
    (the bowl looked three times as steep across)."""
    fine = _bowl(1.0, 1.0, 61, 61)
    coarse = _bowl(dy, dx, int(60 / dy) + 1, int(60 / dx) + 1)
    centre = (int(30 / dy), int(30 / dx))
    for name, tolerance in (("openness", 1.0), ("negative_openness", 1.0), ("occlusion", 0.01)):
        options = {"horizon_radius": 24, "directions": 32}
        at_fine = nc.compute_maps(fine, [name], cell_size=1.0, **options)[name][30, 30]
        at_coarse = nc.compute_maps(coarse, [name], cell_size=(dy, dx), **options)[name][centre]
        assert at_coarse == pytest.approx(at_fine, abs=tolerance), name


@pytest.mark.parametrize("name", ["flow", "wetness"])
def test_flow_and_wetness_refuse_cells_that_are_not_square(name: str) -> None:
    with pytest.raises(ValueError, match=r"^cell_size: the flow and wetness maps need square .* dy = 1 .* dx = 2"):
        nc.compute_maps(RAMP, [name], cell_size=(1.0, 2.0))
    with pytest.raises(ValueError, match=r"^cell_size: the wetness index .* need square cells"):
        nc.wetness_index(RAMP, (1.0, 2.0))
    assert nc.compute_maps(RAMP, [name], cell_size=(2.0, 2.0))[name].shape == RAMP.shape


@given(dy=st.floats(0.1, 10.0), dx=st.floats(0.1, 10.0), engine=st.sampled_from([None, "unreal", "unity", "godot"]))
def test_heightmaps_record_both_spacings_and_engines_use_them(dy: float, dx: float, engine) -> None:
    side = {"unreal": 127, "unity": 129}.get(engine, 33)
    values = np.random.default_rng(1).random((side, side)).astype(np.float32)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "h.r16"
        if engine == "godot" and dy != dx:
            with pytest.raises(ValueError, match=r"^cell_size: Godot Terrain3D has one vertex spacing"):
                heightmaps.write_heightmap(path, values, height_range=(0.0, 9.0), engine=engine, cell_size=(dy, dx))
            assert not list(Path(folder).iterdir())
            return
        heightmaps.write_heightmap(path, values, height_range=(0.0, 9.0), engine=engine, cell_size=(dy, dx))
        back = heightmaps.read_heightmap(path)
    assert back.cell_size == (dy, dx) and back.sidecar["cell_size"] == {"x": dx, "y": dy}
    numbers = back.sidecar.get("import", {})
    if engine == "unreal":
        assert numbers["Scale (cm)"][:2] == [dx * 100.0, dy * 100.0]
    elif engine == "unity":
        assert numbers["Terrain Size"][0] == (side - 1) * dx and numbers["Terrain Size"][2] == (side - 1) * dy


def test_the_import_command_keeps_the_recorded_spacings(tmp_path: Path) -> None:
    values = np.random.default_rng(4).random((5, 7)).astype(np.float32)
    heightmaps.write_heightmap(tmp_path / "a.r16", values, height_range=(0.0, 3.0), unit="m", cell_size=(2.0, 0.5))
    code, err = _run(["import", str(tmp_path / "a.r16"), "--out", str(tmp_path / "b.exr")])
    assert code == 0, err
    assert heightmaps.read_heightmap(tmp_path / "b.exr").cell_size == (2.0, 0.5)
