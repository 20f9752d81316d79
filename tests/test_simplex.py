"""Simplex value and gradient noise (seed 001): seed-exact values, range, continuity, errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import noise_core as nc

from . import reference

KINDS = ("simplex_value", "simplex")
DIMS = (1, 2, 3)


def _square_vector(h: int) -> tuple[float, float]:
    """Seed 001 ``SquareVectors``."""
    gx = reference.floats01(h, 0) * 2 - 1
    gy = 0.5 - abs(gx)
    return gx - math.floor(gx + 0.5), gy


def _octahedron_vector(h: int) -> tuple[float, float, float]:
    """Seed 001 ``OctahedronVectors``."""
    gx = reference.floats01(h, 0) * 2 - 1
    gy = reference.floats01(h, 3) * 2 - 1
    gz = 1 - abs(gx) - abs(gy)
    offset = max(-gz, 0.0)
    gx += offset if gx < 0 else -offset
    gy += offset if gy < 0 else -offset
    return gx, gy, gz


def _simplex_gradient(h: int, *offset: float) -> float:
    """Seed 001 ``Simplex``: line * 32/27, circle * 5.832/sqrt(2), sphere * 1024/(125 sqrt(3))."""
    if len(offset) == 1:
        return reference.perlin_gradient(h, *offset) * 32 / 27
    vector = {2: _square_vector, 3: _octahedron_vector, 4: reference.hypercube_vector}[len(offset)](h)
    dot = sum(g * o for g, o in zip(vector, offset, strict=True)) / math.hypot(*vector)
    return dot * {2: 5.832 / math.sqrt(2), 3: 1024 / (125 * math.sqrt(3)), 4: 1 / 0.17177}[len(offset)]


GRADIENTS = {"simplex_value": reference.value_gradient, "simplex": _simplex_gradient}


def _corners(skewed: list[float]) -> list[tuple[int, ...]]:
    """The simplex corners around a skewed point: walk from the cell's origin, largest offset first."""
    origin = [math.floor(c) for c in skewed]
    if len(skewed) == 1:
        return [(origin[0],), (origin[0] + 1,)]
    order = sorted(range(len(skewed)), key=lambda axis: -(skewed[axis] - origin[axis]))
    corner = list(origin)
    corners = [tuple(corner)]
    for axis in order:
        corner[axis] += 1
        corners.append(tuple(corner))
    return corners


def simplex_reference(kind: str, seed: int, point: tuple[float, ...], frequency: float) -> float:
    """Seed 001 simplex noise from its formulas: skew, corners, un-skew, radial falloff times gradient."""
    dim = len(point)
    scale, skew, unskew = {
        1: (1, 0, 0),
        2: (1 / math.sqrt(3), (math.sqrt(3) - 1) / 2, (3 - math.sqrt(3)) / 6),
        3: (0.6, 1 / 3, 1 / 6),
        4: (math.sqrt(0.4), (math.sqrt(5) - 1) / 4, (5 - math.sqrt(5)) / 20),  # 4D: Gustavson's skew, not the seeds'
    }[dim]
    p = [c * frequency * scale for c in point]
    shift = sum(p) * skew
    total = 0.0
    for corner in _corners([c + shift for c in p]):
        back = sum(corner) * unskew
        offset = [c - i + back for c, i in zip(p, corner, strict=True)]
        r2 = sum(o * o for o in offset)
        falloff = (1 - r2) ** 3 if dim == 1 else 8 * max(0.0, 0.5 - r2) ** 3
        total += falloff * GRADIENTS[kind](reference.hash_of(seed, *corner), *offset)
    return total


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dim", DIMS)
def test_matches_pure_python_port_of_the_seed(kind: str, dim: int, points3: np.ndarray) -> None:
    spec = nc.NoiseSpec(kind=kind, seed=7, frequency=3.0, octaves=2, lacunarity=2.0, persistence=0.5)
    points = points3[:16, :dim]
    expected = [
        (simplex_reference(kind, 7, tuple(p), 3.0) + 0.5 * simplex_reference(kind, 8, tuple(p), 6.0)) / 1.5
        for p in points
    ]
    np.testing.assert_allclose(nc.evaluate(spec, points), expected, rtol=0, atol=2e-6)


def _lattice_point_input(corner: tuple[int, ...], frequency: float) -> list[float]:
    """The input coordinates that land exactly on a simplex lattice point (un-skew, then undo the scale)."""
    scale, unskew = {1: (1, 0), 2: (1 / math.sqrt(3), (3 - math.sqrt(3)) / 6)}.get(len(corner), (0.6, 1 / 6))
    back = sum(corner) * unskew
    return [(i - back) / (frequency * scale) for i in corner]


@pytest.mark.parametrize("dim", DIMS)
def test_values_on_lattice_points_by_hand(dim: int) -> None:
    # On a lattice point its own kernel is 1 (1D: (1-0)^3, 2D/3D: 8 * (1/2)^3) and every other
    # corner is at squared distance >= 2/3 (2D) or 3/4 (3D), beyond the falloff radius 1/2: value
    # noise is Floats01A * 2 - 1 of that point and gradient noise is 0.
    corners = [(-2, 5, 1), (0, 0, 0), (3, -7, 4), (11, 2, -6)]
    corners = [c[:dim] for c in corners]
    points = np.array([_lattice_point_input(c, 2.0) for c in corners])
    values = nc.evaluate(nc.NoiseSpec(kind="simplex_value", seed=5, frequency=2.0), points)
    expected = [reference.floats01(reference.hash_of(5, *c), 0) * 2 - 1 for c in corners]
    np.testing.assert_allclose(values, expected, atol=1e-6)
    gradient = nc.evaluate(nc.NoiseSpec(kind="simplex", seed=5, frequency=2.0), points)
    np.testing.assert_allclose(gradient, 0.0, atol=1e-6)


def test_1d_midpoint_by_hand() -> None:
    # Half-way between x0 and x0 + 1 both kernels weigh (3/4)^3 = 27/64: value noise is the mean of the
    # two lattice values times 27/32, the seed's "minimum of 0.84375".
    x0 = 3
    values = nc.evaluate(nc.NoiseSpec(kind="simplex_value", seed=2, frequency=1.0), np.array([[x0 + 0.5]]))
    a, b = (reference.floats01(reference.hash_of(2, i), 0) * 2 - 1 for i in (x0, x0 + 1))
    np.testing.assert_allclose(values, [(a + b) * 27 / 64], atol=1e-7)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dim", DIMS)
def test_range_and_turbulence(kind: str, dim: int, rng: np.random.Generator) -> None:
    points = rng.uniform(-40, 40, size=(100_000, dim))
    values = nc.evaluate(nc.NoiseSpec(kind=kind, frequency=1.0), points)
    assert values.min() >= -1.0 and values.max() <= 1.0
    assert values.max() - values.min() > 1.6, "noise should use most of its range"
    assert nc.value_range(nc.NoiseSpec(kind=kind)) == (-1.0, 1.0)
    turbulent = nc.evaluate(nc.NoiseSpec(kind=kind, frequency=1.0, octaves=3, turbulence=True), points[:4096])
    assert turbulent.min() >= 0.0 and turbulent.max() <= 1.0


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dim", DIMS)
def test_continuity(kind: str, dim: int, rng: np.random.Generator) -> None:
    # Each kernel is C2 and its slope is below 4 per lattice unit (1D value noise, the steepest,
    # peaks at 2 * 6x(1 - x^2)^2 = 3.43); the input scales 1/sqrt(3) and 0.6 only flatten 2D/3D.
    frequency, step = 3.0, 1e-4
    spec = nc.NoiseSpec(kind=kind, frequency=frequency)
    points = rng.uniform(-5, 5, size=(20_000, dim)) + np.array([0.0, 1e4, -1e4])[:dim]
    base = nc.evaluate(spec, points).astype(np.float64)
    for axis in range(dim):
        moved = points.copy()
        moved[:, axis] += step
        jump = np.abs(nc.evaluate(spec, moved) - base).max()
        assert jump <= 4.0 * frequency * step + 1e-6, f"axis {axis}: jump {jump}"


@pytest.mark.parametrize("kind", KINDS)
def test_deterministic_and_seeded(kind: str, points3: np.ndarray) -> None:
    spec = nc.NoiseSpec(kind=kind, seed=3, octaves=2)
    first = nc.evaluate(spec, points3)
    np.testing.assert_array_equal(first, nc.evaluate(spec, points3))
    other = nc.evaluate(nc.NoiseSpec(kind=kind, seed=4, octaves=2), points3)
    assert np.mean(first != other) > 0.99


def test_evaluate_grid_is_the_2d_noise() -> None:
    spec = nc.NoiseSpec(kind="simplex", frequency=5.0)
    image = nc.evaluate_grid(spec, (6, 7))
    xs, ys = (np.arange(7) + 0.5) / 7, (np.arange(6) + 0.5) / 6
    points = np.array([(x, y) for y, x in itertools.product(ys, xs)])
    np.testing.assert_array_equal(image.ravel(), nc.evaluate(spec, points))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "simplex", "tiling": True}, "tiling: kind 'simplex' cannot tile"),
        ({"kind": "simplex_value", "tiling": True}, "tiling: kind 'simplex_value' cannot tile"),
        ({"kind": "simplex", "function": "f2"}, "function: not an option of kind 'simplex'"),
        ({"kind": "simplex_value", "distance": "worley"}, "distance: not an option of kind 'simplex_value'"),
        ({"kind": "simplex", "jitter": 0.5}, "jitter: not an option of kind 'simplex'"),
    ],
)
def test_invalid_combinations_are_rejected(fields: dict, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{message}"):
        nc.NoiseSpec(**fields)


def test_cell_index_is_the_low_32_bits_of_the_lattice_coordinate(rng: np.random.Generator) -> None:
    # The 3D simplex cells reach 1.2 * 2**31 (skewed coordinates of |x * frequency| < 2**31); cell_index reads
    # the low 32 bits through the float64 mantissa of whole + 1.5 * 2**52, exact for |whole| < 2**51.
    from noise_core.lattice import cell_index

    edges = [0.0, -0.0, 1.0, -1.0, 2.0**31 - 1, 2.0**31, -(2.0**31), -(2.0**31) - 1, 2.0**32, -(2.0**32) - 5]
    wholes = edges + list(np.floor(rng.uniform(-1.3 * 2**31, 1.3 * 2**31, 200))) + [2.0**50 + 3, -(2.0**50) - 3]
    for whole in wholes:
        assert cell_index(whole) == (int(whole) + 2**31) % 2**32 - 2**31, whole


def test_tetrahedron_steps_follow_the_seed_truth_table() -> None:
    # Seed 001 section 1.9: the first and second kernel offsets per axis for each row of (x>y, x>z, y>z), and
    # its boolean expressions for them, also where offsets tie (the steps compare the float32 offsets from the
    # cell's origin, whose differences are the fractions').
    from noise_core.simplex import tetrahedron_steps

    table = {
        (True, True, True): ((1, 1), (0, 1), (0, 0)),
        (True, True, False): ((1, 1), (0, 0), (0, 1)),
        (True, False, False): ((0, 1), (0, 0), (1, 1)),
        (False, True, True): ((0, 1), (1, 1), (0, 0)),
        (False, False, True): ((0, 0), (1, 1), (0, 1)),
        (False, False, False): ((0, 0), (0, 1), (1, 1)),
    }
    for x, y, z in itertools.permutations((0.1, 0.4, 0.7)):
        steps = tetrahedron_steps(np.float32(x), np.float32(y), np.float32(z))
        (xa, xb), (ya, yb), (za, zb) = table[(x > y, x > z, y > z)]
        assert steps == (xa, ya, za, xb, yb, zb), (x, y, z)
    for x, y, z in itertools.product((-0.3, 0.0, 0.25, 0.5), repeat=3):
        x_gt_y, x_gt_z, y_gt_z = x > y, x > z, y > z
        seed = (
            x_gt_y and x_gt_z,
            not x_gt_y and y_gt_z,
            (x_gt_y and not x_gt_z) or (not x_gt_y and not y_gt_z),
            x_gt_y or (x_gt_z and y_gt_z),
            not x_gt_y or (x_gt_z and y_gt_z),
            not (x_gt_z and y_gt_z),
        )
        assert tetrahedron_steps(np.float32(x), np.float32(y), np.float32(z)) == seed, (x, y, z)
