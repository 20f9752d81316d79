"""Variety at every scale (issue 49, ``terrain.variety``): rock variety over kilometres (``rock_field``, the river
stage's ``rock_variety``) and rock detail on the slopes (``rock_detail``)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noise_core.terrain.fluvial import erode_fluvial
from noise_core.terrain.recipe import RIVER_OPTIONS, Stage
from noise_core.terrain.variety import (
    CHANNEL_AREA,
    LACUNARITY,
    SIMPLEX_STD,
    STREAK_SAMPLES,
    VARIETY_OPTIONS,
    rock_detail,
    rock_field,
    streak_reach,
)

from .stages import short_rivers


def _plane(size: int, slope: float, angle: float = 0.3) -> np.ndarray:
    y, x = np.mgrid[0:size, 0:size].astype(np.float64)
    return slope * (x * np.cos(angle) + y * np.sin(angle))


def _harmonic(maps: list[np.ndarray], k: int, where: np.ndarray) -> float:
    """The ``k``-fold harmonic of the gradient directions (Horn's stencil) weighted by the gradient, over the
    cells ``where`` of all ``maps`` together."""
    total, weights = 0.0, 0.0
    for values in maps:
        z = np.pad(values, 1, mode="edge")
        p = (z[:-2, 2:] + 2 * z[1:-1, 2:] + z[2:, 2:]) - (z[:-2, :-2] + 2 * z[1:-1, :-2] + z[2:, :-2])
        q = (z[2:, :-2] + 2 * z[2:, 1:-1] + z[2:, 2:]) - (z[:-2, :-2] + 2 * z[:-2, 1:-1] + z[:-2, 2:])
        weight = np.hypot(p, q)[where]
        total += (weight * np.exp(1j * k * np.arctan2(q, p)[where])).sum()
        weights += weight.sum()
    return float(abs(total) / weights)


def test_no_detail_on_flats() -> None:
    """Flat ground (slope 0: valley floors, lakes) is untouched, bit for bit, and amplitude 0 changes nothing."""
    flat = np.full((40, 40), 12.5)
    assert np.array_equal(rock_detail(flat, amplitude=50.0, wavelength=8.0), flat)
    plane = _plane(40, 0.4)
    assert np.array_equal(rock_detail(plane, amplitude=0.0, wavelength=8.0), plane)
    floor = plane.copy()
    floor[10:30, 10:30] = 3.0
    detail = rock_detail(floor, amplitude=50.0, wavelength=8.0) - floor
    assert np.all(detail[11:29, 11:29] == 0.0) and np.abs(detail[:8]).max() > 0.1


def test_amplitude_scales_with_the_slope_and_the_setting() -> None:
    """``a·min(S, 1)²·n``: on a plane of slope ``S`` (the isotropic stencil is exact on a plane; the streaks run
    along its one direction whatever ``S``) the detail is linear in ``a`` and grows as ``S²`` up to 1, and no
    larger beyond; ``n`` has unit standard deviation over the map."""
    size = 160

    def detail(slope: float, amplitude: float) -> np.ndarray:
        plane = _plane(size, slope)
        return (rock_detail(plane, amplitude=amplitude, wavelength=12.0, seed=4) - plane)[1:-1, 1:-1]

    base = detail(0.25, 10.0)
    np.testing.assert_allclose(detail(0.25, 30.0), 3.0 * base, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(detail(0.5, 10.0), 4.0 * base, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(detail(1.0, 10.0), 16.0 * base, rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(detail(3.0, 10.0), 16.0 * base, rtol=1e-6, atol=1e-5)
    assert 0.9 < detail(1.0, 1.0).std() < 1.1


def test_streaks_run_down_the_slope() -> None:
    """The texture is streaked along the gradient: on a plane falling along x its values change less along x
    (down the slope) than along y (across it), and turned by 90° the other way round."""
    along_x = rock_detail(_plane(96, 0.8, 0.0), amplitude=1.0, wavelength=6.0) - _plane(96, 0.8, 0.0)
    along_y = rock_detail(_plane(96, 0.8, np.pi / 2), amplitude=1.0, wavelength=6.0) - _plane(96, 0.8, np.pi / 2)
    for field, down, across in ((along_x, 1, 0), (along_y, 0, 1)):
        inner = field[8:-8, 8:-8]
        assert np.abs(np.diff(inner, axis=down)).mean() < 0.5 * np.abs(np.diff(inner, axis=across)).mean()


def test_channels_keep_their_beds() -> None:
    """With the drainage area ``A`` the detail is times ``CHANNEL_AREA / (CHANNEL_AREA + A)`` blurred twice by the
    binomial 3 x 3 kernel: exactly that share of the detail without it, so a big river's bed is left nearly
    alone."""
    plane = _plane(48, 0.6)
    area = np.ones((48, 48))
    area[20:28, :] = 1e6
    free = rock_detail(plane, amplitude=40.0, wavelength=8.0, seed=3) - plane
    kept = rock_detail(plane, amplitude=40.0, wavelength=8.0, seed=3, area=area) - plane
    share = CHANNEL_AREA / (CHANNEL_AREA + area)
    for _ in range(2):
        padded = np.pad(share, 1, mode="edge")
        share = sum(
            weight * padded[1 + dy : 49 + dy, 1 + dx : 49 + dx]
            for dy, dx, weight in [(y, x, (2 - abs(y)) * (2 - abs(x)) / 16) for y in (-1, 0, 1) for x in (-1, 0, 1)]
        )
    np.testing.assert_allclose(kept, free * share, rtol=1e-12, atol=1e-12)
    assert np.abs(kept[22:26]).max() < 1e-3 * np.abs(free).max()
    np.testing.assert_allclose(kept[:16], free[:16] * CHANNEL_AREA / (CHANNEL_AREA + 1.0), rtol=1e-12, atol=1e-12)


def test_octaves_finer_than_two_cells_fade_out() -> None:
    """At a wavelength of 2 cells or less no octave is left: the detail is 0, not aliased white noise."""
    plane = _plane(48, 0.6)
    assert np.array_equal(rock_detail(plane, amplitude=40.0, wavelength=2.0), plane)
    assert np.abs(rock_detail(plane, amplitude=40.0, wavelength=2.0 * LACUNARITY + 0.5) - plane).max() > 0.0


def test_no_grid_in_the_directions() -> None:
    """The texture (on a cone: streaks in every direction; over a disc, so no direction has more cells) and the
    rock field have no square symmetry: the 8-fold harmonic of their gradient directions (Horn's, as
    ``geomorphometry``'s), over four seeds, stays under the 0.02 of issue 49's rule (the real tiles': 0.002-0.009;
    a D8 herringbone: 0.04-0.12), the 4-fold under the real tiles' largest, 0.047 (noise a few cells long has a
    4-fold of about 0.035 on a square grid: the stencil's)."""
    y, x = np.mgrid[0:200, 0:200] - 99.5
    radius = np.hypot(x, y)
    disc = (radius < 95.0) & (radius > 4.0)
    cone = -1.5 * radius
    textures = [rock_detail(cone, amplitude=1.0, wavelength=6.0, seed=seed) - cone for seed in range(4)]
    fields = [rock_field((200, 200), scale=0.06, seed=seed) for seed in range(4)]
    for values in (textures, fields):
        assert _harmonic(values, 4, disc) < 0.047 and _harmonic(values, 8, disc) < 0.02


def test_same_field_at_every_size() -> None:
    """The rock field is read at the cells' positions in map units: a grid twice as fine holds the same values at
    every other cell while no octave fades."""
    coarse = rock_field((33, 33), scale=0.4, seed=5)
    np.testing.assert_allclose(rock_field((65, 65), scale=0.4, seed=5)[::2, ::2], coarse, atol=1e-6)
    assert 0.3 < coarse.std() < 2.0


@settings(max_examples=30, deadline=None)
@given(
    st.integers(3, 24),
    st.integers(3, 24),
    st.floats(0.0, 1e3),
    st.floats(0.5, 100.0),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(0, 2**32 - 1),
)
def test_detail_is_bounded(rows: int, columns: int, amplitude: float, wavelength: float, seed: int, data: int) -> None:
    """On any heights the detail is finite and at most ``a`` times the noise's bound (each octave's simplex value
    is within ±1; the streaks average it, and are divided by at least their weights' ``sqrt(Σw²)/Σw``)."""
    heights = np.random.default_rng(data).normal(0.0, 5.0, (rows, columns))
    change = rock_detail(heights, amplitude=amplitude, wavelength=wavelength, seed=seed) - heights
    weights = LACUNARITY ** -np.arange(4.0)
    samples = min(streak_reach(wavelength, 1.0), STREAK_SAMPLES)
    streak = 1.0 - np.abs(np.arange(-samples, samples + 1)) / (samples + 1.0)
    floor = np.sqrt((streak**2).sum()) / streak.sum()
    bound = amplitude * weights.sum() / (SIMPLEX_STD * np.sqrt((weights**2).sum())) / floor
    assert np.isfinite(change).all() and np.abs(change).max() <= bound * (1 + 1e-9) + 1e-9


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: rock_detail(np.zeros((4, 4)), amplitude=-1.0), ValueError, "^amplitude: must be"),
        (lambda: rock_detail(np.zeros((4, 4)), amplitude=1.0, wavelength=0.0), ValueError, "^wavelength: must be"),
        (lambda: rock_detail(np.zeros((4, 4)), amplitude=1.0, seed=1.5), TypeError, "^seed: expected"),
        (lambda: rock_detail([[1.0]], amplitude=1.0), TypeError, "^heights: expected"),
        (lambda: rock_detail(np.zeros((4, 4)), amplitude=1.0, area=np.ones((3, 4))), ValueError, "^area: must have"),
        (lambda: rock_detail(np.zeros((4, 4)), amplitude=1.0, area=-np.ones((4, 4))), ValueError, "^area: must be"),
        (lambda: rock_field((4, 4), scale=0.0), ValueError, "^scale: must be"),
        (lambda: rock_field((4,), scale=0.5), ValueError, r"^shape: expected \(rows, columns\)"),
        (lambda: Stage.of("rivers", {"rock_variety": 5.0}), ValueError, r"^stage\.rock_variety: must be between 0"),
        (lambda: Stage.of("rivers", {"rock_detail": -2.0}), ValueError, r"^stage\.rock_detail: must be"),
    ],
)
def test_errors_name_the_argument(call, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()


def test_weak_rock_stands_lower() -> None:
    """The rock field as erodibility on the stream power law: at steady state a range stands ``∝ (U/K)^(1/n)``
    high, so with ``K·exp(s·z)`` alone the heights fall where ``z`` is high (weak rock) and rise where it is low
    (why the river stage scales the uplift with it: docs/landscape.md)."""
    z = rock_field((32, 32), scale=0.6, seed=1)
    result = erode_fluvial(np.zeros((32, 32)), steps=60, dt=2000.0, uplift=1e-3, erodibility=1e-4 * np.exp(1.5 * z),
                           m=0.5)  # fmt: skip
    inner = (slice(4, -4), slice(4, -4))
    assert np.corrcoef(z[inner].ravel(), result.heights[inner].ravel())[0, 1] < -0.3


def test_the_rows_reach_the_river_stage() -> None:
    """The rows are the river stage's (so recipe, CLI, add-on and presets take them): a short River Valleys stage
    on a 33² grid changes with rock variety and with rock detail, and rock detail only adds the texture."""
    assert {option.name for option in VARIETY_OPTIONS} <= {option.name for option in RIVER_OPTIONS}
    built = short_rivers("river_valleys")
    plain = built()
    assert not np.allclose(built(rock_variety=1.5), plain)
    textured = built(rock_detail=200.0, rock_detail_scale=8000.0)
    assert 0.0 < np.abs(textured - plain).max() < 200.0 * 2.5


def test_the_field_at_its_defaults_is_todays() -> None:
    """``rock_field`` with the new rows at their defaults is the field of before them, bit for bit (its digest,
    taken before ``octaves``, ``contrast``, ``strike`` and ``stretch``), and a stretch of 1 ignores the strike."""
    z = rock_field((33, 33), scale=0.4, seed=5)
    assert hashlib.sha256(z.tobytes()).hexdigest()[:16] == "1497100f654abb2e"
    same = rock_field((33, 33), scale=0.4, seed=5, octaves=2, contrast=0.0, strike=37.0, stretch=1.0)
    assert np.array_equal(same, z)


def _half_lag(z: np.ndarray, axis: int) -> float:
    """The lag (cells, interpolated) at which the autocorrelation of ``z`` along ``axis`` falls to 1/2."""
    z = (z - z.mean()) / z.std()
    values = [1.0] + [float((np.take(z, range(lag, z.shape[axis]), axis) * np.take(z, range(z.shape[axis] - lag),
                                                                                      axis)).mean())
                      for lag in range(1, z.shape[axis] // 2)]  # fmt: skip
    below = next(lag for lag, value in enumerate(values) if value < 0.5)
    return below - 1 + (values[below - 1] - 0.5) / (values[below - 1] - values[below])


@pytest.mark.parametrize(("strike", "along"), [(0.0, 1), (90.0, 0)])
def test_the_units_are_stretched_along_the_strike(strike: float, along: int) -> None:
    """With ``stretch`` ``a`` the field is an isotropic one read at ``(u / a, v)``: its correlation length along
    the strike (columns for 0°, rows for 90°) is ``a`` times the one across it (within the sampling's 15 %), and
    ``a`` = 1 gives the same length both ways."""
    fields = [rock_field((240, 240), scale=0.05, seed=seed, strike=strike, stretch=3.0) for seed in range(3)]
    ratio = np.mean([_half_lag(z, along) / _half_lag(z, 1 - along) for z in fields])
    assert 3.0 * 0.85 < ratio < 3.0 * 1.15
    round_fields = [rock_field((240, 240), scale=0.05, seed=seed) for seed in range(3)]
    assert 0.85 < np.mean([_half_lag(z, 1) / _half_lag(z, 0) for z in round_fields]) < 1.15


def test_contrast_sharpens_the_field_into_units() -> None:
    """``contrast`` ``c`` maps ``z`` to ``tanh(c·z) / tanh(c)`` exactly: more of the map lies near ±1 (inside a
    unit) and less near 0 (on a contact), and no value passes ``1 / tanh(c)``."""
    z = rock_field((96, 96), scale=0.3, seed=2, octaves=5)
    sharp = rock_field((96, 96), scale=0.3, seed=2, octaves=5, contrast=4.0)
    np.testing.assert_allclose(sharp, np.tanh(4.0 * z) / np.tanh(4.0), rtol=0.0, atol=1e-15)
    assert np.mean(np.abs(sharp) > 0.8) > np.mean(np.abs(z) > 0.8) + 0.3
    assert np.mean(np.abs(sharp) < 0.2) < 0.5 * np.mean(np.abs(z) < 0.2)
    assert np.abs(sharp).max() <= 1.0 / np.tanh(4.0)


def test_more_octaves_give_ragged_outlines() -> None:
    """More octaves add finer, weaker noise: the outline of the units (the cells where ``z`` changes sign) grows
    longer, while the field keeps unit standard deviation."""
    contacts = []
    for octaves in (2, 6):
        z = rock_field((200, 200), scale=0.3, seed=4, octaves=octaves)
        assert 0.6 < z.std() < 1.4
        sign = z > 0
        contacts.append(int((sign[1:] != sign[:-1]).sum() + (sign[:, 1:] != sign[:, :-1]).sum()))
    assert contacts[1] > 1.2 * contacts[0]


def test_one_diffusivity_as_a_map_is_the_number() -> None:
    """A diffusivity map of one value gives the same landscape as the number (to rounding: the map takes the
    conservative flux form of the same 9-point stencil) with random routing and with nonlinear hillslopes; with
    D8 routing a map diffuses by that explicit 9-point scheme too (the number by the implicit split one): without
    incision, where the routing decides nothing, the same landscape as the number with random routing."""
    start = np.random.default_rng(3).uniform(0.0, 5.0, (24, 24))
    common = {"steps": 30, "dt": 100.0, "uplift": 1e-3, "cell_size": 1.0}
    for extra in ({"erodibility": 1e-3, "routing": "random"}, {"erodibility": 1e-3, "critical_slope": 0.6}):
        number = erode_fluvial(start, diffusion=2e-3, **common, **extra).heights
        mapped = erode_fluvial(start, diffusion=np.full((24, 24), 2e-3), **common, **extra).heights
        np.testing.assert_allclose(mapped, number, rtol=1e-5, atol=1e-5)
    steady = {**common, "steps": 40, "dt": 1000.0, "erodibility": 0.0}
    number = erode_fluvial(np.zeros((24, 24)), diffusion=0.02, routing="random", **steady).heights
    mapped = erode_fluvial(np.zeros((24, 24)), diffusion=np.full((24, 24), 0.02), **steady).heights
    np.testing.assert_allclose(mapped, number, rtol=1e-5, atol=1e-5)
    assert mapped.max() > 1.0


def test_steady_hillslopes_stand_as_uplift_over_diffusivity() -> None:
    """Without incision a hillslope under uplift ``U`` settles to ``∇·(D∇h) = -U``: a map of ``D`` everywhere
    twice as large halves every height (plus the ``U·dt/2`` the steps' split leaves), and with ``D`` four times
    larger on one half of the map the crest stands in the other half, and the flux ``D·S`` carries on across the
    contact: the slope is about four times gentler beyond it."""
    steady = {"steps": 200, "dt": 150.0, "uplift": 1e-3, "erodibility": 0.0}  # a map: the explicit scheme
    one = erode_fluvial(np.zeros((20, 41)), diffusion=np.full((20, 41), 0.02), **steady).heights
    twice = erode_fluvial(np.zeros((20, 41)), diffusion=np.full((20, 41), 0.04), **steady).heights
    lift = 0.5 * 1e-3 * 150.0  # each step lifts by U·dt, then diffuses: the heights stand about U·dt/2 lower
    assert twice.max() + lift == pytest.approx((one.max() + lift) / 2.0, rel=1e-3)  # the crest: the slowest mode
    split = np.full((20, 41), 0.02)
    split[:, 21:] = 0.08
    halves = erode_fluvial(np.zeros((20, 41)), diffusion=split, **steady).heights
    middle = halves[10]
    assert np.argmax(middle) < 20 and halves.max() < 0.8 * one.max()
    assert 3.0 < (middle[19] - middle[20]) / (middle[21] - middle[22]) < 5.0  # D·S carries on across the contact


def test_the_diffusivity_map_reaches_the_river_stage() -> None:
    """``rock_variety_diffusion`` 0 keeps the one diffusivity (the landscape of before it, bit for bit, as do the
    other new rows at their defaults), and above 0 changes the landscape, as the outline rows do."""
    names = ("octaves", "contrast", "strike", "stretch", "diffusion")
    built = short_rivers("eroded_canyon", defaults=tuple(f"rock_variety_{name}" for name in names))
    plain = built()
    defaults = {"rock_variety_diffusion": 0.0, "rock_variety_contrast": 0.0, "rock_variety_stretch": 1.0,
                "rock_variety_strike": 45.0, "rock_variety_octaves": 2}  # fmt: skip
    assert np.array_equal(built(**defaults), plain)
    for changes in ({"rock_variety_diffusion": 1.0}, {"rock_variety_contrast": 3.0}, {"rock_variety_octaves": 5},
                    {"rock_variety_stretch": 3.0, "rock_variety_strike": 30.0}):  # fmt: skip
        assert not np.allclose(built(**changes), plain)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: rock_field((4, 4), scale=0.3, octaves=0), ValueError, "^octaves: must be"),
        (lambda: rock_field((4, 4), scale=0.3, octaves=2.5), TypeError, "^octaves: "),
        (lambda: rock_field((4, 4), scale=0.3, contrast=-1.0), ValueError, "^contrast: must be"),
        (lambda: rock_field((4, 4), scale=0.3, strike=400.0), ValueError, "^strike: must be"),
        (lambda: rock_field((4, 4), scale=0.3, stretch=0.5), ValueError, "^stretch: must be"),
        (lambda: Stage.of("rivers", {"rock_variety_octaves": 9}), ValueError, r"^stage\.rock_variety_octaves: "),
        (lambda: Stage.of("rivers", {"rock_variety_contrast": 30.0}), ValueError, r"^stage\.rock_variety_contrast"),
        (lambda: Stage.of("rivers", {"rock_variety_strike": -500.0}), ValueError, r"^stage\.rock_variety_strike"),
        (lambda: Stage.of("rivers", {"rock_variety_stretch": 0.0}), ValueError, r"^stage\.rock_variety_stretch"),
        (lambda: Stage.of("rivers", {"rock_variety_diffusion": 4.0}), ValueError, r"^stage\.rock_variety_diffusion"),
        (lambda: erode_fluvial(np.zeros((4, 4)), steps=1, dt=1.0, uplift=0.0, erodibility=0.0,
                               diffusion=-np.ones((4, 4))), ValueError, "^diffusion: must be >= 0"),
        (lambda: erode_fluvial(np.zeros((4, 4)), steps=1, dt=1.0, uplift=0.0, erodibility=0.0,
                               diffusion=np.ones((3, 4))), ValueError, "^diffusion: must have"),
        (lambda: erode_fluvial(np.zeros((8, 8)), steps=1, dt=1e4, uplift=0.0, erodibility=0.0,
                               diffusion=np.ones((8, 8))), ValueError, "^diffusion: with a diffusivity map"),
    ],
)  # fmt: skip
def test_new_errors_name_the_option(call, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 20),
    st.integers(2, 20),
    st.integers(1, 8),
    st.floats(0.0, 20.0),
    st.floats(-360.0, 360.0),
    st.floats(1.0, 20.0),
    st.floats(0.01, 10.0),
    st.integers(-(2**31), 2**31 - 1),
)
def test_any_field_is_finite_and_bounded(
    rows: int, columns: int, octaves: int, contrast: float, strike: float, stretch: float, scale: float, seed: int
) -> None:
    """Any shape, octaves, contrast, strike, stretch, scale and seed: a finite field, within ``1 / tanh(c)`` with a
    contrast (each octave's simplex value is within ±1 without)."""
    z = rock_field((rows, columns), scale=scale, seed=seed, octaves=octaves, contrast=contrast, strike=strike,
                   stretch=stretch)  # fmt: skip
    weights = LACUNARITY ** -np.arange(float(octaves))
    bound = 1.0 / np.tanh(contrast) if contrast > 0.0 else weights.sum() / (SIMPLEX_STD * np.sqrt((weights**2).sum()))
    assert z.shape == (rows, columns) and np.isfinite(z).all() and np.abs(z).max() <= bound * (1 + 1e-12)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["d8", "random"]), st.floats(0.0, 1.0))
def test_any_diffusivity_map_keeps_the_landscape_finite(data: int, routing: str, critical: float) -> None:
    """Any diffusivity map (zeros, spikes, smooth) under any routing, linear or nonlinear: finite heights, every
    cell above its base level, the map's largest value bounding its substeps."""
    rng = np.random.default_rng(data)
    diffusivity = rng.choice([0.0, 1e-3, 0.1], (12, 14)) * rng.uniform(0.0, 1.0, (12, 14))
    start = rng.uniform(0.0, 3.0, (12, 14))
    result = erode_fluvial(start, steps=4, dt=50.0, uplift=1e-3, erodibility=1e-3, diffusion=diffusivity,
                           routing=routing, critical_slope=critical)  # fmt: skip
    assert np.isfinite(result.heights).all() and result.heights.min() >= 0.0


def test_one_critical_slope_as_a_map_is_the_number() -> None:
    """A critical-slope map of one value gives the landscape of the number bit for bit: with D8 and random routing,
    with layered rock (its hard beds' ``Sc / (1 - c·hard)`` on top) and through the model and fine grids."""
    start = np.random.default_rng(5).uniform(0.0, 5.0, (33, 33))
    common = {"steps": 12, "dt": 100.0, "uplift": 1e-3, "erodibility": 1e-3, "diffusion": 2e-3}
    for extra in ({}, {"routing": "random"}, {"rock_layers": 1.5, "rock_contrast": 0.4},
                  {"model_size": 17, "fine_steps": 4, "channel_head_area": 3.0}):  # fmt: skip
        number = erode_fluvial(start, critical_slope=0.6, **common, **extra).heights
        mapped = erode_fluvial(start, critical_slope=np.full((33, 33), 0.6), **common, **extra).heights
        assert np.array_equal(mapped, number)


def _steady_slope(flux: float, diffusion: float, critical: float) -> float:
    """The slope ``S`` that carries ``flux`` by Roering et al.'s law ``D·S / (1 - (S/Sc)²) = q``: the positive root
    of ``(q/Sc²)·S² + D·S - q = 0``."""
    return (-diffusion + np.sqrt(diffusion**2 + 4.0 * flux**2 / critical**2)) * critical**2 / (2.0 * flux)


def test_each_cell_takes_its_own_critical_slope() -> None:
    """A ridge without incision under uplift ``U`` (looped rows: one dimension; base level the first column)
    settles where the nonlinear flux carries ``U·x`` (``x`` the distance from the divide): ``S`` solves
    ``D·S / (1 - (S/Sc)²) = U·x`` with each side's own ``Sc``, so at the same distance the side of strong rock
    (``Sc`` 0.6) stands steeper than the side of weak rock (0.3), which one number would not make."""
    shape, diffusion, uplift = (3, 61), 0.02, 1e-3
    outlets = np.zeros(shape, dtype=bool)
    outlets[:, 0] = True
    critical = np.full(shape, 0.3)
    critical[:, 31:] = 0.6
    heights = erode_fluvial(np.zeros(shape), steps=200, dt=200.0, uplift=uplift, erodibility=0.0, diffusion=diffusion,
                            critical_slope=critical, boundary="looped", outlets=outlets).heights  # fmt: skip
    profile = heights.astype(np.float64)[1]
    divide = int(np.argmax(profile))
    slopes = np.abs(np.gradient(profile))
    for distance in (12, 16):  # away from the divide (its cell splits its uplift) and from base level
        weak, strong = slopes[divide - distance], slopes[divide + distance]
        assert weak == pytest.approx(_steady_slope(uplift * distance, diffusion, 0.3), rel=0.02)
        assert strong == pytest.approx(_steady_slope(uplift * distance, diffusion, 0.6), rel=0.02)
        assert strong > 1.2 * weak


def test_strong_rock_rows_reach_the_river_stage() -> None:
    """``rock_variety_slope`` 0 and ``rock_variety_uplift`` 1 keep the landscape of before them bit for bit; the
    slope needs ``critical_slope`` (without it the stage is the same), and each changes the landscape."""
    built = short_rivers("uplifted_range", defaults=("rock_variety_slope", "rock_variety_uplift"))
    plain = built()
    assert np.array_equal(built(rock_variety_slope=0.0, rock_variety_uplift=1.0), plain)
    for changes in ({"rock_variety_slope": 0.5}, {"rock_variety_uplift": 0.5}, {"rock_variety_uplift": 0.0}):
        assert not np.allclose(built(**changes), plain)
    linear = {"critical_slope": 0.0, "channel_diffusion": 0.0, "channel_head_area": 0.0}
    assert np.array_equal(built(rock_variety_slope=1.0, **linear), built(**linear))


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: Stage.of("rivers", {"rock_variety_slope": 4.0}), ValueError, r"^stage\.rock_variety_slope: "),
        (lambda: Stage.of("rivers", {"rock_variety_slope": -0.1}), ValueError, r"^stage\.rock_variety_slope: "),
        (lambda: Stage.of("rivers", {"rock_variety_uplift": 1.5}), ValueError, r"^stage\.rock_variety_uplift: "),
        (lambda: erode_fluvial(np.zeros((4, 4)), steps=1, dt=1.0, uplift=0.0, erodibility=0.0, diffusion=1e-3,
                               critical_slope=np.zeros((4, 4))), ValueError, "^critical_slope: a map must be > 0"),
        (lambda: erode_fluvial(np.zeros((4, 4)), steps=1, dt=1.0, uplift=0.0, erodibility=0.0, diffusion=1e-3,
                               critical_slope=np.ones((3, 4))), ValueError, "^critical_slope: must have"),
        (lambda: erode_fluvial(np.zeros((4, 4)), steps=1, dt=1.0, uplift=0.0, erodibility=0.0, diffusion=1e-3,
                               critical_slope=np.full((4, 4), np.nan)), ValueError, "^critical_slope: "),
    ],
)  # fmt: skip
def test_strong_rock_errors_name_the_option(call, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        call()


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["d8", "random"]), st.floats(0.0, 10.0))
def test_any_critical_slope_map_keeps_the_landscape_finite(data: int, routing: str, head: float) -> None:
    """Any positive critical-slope map (tiny, huge, spiky) under any routing, with or without channel heads:
    finite heights, every cell at or above its base level."""
    rng = np.random.default_rng(data)
    critical = rng.choice([1e-3, 0.5, 50.0], (12, 14)) * rng.uniform(0.01, 1.0, (12, 14))
    start = rng.uniform(0.0, 3.0, (12, 14))
    result = erode_fluvial(start, steps=4, dt=50.0, uplift=1e-3, erodibility=1e-3, diffusion=1e-3,
                           routing=routing, critical_slope=critical, channel_head_area=head)  # fmt: skip
    assert np.isfinite(result.heights).all() and result.heights.min() >= 0.0


def test_rock_variety_pace_keeps_the_ratios_and_is_off_by_default() -> None:
    """``rock_variety_pace`` 0 keeps the landscape of before it bit for bit; at 1, with ``rock_variety_uplift`` 1,
    the uplift and erodibility are even and only ``D/K`` varies, ``D·exp(-s·z)``: the landscape of one rock with
    ``rock_variety_diffusion`` ``s``, bit for bit (the ratios that set the steady state kept, every rock at one
    pace); between, it changes the landscape."""
    built = short_rivers("uplifted_range", defaults=("rock_variety_pace", "glacier_depth"))  # no troughs: rivers
    plain = built()
    assert np.array_equal(built(rock_variety_pace=0.0), plain)
    paced = built(rock_variety_pace=1.0, rock_variety_uplift=1.0, rock_variety_diffusion=0.0)
    even = built(rock_variety=0.0, rock_variety_uplift=1.0, rock_variety_diffusion=0.8)
    assert np.array_equal(paced, even)
    assert not np.allclose(built(rock_variety_pace=0.5), plain)


def test_rock_variety_diffusion_below_zero_slows_the_strong_rocks_creep() -> None:
    """``rock_variety_diffusion`` below 0 makes the diffusivity fall in strong rock (``D·exp(-s_D·z)``, ``z < 0``):
    with ``rock_variety_pace`` 1, ``rock_variety_uplift`` 1 and ``s_D = -s`` the paced ``D·exp(-(s_D + s)·z)`` is
    even, as ``U`` and ``K`` are: the landscape of one rock (``rock_variety`` 0) up to the diffusion's flux form
    (a map of one value); at ``-s/2`` the strong rock's ``D/K`` is the weak rock's, ``exp(s·z/2)`` apart."""
    built = short_rivers("uplifted_range", defaults=("rock_variety_pace", "rock_variety_diffusion", "glacier_depth"))
    even = built(rock_variety=0.0)
    paced = built(rock_variety_pace=1.0, rock_variety_uplift=1.0, rock_variety_diffusion=-0.8)
    assert np.allclose(paced, even, rtol=0.0, atol=1e-6 * np.ptp(even))
    slower = built(rock_variety_pace=1.0, rock_variety_uplift=1.0, rock_variety_diffusion=-0.4)
    assert not np.allclose(slower, even) and np.isfinite(slower).all()
    with pytest.raises(ValueError, match=r"^stage\.rock_variety_diffusion: "):
        Stage.of("rivers", {"rock_variety_diffusion": -3.5})


@pytest.mark.parametrize("value", [-0.1, 1.5])
def test_rock_variety_pace_errors_name_the_option(value: float) -> None:
    with pytest.raises(ValueError, match=r"^stage\.rock_variety_pace: "):
        Stage.of("rivers", {"rock_variety_pace": value})
