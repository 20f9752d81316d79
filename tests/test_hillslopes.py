"""Crests and rock (issue 49): ``erode_fluvial``'s nonlinear hillslopes (``critical_slope``, Roering et al. 1999),
layered rock (``rock_layers``, ``rock_contrast``, ``rock_offset``; Forte et al. 2016, Perne et al. 2017) and rock
strength varying per cell (``rock_roughness``)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noise_core.hashing import avalanche, eat, hash_seed
from noise_core.terrain.fluvial import ROUGH_SALT, _rock_strength, erode_fluvial
from noise_core.terrain.recipe import RIVER_OPTIONS, Stage, build_terrain, read_preset

SIZE = 41


def _cone(size: int = SIZE, slope: float = 1.5) -> tuple[np.ndarray, np.ndarray]:
    """A cone with a rounded tip (``slope`` height per cell on its flanks) and each cell's distance from its axis."""
    y, x = np.mgrid[0:size, 0:size] - (size - 1) / 2
    radius = np.hypot(x, y)
    return 40.0 - slope * np.sqrt(radius * radius + 4.0), radius


def _diffused(heights: np.ndarray, **options) -> np.ndarray:
    """Only the hillslope transport: no uplift, no incision (explicit, isotropic, with ``routing="random"``)."""
    result = erode_fluvial(heights, steps=3, dt=1.0, uplift=0.0, erodibility=0.0, diffusion=0.05, routing="random",
                           **options)  # fmt: skip
    return result.heights.astype(np.float64) - heights


def test_nonlinear_transport_is_isotropic_and_faster_on_steep_slopes() -> None:
    """On a cone the change of the nonlinear transport depends on the distance from the axis alone (within 1.5 %
    of its range over the flanks, against the profile along an axis: a flux along grid lines would differ between
    the axes and the diagonals), and it moves more than linear diffusion does (``k = 1 / (1 - (S/Sc)²) > 1``)."""
    heights, radius = _cone()
    change = _diffused(heights, critical_slope=2.0)
    linear = _diffused(heights)
    tip = (SIZE - 1) // 2
    inner = (radius > 3.0) & (radius < 14.0)
    along_axis = np.interp(radius[inner], np.arange(SIZE - tip), change[tip, tip:])
    assert np.abs(change[inner] - along_axis).max() < 0.015 * np.ptp(change[inner])
    assert change[tip, tip] < linear[tip, tip] < 0.0  # the crest is lowered faster: the steep flanks carry more


def test_channel_diffusion_widens_the_bottom_of_a_big_river_s_valley() -> None:
    """A V-shaped valley draining a big area (rain upstream): with ``channel_diffusion`` the conductance along the
    river grows by ``c·√A``, so its bed fills from the walls more than with the hillslope flux alone, and the
    crests far from it move as before (their area is one cell: ``c·√1`` more, 1 % of the change)."""
    y, x = np.mgrid[0:33, 0:21]
    heights = 1.0 * np.abs(x - 10) + 0.05 * (32 - y) + 20.0
    rain = np.ones(heights.shape)
    rain[-1, 10] = 1e4  # a big catchment enters at the valley head
    common = {"steps": 2, "dt": 1.0, "uplift": 0.0, "erodibility": 0.0, "diffusion": 0.05, "routing": "random",
              "critical_slope": 1e6, "precipitation": rain}  # fmt: skip
    plain = erode_fluvial(heights, **common).heights - heights
    wide = erode_fluvial(heights, channel_diffusion=1.0, **common).heights - heights
    assert (wide[5:28, 10] > plain[5:28, 10] + 0.01).all()


def test_huge_critical_slope_is_linear_diffusion() -> None:
    """With ``Sc`` far above every slope ``k = 1``: the 9-point linear diffusion, to rounding."""
    heights, _ = _cone()
    np.testing.assert_allclose(_diffused(heights, critical_slope=1e6), _diffused(heights), rtol=0, atol=1e-9)


@pytest.mark.parametrize(("phase", "share"), [(0.25, 1.0), (0.75, 0.0)])
def test_layered_rock_erodes_at_its_bed_s_erodibility(phase: float, share: float) -> None:
    """Every cell inside a hard bed (phase 1/4 of a layer: hard = 1) erodes as rock of erodibility ``(1 - c)·K``,
    inside a soft one (phase 3/4: hard = 0) as rock of ``K``, to rounding."""
    y, x = np.mgrid[0:24, 0:20]
    heights = 0.3 * x + 0.1 * y + 0.01 * ((x * 7 + y * 3) % 5)
    thickness, contrast, k = 1e4, 0.6, 3e-3
    rock_offset = phase * thickness - heights
    layered = erode_fluvial(heights, steps=5, dt=10.0, uplift=1e-3, erodibility=k, rock_layers=thickness,
                            rock_contrast=contrast, rock_offset=rock_offset)  # fmt: skip
    uniform = erode_fluvial(heights, steps=5, dt=10.0, uplift=1e-3, erodibility=k * (1.0 - contrast * share))
    np.testing.assert_allclose(layered.heights, uniform.heights, rtol=1e-6)
    other = erode_fluvial(heights, steps=5, dt=10.0, uplift=1e-3, erodibility=k * (1.0 - contrast * (1.0 - share)))
    assert not np.allclose(layered.heights, other.heights, rtol=1e-6)


@pytest.mark.parametrize(("share", "hard"), [(0.5, True), (0.2, False), (0.8, True)])
def test_hard_share_thins_the_hard_beds(share: float, hard: bool) -> None:
    """``rock_hard_share`` ``p``: the bed is hard where ``sin(2πζ) > cos(πp)``. At phase 0.1 (``sin 0.2π = 0.588``)
    the rock is hard with equal beds (``s = 0``) and with ``p = 0.8`` (``s = -0.809``), soft with thin caprock
    beds ``p = 0.2`` (``s = 0.809``): the whole stage erodes as rock of ``(1 - c)·K`` or ``K``, to rounding."""
    y, x = np.mgrid[0:24, 0:20]
    heights = 0.3 * x + 0.1 * y + 0.01 * ((x * 7 + y * 3) % 5)
    thickness, contrast, k = 1e4, 0.6, 3e-3
    rock_offset = 0.1 * thickness - heights
    layered = erode_fluvial(heights, steps=5, dt=10.0, uplift=1e-3, erodibility=k, rock_layers=thickness,
                            rock_contrast=contrast, rock_hard_share=share, rock_offset=rock_offset)  # fmt: skip
    uniform = erode_fluvial(heights, steps=5, dt=10.0, uplift=1e-3, erodibility=k * (1.0 - contrast * hard))
    np.testing.assert_allclose(layered.heights, uniform.heights, rtol=1e-6)


@settings(max_examples=15, deadline=None)
@given(share=st.floats(0.05, 0.95), contrast=st.floats(0.0, 0.99), thickness=st.floats(0.5, 1e3))
def test_hard_share_is_the_share_of_hard_rock(share: float, contrast: float, thickness: float) -> None:
    """Over one pair of beds sampled evenly, the rock is harder than halfway on ``p`` of it (to the sampling's
    1/1000 and one transition's rounding), and every erodibility lies between ``(1 - c)·K`` and ``K``."""
    count = 2000
    heights = (np.arange(count) + 0.5) / count * thickness
    out = np.empty(count)
    shift = math.sin(math.pi * (0.5 - share))
    _rock_strength(heights, np.full(1, 2.0), 0, np.zeros(1), 0, thickness, contrast, shift,
                   1.5 / (1.0 - abs(shift)), out)  # fmt: skip
    assert ((out >= 2.0 * (1.0 - contrast) - 1e-12) & (out <= 2.0 + 1e-12)).all()
    if contrast > 0.01:
        hard = (1.0 - out / 2.0) / contrast
        assert abs((hard > 0.5).mean() - share) <= 2.0 / count


def test_rough_rock_is_an_erodibility_map_drawn_per_cell() -> None:
    """``rock_roughness`` is the erodibility map ``K·exp(s·z)``, ``z`` the blurred (binomial 3 x 3, edges repeated)
    and rescaled ``√12·(u - 1/2)`` of SmallXXHash(routing_seed) of each cell after ``ROUGH_SALT``: the same heights
    to rounding; the log of the map has mean ~0 and standard deviation ~s away from the edges."""
    y, x = np.mgrid[0:30, 0:26]
    heights = 0.3 * x + 0.2 * y + 0.01 * ((x * 7 + y * 3) % 5)
    k, s, seed = 2e-3, 0.8, 7
    base = eat(hash_seed(seed), ROUGH_SALT)
    u = np.array([int(avalanche(eat(base, cell))) for cell in range(heights.size)]) / 4294967296.0
    noise = np.pad((np.sqrt(12.0) * (u - 0.5)).reshape(heights.shape), 1, mode="edge")
    kernel = np.outer([1.0, 2.0, 1.0], [1.0, 2.0, 1.0]) / 16.0
    blurred = sum(kernel[i, j] * noise[i : i + 30, j : j + 26] for i in range(3) for j in range(3))
    field = k * np.exp(s * blurred / 0.375)
    rough = erode_fluvial(heights, steps=4, dt=10.0, uplift=1e-3, erodibility=k, rock_roughness=s, routing_seed=seed)
    mapped = erode_fluvial(heights, steps=4, dt=10.0, uplift=1e-3, erodibility=field)
    np.testing.assert_allclose(rough.heights, mapped.heights, rtol=1e-6)
    inner = np.log(field / k)[2:-2, 2:-2]
    assert abs(inner.mean()) < 0.15 and abs(inner.std() - s) < 0.15


def test_layered_rock_runs_coarse_to_fine() -> None:
    """``rock_offset`` is sampled with the other maps onto a model grid with a margin and a fine grid."""
    heights, _ = _cone(48)
    rock_offset = np.tile(np.linspace(0.0, 5.0, 48), (48, 1))
    result = erode_fluvial(heights, steps=6, dt=100.0, uplift=1e-3, erodibility=1e-3, diffusion=1e-3,
                           routing="random", rock_layers=4.0, rock_offset=rock_offset, critical_slope=1.0,
                           model_size=24, margin=0.125, fine_steps=2, fine_size=40)  # fmt: skip
    assert np.isfinite(result.heights).all() and result.heights.shape == (48, 48)


def test_the_rows_reach_the_river_stage() -> None:
    """The new rows are options of the recipe's river stage (so CLI, add-on and presets take them): a short River
    Valleys stage on a 33² grid with layered rock changes when the beds dip (``rock_dip`` reaches
    ``erode_fluvial`` as a ``rock_offset`` plane) and with rough rock and sharp crests builds finite heights."""
    names = {option.name for option in RIVER_OPTIONS}
    assert {
        "critical_slope",
        "rock_layers",
        "rock_contrast",
        "rock_hard_share",
        "rock_roughness",
        "rock_dip",
        "rock_dip_direction",
    } <= names
    preset = read_preset("river_valleys")
    base = {**preset.stages[0].options, "steps": 12, "fine_steps": 4, "fine_size": 0, "model_size": 17}

    def built(**changes) -> np.ndarray:
        stage = Stage.of("rivers", {**base, **changes})
        return build_terrain(replace(preset, stages=(stage,)), 33).heights

    flat = built(rock_layers=2.0, rock_contrast=0.6)
    dipping = built(rock_layers=2.0, rock_contrast=0.6, rock_dip=0.5)
    assert not np.allclose(flat, dipping)
    assert not np.allclose(flat, built(rock_layers=2.0, rock_contrast=0.6, rock_hard_share=0.25))
    assert np.isfinite(built(critical_slope=0.8, rock_roughness=0.5)).all()


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"critical_slope": -1.0}, ValueError, "critical_slope: must be between 0 and"),
        ({"critical_slope": 1.0, "diffusion": 1.0, "dt": 10.0}, ValueError,
         "critical_slope: nonlinear hillslopes need diffusion"),
        ({"rock_contrast": 1.0}, ValueError, "rock_contrast: must be between 0 and 0.99"),
        ({"rock_layers": -2.0}, ValueError, "rock_layers: must be between 0 and"),
        ({"rock_roughness": 5.0}, ValueError, "rock_roughness: must be between 0 and 3"),
        ({"rock_hard_share": 0.0}, ValueError, "rock_hard_share: must be between 0.05 and 0.95"),
        ({"channel_diffusion": 1.0}, ValueError, "channel_diffusion: needs critical_slope > 0"),
        ({"rock_layers": 2.0, "rock_offset": np.ones((3, 3))}, ValueError, "rock_offset: expected a numeric map"),
        ({"rock_layers": 2.0, "rock_offset": [[0.0]]}, TypeError, "rock_offset: expected a numpy array"),
        ({"rock_layers": 2.0, "rock_offset": np.full((16, 16), np.nan)}, ValueError, "rock_offset: every value"),
    ],
)  # fmt: skip
def test_errors_name_the_option(options: dict, error: type, message: str) -> None:
    heights = np.linspace(0.0, 10.0, 256).reshape(16, 16)
    arguments = {"steps": 2, "dt": 1.0, "uplift": 1e-3, "erodibility": 1e-3, **options}
    with pytest.raises(error, match=message):
        erode_fluvial(heights, **arguments)
