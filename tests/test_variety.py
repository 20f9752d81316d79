"""Variety at every scale (issue 49, ``terrain.variety``): rock variety over kilometres (``rock_field``, the river
stage's ``rock_variety``) and rock detail on the slopes (``rock_detail``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noise_core.terrain.fluvial import erode_fluvial
from noise_core.terrain.recipe import RIVER_OPTIONS, Stage, build_terrain, read_preset
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
    preset = read_preset("river_valleys")
    base = {**preset.stages[0].options, "steps": 12, "fine_steps": 4, "fine_size": 0, "model_size": 17}

    def built(**changes) -> np.ndarray:
        stage = Stage.of("rivers", {**base, **changes})
        return build_terrain(replace(preset, stages=(stage,)), 33).heights.astype(np.float64)

    plain = built()
    assert not np.allclose(built(rock_variety=1.5), plain)
    textured = built(rock_detail=200.0, rock_detail_scale=8000.0)
    assert 0.0 < np.abs(textured - plain).max() < 200.0 * 2.5
