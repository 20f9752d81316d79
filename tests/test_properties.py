"""Property-based tests (hypothesis): every allowed spec gives finite float32 values inside ``value_range``,
the same bits on a second run; every invalid field value gets a ValueError/TypeError naming the field.

The examples are derandomized (the ``ci`` profile in ``conftest.py``) and few per test: each
``(kind, dim, variant, tiled)`` compiles a Numba kernel on first use, which costs more than the examples.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core import gabor, hill, voronoi
from noise_core.registry import KINDS, MAX_OCTAVES, MAX_PERSISTENCE, SEED_MAX, SEED_MIN

# Sweeps every kernel variant: once per run (scripts/run.sh), the golden digests pin the bits on both Pythons.
pytestmark = pytest.mark.once_per_run

LOG10_WEIBULL_BASE = math.log10(20.0 * math.log(2.0))


def _choices(kind: str, name: str) -> tuple[str, ...]:
    option = KINDS[kind].option(name)
    assert option is not None
    return option.choices


KIND_DIMS = [(kind, dim) for kind, info in KINDS.items() for dim in info.dims]


@st.composite
def common_fields(draw: st.DrawFn, kind: str) -> dict:
    """Seed, frequency, octaves, lacunarity, persistence, turbulence and tiling within their documented limits."""
    fields: dict = {
        "seed": draw(st.integers(SEED_MIN, SEED_MAX)),
        "persistence": draw(st.floats(0.0, MAX_PERSISTENCE)),
        "turbulence": draw(st.booleans()),
    }
    octaves = 1 if kind == "hill" else draw(st.integers(1, MAX_OCTAVES))
    if KINDS[kind].tiling and draw(st.booleans()):
        frequency, lacunarity = float(draw(st.integers(1, 64))), float(draw(st.integers(1, 4)))
        fields["tiling"] = True
    else:
        frequency = 2.0 ** draw(st.floats(-20.0, 24.0))
        lacunarity = 2.0 ** draw(st.floats(-4.0, 4.0))
    # keep frequency x lacunarity^(octaves-1) below 2^31, the documented lattice limit
    while octaves > 1 and math.log2(frequency) + (octaves - 1) * max(0.0, math.log2(lacunarity)) >= 30.0:
        octaves -= 1
    fields.update(frequency=frequency, lacunarity=lacunarity, octaves=octaves)
    return fields


@st.composite
def weibull_fields(draw: st.DrawFn) -> dict:
    """alpha and beta with alpha * (20 ln 2)^(1/beta) <= 1e38, the documented Weibull limit."""
    beta = draw(st.floats(0.017, 1e3))
    highest = min(math.log10(hill.WEIBULL_ALPHA_MAX), math.log10(hill.WEIBULL_MAX_VALUE) - LOG10_WEIBULL_BASE / beta)
    highest -= 1e-9  # 10.0 ** x rounds; stay a hair inside the exactly checked limit
    assume(highest >= math.log10(hill.WEIBULL_ALPHA_MIN))
    log_alpha = draw(st.floats(math.log10(hill.WEIBULL_ALPHA_MIN), highest))
    return {"alpha": min(max(10.0**log_alpha, hill.WEIBULL_ALPHA_MIN), hill.WEIBULL_ALPHA_MAX), "beta": beta}


@st.composite
def hill_sizes(draw: st.DrawFn) -> tuple[float, ...]:
    """1..256 sizes in [1e-100, 1e100] spread at most 1e12."""
    # a hair inside the limits: 10.0 ** x rounds, and the limits are checked exactly
    smallest = draw(st.floats(-99.99, 100.0 - 12.0))
    logs = draw(st.lists(st.floats(0.0, 11.99), min_size=1, max_size=hill.MAX_SINES))
    return tuple(10.0 ** (smallest + log) for log in logs)


@st.composite
def option_fields(draw: st.DrawFn, kind: str, tiled: bool) -> dict:
    """The kind's own options within their documented limits."""
    if kind == "voronoi":
        fields = {
            "distance": draw(st.sampled_from(_choices("voronoi", "distance"))),
            "function": draw(st.sampled_from(_choices("voronoi", "function"))),
            "jitter": draw(st.floats(0.0, 1.0)),
        }
        if fields["function"] in voronoi.EUCLIDEAN_ONLY:
            fields["distance"] = "worley"
        if fields["distance"] == "minkowski":
            fields["exponent"] = draw(st.floats(0.0, voronoi.MAX_EXPONENT, exclude_min=True))
        if fields["function"] == "smooth_f1":
            fields["smoothing"] = draw(st.floats(0.0, 1.0))
        return fields
    if kind == "gabor":
        return {
            "gabor_frequency": draw(st.floats(0.0, gabor.MAX_GABOR_FREQUENCY, exclude_min=True)),
            "anisotropy": draw(st.floats(0.0, 1.0)),
            "orientation": draw(st.floats(-1000.0, 1000.0)),
            "orientation_3d": draw(st.none() | st.tuples(*[st.floats(-1e3, 1e3)] * 3).filter(any)),
            "output": draw(st.sampled_from(_choices("gabor", "output"))),
        }
    if kind == "cellular":
        # Tiled, only the default metric: the wrap happens before hashing, whatever the metric, and every
        # (metric, tiled) pair is a cellular kernel of its own that takes 15-20 s to compile.
        return {
            "distance": draw(st.sampled_from(("euclidean",) if tiled else _choices("cellular", "distance"))),
            "function": draw(st.sampled_from(_choices("cellular", "function"))),
            "density": draw(st.floats(0.0, 16.0, exclude_min=True)),
        }
    if kind != "hill":
        return {}
    fields: dict = {"distribution": draw(st.sampled_from(_choices("hill", "distribution")))}
    if draw(st.booleans()):
        fields["sizes"] = draw(hill_sizes())
    else:
        fields["smoothness"] = draw(st.floats(hill.SMOOTHNESS_MIN, hill.SMOOTHNESS_MAX))
        fields["sines"] = draw(st.integers(1, hill.MAX_SINES))
    if fields["distribution"] == "weibull":
        fields.update(draw(weibull_fields()))
    return fields


@st.composite
def points_for(draw: st.DrawFn, spec: nc.NoiseSpec, dim: int) -> np.ndarray:
    """Up to 64 points within the lattice limit (|coordinate x highest frequency| < 2^31), float32 or float64."""
    limit = 2.0**31 / spec.highest_frequency
    extent = 10.0 ** draw(st.floats(-3.0, math.log10(limit) - 0.01))
    count = draw(st.integers(1, 64))
    generator = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    points = generator.uniform(-extent, extent, size=(count, dim))
    points[0] = draw(st.lists(st.floats(-extent, extent), min_size=dim, max_size=dim))
    if count > 1:  # a lattice point of the first octave
        points[1] = np.round(points[1] * spec.frequency) / spec.frequency
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    return points.astype(dtype)


@pytest.mark.parametrize(("kind", "dim"), KIND_DIMS)
@settings(max_examples=20)
@given(data=st.data())
def test_allowed_specs_give_finite_float32_in_range_and_repeatable(kind: str, dim: int, data: st.DataObject) -> None:
    fields = data.draw(common_fields(kind))
    fields.update(data.draw(option_fields(kind, fields.get("tiling", False))))
    spec = nc.NoiseSpec(kind=kind, **fields)
    points = data.draw(points_for(spec, dim))
    values = nc.evaluate(spec, points)
    assert values.dtype == np.float32 and values.shape == (points.shape[0],)
    assert np.isfinite(values).all()
    low, high = nc.value_range(spec)
    assert math.isfinite(low) and math.isfinite(high)
    assert low <= values.min() and values.max() <= high, (values.min(), values.max(), low, high)
    assert np.array_equal(values.view(np.uint32), nc.evaluate(spec, points).view(np.uint32))


# Invalid values of every field, with the kind it applies to (other fields at their defaults).
HUGE = 10**400
NOT_NUMBERS = st.sampled_from(["4", None, True, False, [], (1.0,), np.array([1.0]), np.bool_(True), 1j])
NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf, HUGE, -HUGE])


def _invalid(field: str, kind: str, values: st.SearchStrategy) -> st.SearchStrategy:
    return st.tuples(st.just(field), st.just(kind), values)


INVALID = st.one_of(
    _invalid("seed", "perlin", st.one_of(st.integers(max_value=SEED_MIN - 1), st.integers(SEED_MAX + 1))),
    _invalid("seed", "perlin", st.sampled_from([1.5, "0", None, True, HUGE])),
    _invalid("frequency", "perlin", st.one_of(st.floats(max_value=0.0), NON_FINITE, NOT_NUMBERS)),
    _invalid("frequency", "perlin", st.floats(2.0**31, 1e308)),
    _invalid("octaves", "perlin", st.one_of(st.integers(max_value=0), st.integers(MAX_OCTAVES + 1))),
    _invalid("octaves", "perlin", st.sampled_from([2.0, "3", None, True])),
    _invalid("lacunarity", "perlin", st.one_of(st.floats(max_value=0.0), NON_FINITE, NOT_NUMBERS)),
    _invalid("persistence", "perlin", st.one_of(st.floats(max_value=-1e-300), st.floats(100.0, exclude_min=True))),
    _invalid("persistence", "perlin", st.one_of(NON_FINITE, NOT_NUMBERS)),
    _invalid("turbulence", "perlin", st.sampled_from([0, 1, "True", None, np.bool_(True), 1.0])),
    _invalid("tiling", "perlin", st.sampled_from([0, 1, "yes", None, [], 1.0])),
    _invalid("tiling", "simplex", st.just(True)),
    _invalid("distance", "voronoi", st.one_of(st.text(max_size=12), st.sampled_from([0, False, [], 1.0]))),
    _invalid("distance", "cellular", st.sampled_from(["worley", "", 0, False, [], np.array(["euclidean"])])),
    _invalid("function", "voronoi", st.sampled_from(["f3", "", 0, False, [], np.array(["f1"])])),
    _invalid("function", "cellular", st.sampled_from(["cell", "F1", 0, False, ()])),
    _invalid("jitter", "voronoi", st.one_of(st.floats(max_value=-1e-300), st.floats(1.0, exclude_min=True))),
    _invalid("jitter", "voronoi", st.one_of(NON_FINITE, NOT_NUMBERS)),
    _invalid("density", "cellular", st.one_of(st.floats(max_value=0.0), st.floats(16.0, exclude_min=True))),
    _invalid("density", "cellular", st.one_of(NON_FINITE, NOT_NUMBERS)),
    _invalid("smoothness", "hill", st.one_of(st.floats(max_value=0.000999), st.floats(1000.001))),
    _invalid("smoothness", "hill", st.one_of(NON_FINITE, NOT_NUMBERS)),
    _invalid("sines", "hill", st.one_of(st.integers(max_value=0), st.integers(hill.MAX_SINES + 1))),
    _invalid("sines", "hill", st.sampled_from([2.5, "12", True, None])),
    _invalid("sizes", "hill", st.lists(st.floats(max_value=0.0), min_size=1, max_size=4)),
    _invalid("sizes", "hill", st.lists(st.floats(1e100, exclude_min=True), min_size=1, max_size=4)),
    _invalid("sizes", "hill", st.lists(st.floats(0.0, 1e-100, exclude_min=True, exclude_max=True), min_size=1)),
    _invalid("sizes", "hill", st.sampled_from([(1.0, 1e13), (), (1.0,) * 257, "12", 3.0, (1.0, HUGE), (True,)])),
    _invalid("distribution", "hill", st.one_of(st.text(max_size=10), st.sampled_from([0, False, None, []]))),
    _invalid("alpha", "hill", st.sampled_from([2.0, 0.0, -1.0])),
    _invalid("beta", "hill", st.sampled_from([0.5, 0.0, math.nan])),
)


@settings(max_examples=150)
@given(case=INVALID)
def test_invalid_values_name_their_field(case: tuple[str, str, object]) -> None:
    field, kind, value = case
    if field == "distribution":
        assume(value not in _choices("hill", "distribution"))
    if field == "distance" and kind == "voronoi":
        assume(value not in _choices("voronoi", "distance"))
    with pytest.raises((ValueError, TypeError)) as raised:
        nc.NoiseSpec(kind=kind, **{field: value})
    assert str(raised.value).startswith(field), str(raised.value)


@st.composite
def weibull_beyond_float32(draw: st.DrawFn) -> dict:
    """alpha in its range but beta so small that alpha * (20 ln 2)^(1/beta) > 1e38."""
    log_alpha = draw(st.floats(math.log10(hill.WEIBULL_ALPHA_MIN), math.log10(hill.WEIBULL_ALPHA_MAX)))
    smallest_beta = LOG10_WEIBULL_BASE / (math.log10(hill.WEIBULL_MAX_VALUE) - log_alpha)
    beta = draw(st.floats(0.0, smallest_beta * 0.999, exclude_min=True))
    return {"alpha": min(max(10.0**log_alpha, hill.WEIBULL_ALPHA_MIN), hill.WEIBULL_ALPHA_MAX), "beta": beta}


@settings(max_examples=40)
@given(
    fields=weibull_beyond_float32(),
    alpha=st.one_of(st.floats(1e30, exclude_min=True), st.floats(0.0, 1e-30, exclude_min=True, exclude_max=True)),
)
def test_weibull_beyond_float32_is_rejected(fields: dict, alpha: float) -> None:
    with pytest.raises(ValueError, match=r"^beta: the largest Weibull value .* must be at least"):
        nc.NoiseSpec(kind="hill", distribution="weibull", **fields)
    assume(alpha < math.inf)
    with pytest.raises(ValueError, match=r"^alpha: must be between 1e-30 and 1e\+30"):
        nc.NoiseSpec(kind="hill", distribution="weibull", alpha=alpha)


@pytest.mark.parametrize("kind", ["value", "perlin", "simplex", "simplex_value", "voronoi", "cellular", "hill"])
@settings(max_examples=10)
@given(
    field=st.sampled_from(["distance", "function", "jitter", "density", "smoothness", "sines", "sizes"]),
    value=st.sampled_from([0, "", False, True, [], (1.0,), "worley", 0.5, 2, np.array([1.0, 2.0])]),
)
def test_foreign_options_are_rejected(kind: str, field: str, value: object) -> None:
    """Options of other kinds, even falsy values or a bool equal to the default, are errors naming the field."""
    assume(KINDS[kind].option(field) is None)
    with pytest.raises(ValueError, match=rf"^{field}: not an option of kind {kind!r}"):
        nc.NoiseSpec(kind=kind, **{field: value})
