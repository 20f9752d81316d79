"""Musgrave's fractal modes against a plain-Python transcription of the formulas (Blender's Noise Texture)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import noise_core as nc
from noise_core.fractal_modes import mode_range

# Sweeps every kernel variant: once per run (scripts/run.sh), the golden digests pin the bits on both Pythons.
pytestmark = pytest.mark.once_per_run

POINTS = {dim: np.random.default_rng(40 + dim).uniform(-3.0, 3.0, size=(400, dim)) for dim in (1, 2, 3)}
CASES = [
    ("perlin", 3, {}),
    ("value", 2, {"tiling": True, "frequency": 3.0}),
    ("simplex", 2, {}),
    ("voronoi", 2, {"function": "f2_minus_f1"}),
    ("cellular", 3, {}),
]
MODES = {
    "multifractal": {},
    "hetero_terrain": {"offset": 0.4},
    "hybrid": {"offset": 0.7, "gain": 1.8},
    "ridged": {"offset": 1.0, "gain": 2.0},
}


def octave_values(spec: nc.NoiseSpec, points: np.ndarray) -> list[np.ndarray]:
    """``n_o``: one octave of the kind at ``frequency * lacunarity**o`` hashed with ``seed + o`` (float64)."""
    options = {name: getattr(spec, name) for name in ("kind", "tiling", "distance", "function", "jitter", "density")}
    if spec.kind not in ("voronoi", "cellular"):
        options = {"kind": spec.kind, "tiling": spec.tiling}
    elif spec.kind == "voronoi":
        options.pop("density")
    else:
        options.pop("jitter")
    return [
        nc.evaluate(
            nc.NoiseSpec(seed=spec.seed + o, frequency=spec.frequency * spec.lacunarity**o, **options), points
        ).astype(np.float64)
        for o in range(spec.octaves)
    ]


def transcription(spec: nc.NoiseSpec, points: np.ndarray) -> np.ndarray:
    """The issue's formulas, point by point in plain Python."""
    n = octave_values(spec, points)
    r, offset, gain = spec.persistence, spec.offset, spec.gain
    result = np.empty(points.shape[0])
    for i in range(points.shape[0]):
        if spec.fractal == "multifractal":
            v = 1.0
            for o in range(spec.octaves):
                v *= 1.0 + r**o * n[o][i]
        elif spec.fractal == "hetero_terrain":
            v = offset + n[0][i]
            for o in range(1, spec.octaves):
                v += (n[o][i] + offset) * r**o * v
        elif spec.fractal == "hybrid":
            w, v = 1.0, 0.0
            for o in range(spec.octaves):
                if not w > 0.001:
                    break
                w = min(w, 1.0)
                s = (n[o][i] + offset) * r**o
                v += w * s
                w *= gain * s
        else:  # ridged
            s = (offset - abs(n[0][i])) ** 2
            v, w = s, 1.0
            for o in range(1, spec.octaves):
                w = min(max(s * gain, 0.0), 1.0)
                s = (offset - abs(n[o][i])) ** 2 * w
                v += s * r**o
        result[i] = v
    return result


# Each mode with Perlin 3D and one other kind in turn: every kernel compiles once (seconds each).
@pytest.mark.parametrize(
    ("mode", "kind_case"),
    [(mode, 0) for mode in MODES] + [(mode, 1 + index % (len(CASES) - 1)) for index, mode in enumerate(MODES)],
)
def test_modes_follow_the_formulas(mode: str, kind_case: int) -> None:
    kind, dim, options = CASES[kind_case]
    spec = nc.NoiseSpec(kind=kind, octaves=5, seed=3, persistence=0.6, fractal=mode, **options, **MODES[mode])
    values = nc.evaluate(spec, POINTS[dim])
    expected = transcription(spec, POINTS[dim])
    # the kernel combines float64 octaves, the transcription float32-rounded ones: a few float32 ulps apart
    np.testing.assert_allclose(values, expected, rtol=2e-5, atol=2e-5)
    low, high = nc.value_range(spec)
    assert low <= values.min() and values.max() <= high


@pytest.mark.parametrize("mode", MODES)
def test_outputs_stay_inside_the_documented_range(mode: str) -> None:
    for persistence, offset, gain, octaves in itertools.product((0.3, 1.0, 1.7), (-1.0, 0.0, 1.5), (0.0, 3.0), (1, 4)):
        fields = {"offset": offset, "gain": gain}
        fields = {name: value for name, value in fields.items() if name in ("offset", "gain") and name in MODES[mode]}
        spec = nc.NoiseSpec(kind="perlin", fractal=mode, octaves=octaves, persistence=persistence, **fields)
        values = nc.evaluate(spec, POINTS[3])
        low, high = nc.value_range(spec)
        assert np.isfinite(values).all()
        assert low <= values.min() and values.max() <= high, (spec, values.min(), values.max(), low, high)


def test_one_octave_of_each_mode() -> None:
    """With one octave every mode is a simple function of ``n_0``."""
    n0 = nc.evaluate(nc.NoiseSpec(kind="perlin"), POINTS[3]).astype(np.float64)
    single = {
        "multifractal": 1.0 + n0,
        "hetero_terrain": 0.25 + n0,
        "hybrid": n0 + 0.25,
        "ridged": (0.25 - np.abs(n0)) ** 2,
    }
    for mode, expected in single.items():
        fields = {"offset": 0.25} if mode != "multifractal" else {}
        values = nc.evaluate(nc.NoiseSpec(kind="perlin", fractal=mode, **fields), POINTS[3])
        np.testing.assert_allclose(values, expected, rtol=1e-6, atol=1e-6, err_msg=mode)


def test_mode_range_is_interval_arithmetic() -> None:
    assert mode_range("multifractal", -1.0, 1.0, 2, 0.5, 0.0, 1.0) == (0.0, 3.0)
    assert mode_range("hetero_terrain", -1.0, 1.0, 2, 0.5, 1.0, 1.0) == (0.0, 4.0)
    assert mode_range("hybrid", -1.0, 1.0, 3, 0.5, 0.0, 1.0) == (-1.75, 1.75)
    assert mode_range("ridged", -1.0, 1.0, 3, 0.5, 1.0, 2.0) == (0.0, 1.75)
    assert mode_range("fbm", -1.0, 1.0, 3, 0.5, 0.0, 1.0) == (-1.0, 1.0)


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        ({"fractal": "billow"}, ValueError, r"^fractal: 'billow' is not allowed; choose one of 'fbm', 'multifractal'"),
        ({"offset": 0.5}, ValueError, r"^offset: only used with fractal 'hetero_terrain', 'hybrid', 'ridged'"),
        ({"fractal": "hetero_terrain", "gain": 2.0}, ValueError, r"^gain: only used with fractal 'hybrid', 'ridged'"),
        ({"fractal": "ridged", "turbulence": True}, ValueError, r"^turbulence: only used with fractal='fbm'"),
        ({"fractal": "ridged", "offset": 1e4}, ValueError, r"^offset: must be between -1000 and 1000"),
        ({"fractal": "hybrid", "gain": -1.0}, ValueError, r"^gain: must be between 0 and 1000"),
        ({"fractal": "ridged", "gain": float("nan")}, ValueError, r"^gain: must be a finite number"),
        (
            {"fractal": "multifractal", "octaves": 16, "persistence": 100.0},
            ValueError,
            r"^persistence: with fractal='multifractal' the values could reach .* beyond float32",
        ),
    ],
)
def test_mode_fields_are_checked(fields: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        nc.NoiseSpec(kind="perlin", **fields)


def test_fbm_with_default_offset_and_gain_is_todays_noise() -> None:
    spec = nc.NoiseSpec(kind="perlin", octaves=4)
    explicit = nc.NoiseSpec(kind="perlin", octaves=4, fractal="fbm", offset=0.0, gain=1.0)
    np.testing.assert_array_equal(nc.evaluate(spec, POINTS[3]), nc.evaluate(explicit, POINTS[3]))
