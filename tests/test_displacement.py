"""``noise_core.displacement.displace_points``: the numpy displacement passes fused into one kernel, same bits."""

from __future__ import annotations

import numpy as np
import pytest

from noise_core.displacement import displace_points

COUNT = 2048 * 2 + 77


def numpy_displaced(positions, values, value_range, midlevel, strength, weights, directions):
    """The add-on's passes before issue 36 (``ranges.to_unit``, then amount and direction in float32)."""
    low, high = value_range
    unit = np.clip((values - np.float32(low)) * np.float32(1.0 / (high - low)), np.float32(0.0), np.float32(1.0))
    amount = (unit - np.float32(midlevel)) * np.float32(strength)
    amount *= weights
    out = positions.copy()
    if directions.shape[0] == 1:
        for axis in np.flatnonzero(directions[0]):
            out[:, axis] += amount * directions[0, axis]
    else:
        out += amount[:, None] * directions
    return out


@pytest.mark.parametrize("per_point", [False, True])
def test_same_bits_as_the_numpy_passes(per_point: bool) -> None:
    rng = np.random.default_rng(36)
    positions = rng.uniform(-5.0, 5.0, size=(COUNT, 3)).astype(np.float32)
    values = rng.uniform(-1.2, 1.2, size=COUNT).astype(np.float32)  # beyond the range too: clipped
    weights = rng.uniform(0.0, 1.0, size=COUNT).astype(np.float32) if per_point else np.ones(1, np.float32)
    if per_point:
        directions = rng.normal(size=(COUNT, 3)).astype(np.float32)
    else:
        directions = np.array([[0.6, 0.0, -0.8]], dtype=np.float32)
    expected = numpy_displaced(positions, values, (-1.0, 1.0), 0.37, 1.7, weights, directions)
    moved = positions.copy()
    assert displace_points(moved, values, (-1.0, 1.0), 0.37, 1.7, weights, directions) == 0
    np.testing.assert_array_equal(moved.view(np.uint32), expected.view(np.uint32))


def test_counts_coordinates_that_overflow() -> None:
    positions = np.full((10, 3), 3e38, dtype=np.float32)
    values = np.full(10, 1.0, dtype=np.float32)
    directions = np.array([[1.0, 0.0, 1.0]], dtype=np.float32)
    assert displace_points(positions, values, (0.0, 1.0), 0.0, 3e38, np.ones(1, np.float32), directions) == 20
    assert np.isinf(positions[:, [0, 2]]).all() and (positions[:, 1] == np.float32(3e38)).all()


def test_bad_shapes() -> None:
    with pytest.raises(ValueError, match=r"positions: expected a C-contiguous \(4, 3\) float32 array"):
        displace_points(np.zeros((4, 3)), np.zeros(4, np.float32), (0.0, 1.0), 0.5, 1.0, np.ones(1), np.ones((1, 3)))
    with pytest.raises(ValueError, match="weights, directions"):
        displace_points(np.zeros((4, 3), np.float32), np.zeros(4, np.float32), (0.0, 1.0), 0.5, 1.0, np.ones(2),
                        np.ones((1, 3)))  # fmt: skip
