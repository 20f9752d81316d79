"""Rain variety and orographic rain (issue 49): the river stage's ``rain_variety``, ``rain_variety_scale`` and
``rain_height`` weigh the drainage area by ``variety.rain_field`` (Tucker & Bras 1998's threshold with runoff that
varies in space: Roe et al. 2002, 2003)."""

from __future__ import annotations

import numpy as np
import pytest

from noise_core.terrain.recipe import RIVER_OPTIONS, Stage
from noise_core.terrain.variety import RAIN_OPTIONS, rain_field, rock_field

from .stages import short_rivers

NAMES = ("rain_variety", "rain_variety_scale", "rain_height")


def test_rows_reach_the_river_stage() -> None:
    names = {option.name for option in RIVER_OPTIONS}
    assert all(name in names for name in NAMES)
    assert tuple(option.name for option in RAIN_OPTIONS) == NAMES
    assert [option.default for option in RAIN_OPTIONS] == [0.0, 0.5, 0.0]


def test_off_is_todays_bits_and_on_changes_the_rivers() -> None:
    """Both 0 (the defaults) leave the landscape of before bit for bit (no rain map at all); either changes it."""
    built = short_rivers("river_valleys", defaults=NAMES)
    plain = built()
    assert np.array_equal(built(rain_variety=0.0, rain_height=0.0, rain_variety_scale=2.0), plain)
    for changes in ({"rain_variety": 1.0}, {"rain_height": 1.0}, {"rain_height": -1.0}):
        changed = built(**changes)
        assert np.isfinite(changed).all() and not np.array_equal(changed, plain)


def test_rain_field_is_the_formula() -> None:
    """``exp(v·z - r·(t - t̄))`` over its mean: mean 1, positive, ``z`` the rock field of its own seed; the high
    ground drier for ``r`` > 0; None when both are 0."""
    y, x = np.mgrid[0:40, 0:50].astype(np.float64)
    heights = 3.0 * x + 0.5 * y
    assert rain_field(heights) is None
    rain = rain_field(heights, variety=0.8, scale=0.4, height=1.5, seed=3)
    assert rain is not None and rain.shape == heights.shape and (rain > 0.0).all()
    assert rain.mean() == pytest.approx(1.0, rel=1e-12)
    share = (heights - heights.min()) / np.ptp(heights)
    z = rock_field(heights.shape, scale=0.4, seed=3 + 0x5A17)
    expected = np.exp(0.8 * z - 1.5 * (share - share.mean()))
    np.testing.assert_allclose(rain, expected / expected.mean(), rtol=1e-12)
    dry = rain_field(heights, height=2.0)
    assert dry[:, -1].mean() < dry[:, 0].mean()  # the high (east) side is drier
    assert not np.allclose(rain_field(heights, variety=0.8, seed=3), rock_field(heights.shape, scale=0.5, seed=3))


@pytest.mark.parametrize(
    ("name", "value", "error"),
    [("rain_variety", -0.5, ValueError), ("rain_variety", 4.0, ValueError), ("rain_variety_scale", 0.0, ValueError),
     ("rain_height", 5.0, ValueError), ("rain_height", float("nan"), ValueError), ("rain_variety", "wet", TypeError)],
)  # fmt: skip
def test_errors_name_the_option(name: str, value: object, error: type) -> None:
    with pytest.raises(error, match=rf"^stage\.{name}: "):
        Stage.of("rivers", {name: value})


@pytest.mark.parametrize(("keyword", "value"), [("variety", -1.0), ("scale", 0.0), ("height", 9.0)])
def test_rain_field_errors_name_the_argument(keyword: str, value: float) -> None:
    with pytest.raises(ValueError, match=rf"^{keyword}: "):
        rain_field(np.zeros((4, 4)), **{keyword: value})
    with pytest.raises(TypeError, match=r"^seed: "):
        rain_field(np.zeros((4, 4)), seed=1.5)  # type: ignore[arg-type]
