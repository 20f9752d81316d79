"""``hash="prime"``: FastNoiseLite's prime-multiply corner hash (docs/sources.md) on the lattice and simplex kinds.

A NumPy port of the hash checks the compiled helpers bit for bit and, through value noise at lattice points, the
kernels; its statistics are checked on a block of lattice cells; golden digests pin five kernels' values.
Perlin and simplex noise with the prime hash are FastNoise2's formulas, checked against float64 NumPy ports
reading FastNoise2's gradient tables. Few block functions are compiled here (value 2D, Perlin 2D, Perlin 3D tiled
and not, simplex 2D, simplex 3D, simplex value 3D): each new one costs seconds of CI time.
"""

from __future__ import annotations

import hashlib

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core import fractal, hashing, simplex
from noise_core.api import evaluate_lattice, grid_coordinates
from noise_core.gradients import PRIME_PERLIN_2D_BOUND, PRIME_PERLIN_3D_BOUND

# Sweeps every kernel variant: once per run (scripts/run.sh), the golden digests pin the bits on both Pythons.
pytestmark = pytest.mark.once_per_run

MASK = 0xFFFFFFFF
PRIMES = (501125321, 1136930381, 1720413743)


def prime_hash(seed: int, *coordinates: np.ndarray) -> np.ndarray:
    """FastNoiseLite's ``Hash`` of ``seed`` and the lattice ``coordinates`` (x, y[, z]), then ``h ^ (h >> 15)``
    (logical), all mod 2**32: uint32."""
    state = np.full(np.broadcast(*coordinates).shape, seed & MASK, dtype=np.uint64)
    for coordinate, prime in zip(coordinates, PRIMES, strict=False):
        state ^= (np.asarray(coordinate, dtype=np.int64).astype(np.uint64) * np.uint64(prime)) & np.uint64(MASK)
    h = (state * np.uint64(0x27D4EB2D)) & np.uint64(MASK)
    return (h ^ (h >> np.uint64(15))).astype(np.uint32)


@numba.njit
def _compiled_hash(seed, x, y, z, dim):
    state = hashing.prime_eat(hashing.prime_seed(seed), hashing.prime_scaled(x, hashing.PRIME_X))
    state = hashing.prime_eat(state, hashing.prime_scaled(y, hashing.PRIME_Y))
    if dim == 3:
        state = hashing.prime_eat(state, hashing.prime_scaled(z, hashing.PRIME_Z))
    return hashing.prime_finish(state)


def test_hash_by_hand() -> None:
    # seed 0, corner (1, 0): H = 501125321 * 0x27d4eb2d mod 2**32 = 0x147BF655; H ^ (H >> 15) = 0x147BDEA2
    h = (501125321 * 0x27D4EB2D) & MASK
    assert h == 0x147BF655
    assert h ^ (h >> 15) == 0x147BDEA2
    assert int(_compiled_hash(0, 1, 0, 0, 2)) == 0x147BDEA2 == int(prime_hash(0, np.array(1), np.array(0)))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**31), 2**31 - 1),
    st.sampled_from((2, 3)),
)
def test_compiled_helpers_match_the_port(seed: int, x: int, y: int, z: int, dim: int) -> None:
    coordinates = (np.array(x), np.array(y), np.array(z))[:dim]
    assert int(_compiled_hash(seed, x, y, z, dim)) == int(prime_hash(seed, *coordinates))


def _lattice_block(seed: int) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.meshgrid(np.arange(-128, 128), np.arange(-128, 128))
    return x, prime_hash(seed, x, y)


@pytest.mark.parametrize("seed", [0, 1, -7, 12345])
@pytest.mark.parametrize("shift", [0, 8, 24])
def test_bytes_are_spread_and_neighbours_uncorrelated(seed: int, shift: int) -> None:
    """The bytes the gradients read (0: value, Perlin, simplex; 1; 3: Perlin 3D) over 256² cells: χ² of their
    counts on 255 degrees of freedom below 700 (SmallXXHash: about 255; measured here 325 to 551), and a cell's
    byte uncorrelated with its right and upper neighbours'."""
    _, h = _lattice_block(seed)
    byte = ((h >> shift) & 255).astype(np.float64)
    counts = np.bincount(byte.astype(np.int64).ravel(), minlength=256)
    expected = byte.size / 256
    assert ((counts - expected) ** 2 / expected).sum() < 700
    for a, b in ((byte[:, :-1], byte[:, 1:]), (byte[:-1, :], byte[1:, :])):
        assert abs(np.corrcoef(a.ravel(), b.ravel())[0, 1]) < 0.02


@pytest.mark.parametrize("seed", [0, 1])
def test_no_lattice_pattern(seed: int) -> None:
    """Byte 0 over 512² cells: its autocorrelation at every lag up to 8 cells below 0.02 (measured at most 0.0065)
    and a flat power spectrum, its largest bin below 20 times the mean (white noise: about ln(512²) = 12.5; a
    stripe or lattice pattern would put a large share of the power in one bin)."""
    x, y = np.meshgrid(np.arange(512), np.arange(512))
    byte = (prime_hash(seed, x, y) & 255).astype(np.float64)
    byte -= byte.mean()
    spectrum = np.fft.fft2(byte)
    power = np.abs(spectrum) ** 2
    correlation = np.real(np.fft.ifft2(power)) / (byte.var() * byte.size)
    lags = [(dy, dx) for dy in range(-8, 9) for dx in range(-8, 9) if (dy, dx) != (0, 0)]
    assert max(abs(correlation[dy % 512, dx % 512]) for dy, dx in lags) < 0.02
    power[0, 0] = 0.0
    assert power.max() / power.mean() < 20.0


@pytest.mark.parametrize("bit", range(0, 9, 2))
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_low_coordinate_bits_avalanche(bit: int, axis: int) -> None:
    """Flipping one of a coordinate's low bits flips each bit the gradients read (bytes 0 and 3) with
    probability 0.45 to 0.55 (measured 0.485 to 0.51 for bits 0 to 8)."""
    rng = np.random.default_rng(bit + 10 * axis)
    coordinates = [rng.integers(-(2**20), 2**20, 20000) for _ in range(3)]
    base = prime_hash(3, *coordinates)
    coordinates[axis] = coordinates[axis] ^ (1 << bit)
    flipped = base ^ prime_hash(3, *coordinates)
    for out_bit in (*range(8), *range(24, 32)):
        assert 0.45 < ((flipped >> out_bit) & 1).mean() < 0.55, out_bit


VALUE_2D = {"kind": "value", "hash": "prime", "octaves": 3, "seed": 5}
PERLIN_3D = {"kind": "perlin", "hash": "prime", "tiling": True}
PERLIN_2D = {"kind": "perlin", "hash": "prime", "seed": 9}
SIMPLEX_2D = {"kind": "simplex", "hash": "prime"}
SIMPLEX_VALUE_3D = {"kind": "simplex_value", "hash": "prime", "seed": -3}


def test_value_noise_at_lattice_points_is_the_corner_hash() -> None:
    spec = nc.NoiseSpec(**{**VALUE_2D, "octaves": 1, "frequency": 1.0})
    cells = np.array([(x, y) for x in range(-9, 9) for y in range(-9, 9)], dtype=np.float64)
    h = prime_hash(5, cells[:, 0].astype(np.int64), cells[:, 1].astype(np.int64))
    np.testing.assert_allclose(nc.evaluate(spec, cells), (h & 255) * (2.0 / 255.0) - 1.0, atol=1e-6)


def test_simplex_2d_block_is_the_pointwise_chain() -> None:
    """The simplex 2D block pass with the prime hash equals ``triangle_cell``, ``prime_triangle_hashes`` (the
    port's hashes of the three corners) and ``prime_triangle_sum`` per point, bit for bit."""
    rng = np.random.default_rng(3)
    points = rng.uniform(-3.0, 3.0, (64, 2))
    values = nc.evaluate(nc.NoiseSpec(**SIMPLEX_2D), points)
    scale = 4.0 * simplex.SCALE_2D
    for (x, y), value in zip(points, values, strict=True):
        i, j, x_greater, dx, dy = simplex.triangle_cell(x * scale, y * scale)
        hashes = simplex.prime_triangle_hashes(np.uint32(0), i, j, x_greater)
        third = (i + 1, j) if x_greater else (i, j + 1)
        corners = np.array([(i, j), (i + 1, j + 1), third])
        assert [int(h) for h in hashes] == prime_hash(0, corners[:, 0], corners[:, 1]).tolist()
        assert np.float32(simplex.prime_triangle_sum(2, *hashes, x_greater, np.float32(dx), np.float32(dy))) == value


# FastNoise2's gradient tables (its AVX-512 ``_mm512_permutexvar_ps`` constants, Utils.inl): 2D
# ``GetGradientDotPerlin`` by hash bits 0-2, 3D ``GetGradientDotCommon`` (Perlin's improved noise) by bits 0-3.
R2 = 1.0 + np.sqrt(2.0)
TABLE_2D = np.array([(R2, 1), (-R2, 1), (R2, -1), (-R2, -1), (1, R2), (-1, R2), (1, -R2), (-1, -R2)])
TABLE_3D = np.array(
    [(1, 1, 0), (-1, 1, 0), (1, -1, 0), (-1, -1, 0), (1, 0, 1), (-1, 0, 1), (1, 0, -1), (-1, 0, -1),
     (0, 1, 1), (0, -1, 1), (0, 1, -1), (0, -1, -1), (1, 1, 0), (0, -1, 1), (-1, 1, 0), (0, -1, -1)],
    dtype=np.float64,
)  # fmt: skip


@numba.njit
def _gradients(h, offset):
    return (
        simplex.prime_gradient_2d(h, offset[0], offset[1]),
        simplex.prime_gradient_3d(h, offset[0], offset[1], offset[2]),
    )


def test_prime_simplex_gradients_are_the_tables() -> None:
    """The select-made gradients are FastNoise2's tables for every hash code (only the low bits count), both signs
    of every offset component, exactly (the products are by ±1, 0 or 1+√2 rounded once)."""
    offset = np.array([0.375, -0.1875, 0.8125], dtype=np.float32)
    for h in range(64):
        for signs in ((1, 1, 1), (-1, 1, -1), (1, -1, 1)):
            d = offset * np.array(signs, dtype=np.float32)
            dot2, dot3 = _gradients(np.uint32(h | ((h * 0x9E3779B1) & 0xFFFFFF00)), d)
            gx, gy = TABLE_2D[h & 7].astype(np.float32).astype(np.float64)  # 1 + √2 as the kernel's float32
            assert dot2 == np.float32(gx * float(d[0]) + gy * float(d[1]))  # one rounding (fused)
            assert dot3 == np.float32(TABLE_3D[h & 15] @ d.astype(np.float64))


def _fastnoise2_simplex(points: np.ndarray, seed: int, frequency: float) -> np.ndarray:
    """FastNoise2's Simplex (2D: Simplex.inl's ``Gen`` as written; 3D: the classic tetrahedra with radius^2 1/2, the
    classic unskew 1/6, Perlin's improved gradients), float64, with FastNoiseLite's hash (``prime_hash``): the sum
    of ``max(0, 1/2 - r^2)^4 * (g . d)`` over the simplex's corners, divided by its largest value."""
    dim = points.shape[1]
    p = points * frequency * (1.0 / np.sqrt(3.0) if dim == 2 else 0.6)
    skew = (np.sqrt(3.0) - 1.0) / 2.0 if dim == 2 else 1.0 / 3.0
    unskew = (3.0 - np.sqrt(3.0)) / 6.0 if dim == 2 else 1.0 / 6.0
    cell = np.floor(p + p.sum(axis=1, keepdims=True) * skew)
    d0 = p - cell + cell.sum(axis=1, keepdims=True) * unskew
    # the corners: from the origin one step along each axis, the axis of the largest fraction first (a tie: the
    # later axis first), as the seed's and FastNoise2's comparisons order them
    rank = np.zeros(d0.shape, dtype=np.int64)
    for a in range(dim):
        for b in range(dim):
            if a != b:
                rank[:, a] += d0[:, a] > d0[:, b] if a < b else d0[:, a] >= d0[:, b]
    total = np.zeros(len(points))
    for step in range(dim + 1):
        steps = (rank >= dim - step).astype(np.int64)
        d = d0 - steps + steps.sum(axis=1, keepdims=True) * unskew
        h = prime_hash(seed, *(cell.astype(np.int64) + steps).T)
        gradient = TABLE_2D[h & 7] if dim == 2 else TABLE_3D[h & 15]
        total += np.maximum(0.5 - (d * d).sum(axis=1), 0.0) ** 4 * (gradient * d).sum(axis=1)
    return total / (simplex.PRIME_SIMPLEX_2D_BOUND if dim == 2 else simplex.PRIME_SIMPLEX_3D_BOUND)


@pytest.mark.parametrize("dim", [2, 3])
def test_prime_simplex_is_fastnoise2s_formula(dim: int) -> None:
    """``kind="simplex"`` with ``hash="prime"`` against the float64 NumPy port above on 600 points near and far
    (float32 kernels: within 1e-6), in [-1, 1] with the largest sums reaching 0.99: the bounds are the maxima."""
    rng = np.random.default_rng(40 + dim)
    points = rng.uniform(-60.0, 60.0, (600, dim))
    for seed, frequency in ((0, 4.0), (-(2**31), 1.37)):
        values = nc.evaluate(nc.NoiseSpec(kind="simplex", hash="prime", seed=seed, frequency=frequency), points)
        np.testing.assert_allclose(values, _fastnoise2_simplex(points, seed, frequency), rtol=0, atol=1e-6)
    many = nc.evaluate(nc.NoiseSpec(kind="simplex", hash="prime"), rng.uniform(-99.0, 99.0, (200_000, dim)))
    assert np.abs(many).max() <= 1.0 and np.abs(many).max() > 0.99


def _fastnoise2_perlin(points: np.ndarray, seed: int, frequency: float, period: int = 0) -> np.ndarray:
    """FastNoise2's Perlin (Perlin.inl's ``Gen``, float64) with FastNoiseLite's hash (``prime_hash``): the corners'
    gradients from its tables (2D ``GetGradientDotPerlin``, 3D ``GetGradientDotCommon``), the quintic blend, divided
    by its ``kBounding``; with ``period``, the corners wrapped as tiling wraps them (not in FastNoise2)."""
    dim = points.shape[1]
    scaled = points * frequency
    cell = np.floor(scaled)
    g = scaled - cell
    t = g * g * g * (g * (g * 6.0 - 15.0) + 10.0)
    total = 0.0
    for corner in range(2**dim):
        steps = np.array([(corner >> (dim - 1 - axis)) & 1 for axis in range(dim)])
        lattice = np.mod(cell + steps, period) if period else cell + steps
        h = prime_hash(seed, *lattice.astype(np.int64).T)
        gradient = TABLE_2D[h & 7] if dim == 2 else TABLE_3D[h & 15]
        weight = np.prod(np.where(steps == 1, t, 1.0 - t), axis=1)
        total = total + weight * ((g - steps) * gradient).sum(axis=1)
    return total / (PRIME_PERLIN_2D_BOUND if dim == 2 else PRIME_PERLIN_3D_BOUND)


def test_prime_perlin_3d_is_fastnoise2s_formula_and_tiles() -> None:
    """``kind="perlin"`` with ``hash="prime"`` in 3D against the float64 port (float32 kernels: within 1e-5), tiled
    (frequency 4: period 4 cells, so a shift by one unit changes nothing) and not, float32 points near and far."""
    rng = np.random.default_rng(7)
    points = rng.uniform(-2.0, 2.0, (400, 3))
    spec = nc.NoiseSpec(**PERLIN_3D)
    values = nc.evaluate(spec, points)
    np.testing.assert_allclose(values, _fastnoise2_perlin(points, 0, 4.0, period=4), rtol=0, atol=1e-5)
    np.testing.assert_array_equal(nc.evaluate(spec, points + np.array([1.0, 0.0, -1.0])), values)
    far = rng.uniform(-300.0, 300.0, (400, 3)).astype(np.float32)
    untiled = nc.evaluate(nc.NoiseSpec(kind="perlin", hash="prime", seed=-7), far)
    np.testing.assert_allclose(untiled, _fastnoise2_perlin(far.astype(np.float64), -7, 4.0), rtol=0, atol=1e-5)


def test_prime_perlin_2d_is_fastnoise2s_formula_on_points_and_grids() -> None:
    """In 2D against the port on points near and far (within 1e-5), its grid bit for bit ``evaluate`` of the pixel
    centres (the separable grid kernel blends the same way)."""
    spec = nc.NoiseSpec(**PERLIN_2D)
    points = np.random.default_rng(8).uniform(-200.0, 200.0, (600, 2))
    np.testing.assert_allclose(nc.evaluate(spec, points), _fastnoise2_perlin(points, 9, 4.0), rtol=0, atol=1e-5)
    grid = nc.evaluate_grid(spec, (21, 67))
    centres = np.column_stack(grid_coordinates((21, 67)))[::-1]  # reversed: not a lattice, so the point path
    np.testing.assert_array_equal(grid.reshape(-1)[::-1], nc.evaluate(spec, centres))


@pytest.mark.parametrize("dim", [2, 3])
def test_prime_perlin_stays_within_its_bound(dim: int) -> None:
    """Divided by FastNoise2's ``kBounding`` (the largest blend), 200 000 random values stay in [-1, 1] and reach
    past 0.9 in 2D, 0.75 in 3D (where the largest values need rare sets of corner gradients)."""
    options = PERLIN_2D if dim == 2 else PERLIN_3D
    many = nc.evaluate(nc.NoiseSpec(**options), np.random.default_rng(dim).uniform(-9.0, 9.0, (200_000, dim)))
    assert np.abs(many).max() <= 1.0 and np.abs(many).max() > (0.9 if dim == 2 else 0.75)


@pytest.mark.parametrize("options", [VALUE_2D, SIMPLEX_VALUE_3D])
def test_statistics_like_the_default_hash(options: dict) -> None:
    """Other values than SmallXXHash's, the same range and spread (standard deviation within 10 %)."""
    dim = 3 if options is SIMPLEX_VALUE_3D else 2
    points = np.random.default_rng(11).uniform(-20.0, 20.0, (20000, dim))
    prime = nc.evaluate(nc.NoiseSpec(**options), points)
    default = nc.evaluate(nc.NoiseSpec(**{**options, "hash": "smallxxhash"}), points)
    assert not np.array_equal(prime, default)
    assert prime.min() >= -1.0 and prime.max() <= 1.0
    assert abs(prime.std() / default.std() - 1.0) < 0.1
    assert abs(prime.mean()) < 0.02


def test_grid_is_evaluate_at_pixel_centres() -> None:
    """``evaluate_grid`` of value noise with the prime hash runs the separable grid kernel with the prime hash's
    column tables: the same bits as ``evaluate`` of the pixel centres (shuffled, so by the point kernel)."""
    spec = nc.NoiseSpec(**VALUE_2D)
    grid = nc.evaluate_grid(spec, (19, 23))
    points = np.column_stack(grid_coordinates((19, 23)))
    order = np.random.default_rng(2).permutation(points.shape[0])  # shuffled: not a lattice, so the point path
    values = np.empty(points.shape[0], dtype=np.float32)
    values[order] = nc.evaluate(spec, points[order])
    np.testing.assert_array_equal(grid.reshape(-1), values)


def test_3d_lattice_is_evaluate_of_its_points() -> None:
    """``evaluate_lattice`` in 3D (tiled Perlin, the separable 3D grid kernel with the prime hash) is bit for bit
    ``evaluate`` of its points, x fastest."""
    spec = nc.NoiseSpec(**PERLIN_3D)
    xs, ys, zs = np.linspace(-1.0, 1.0, 37), np.linspace(0.0, 0.7, 5), np.linspace(-0.3, 0.4, 3)
    lattice = evaluate_lattice(spec, xs, ys, zs=zs)
    z, y, x = np.meshgrid(zs, ys, xs, indexing="ij")
    points = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    np.testing.assert_array_equal(lattice.reshape(-1), nc.evaluate(spec, points))


def _points(dim: int) -> np.ndarray:
    return np.random.default_rng(1234 + dim).uniform(-3.0, 3.0, size=(257, dim))


GOLDEN = [
    (VALUE_2D, 2, "05401c9d4c76b20e2615d0bf"),
    (PERLIN_3D, 3, "3d7f6eb6f58b7dbc76c2a76b"),  # FastNoise2's 3D formula since issue 48 (6th session; a235683…)
    (PERLIN_2D, 2, "4d674b276751c818b0685661"),  # FastNoise2's 2D formula since issue 48 (6th session)
    (SIMPLEX_2D, 2, "513ebe9da622e07618168092"),  # FastNoise2's 2D formula since issue 48 (5th session)
    (SIMPLEX_VALUE_3D, 3, "150c08dd48b3656cae7df7f3"),
]


@pytest.mark.parametrize(("options", "dim", "expected"), GOLDEN)
def test_golden(options: dict, dim: int, expected: str) -> None:
    spec = nc.NoiseSpec(**options)
    parts = [nc.evaluate(spec, _points(dim)).tobytes()]
    if dim == 2:
        parts.append(nc.evaluate_grid(spec, (13, 17)).tobytes())
    assert hashlib.sha256(b"".join(parts)).hexdigest()[:24] == expected


def test_default_is_smallxxhash() -> None:
    assert nc.NoiseSpec().hash == "smallxxhash"
    assert nc.NoiseSpec(kind="value").hash == hashing.HASHES[0] == "smallxxhash"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nc.NoiseSpec(kind="perlin", hash="xxhash"), "hash: 'xxhash' is not allowed"),
        (lambda: nc.NoiseSpec(kind="perlin", hash=3), "hash: expected one of"),
        (lambda: nc.NoiseSpec(kind="voronoi", hash="prime"), "hash: not an option of kind 'voronoi'"),
        (lambda: nc.evaluate(nc.NoiseSpec(kind="value", hash="prime"), np.zeros((4, 1))), "hash: 'prime' hashes"),
        (lambda: nc.evaluate(nc.NoiseSpec(kind="simplex", hash="prime"), np.zeros((4, 4))), "hash: 'prime' hashes"),
        (
            lambda: nc.evaluate(nc.NoiseSpec(kind="perlin", hash="prime"), np.zeros((4, 2)), derivatives=True),
            "hash: derivatives=True needs",
        ),
    ],
)
def test_errors_name_the_option(call, message: str) -> None:
    with pytest.raises((ValueError, TypeError), match=f"^{message}"):
        call()


ROW_SPECS = [(VALUE_2D, 2), (PERLIN_3D, 3), (SIMPLEX_VALUE_3D, 3)]
"""The row specs whose float32 rows give the float64 copy's bits everywhere (simplex 2D: only far from the origin,
``test_prime_simplex_2d_rows_split_in_float32_near_the_origin``)."""


def _row_points(seed: int, n: int, dim: int, exponent: float, limit: float, low: float = -2.0) -> np.ndarray:
    """float32 points of both signs, of magnitudes spread over ``10**low .. 10**exponent``, below ``limit``."""
    rng = np.random.default_rng(seed)
    magnitude = 10.0 ** rng.uniform(low, exponent, (n, dim))
    points = np.clip(rng.choice([-1.0, 1.0], (n, dim)) * magnitude, -0.999 * limit, 0.999 * limit)
    return points.astype(np.float32)


@pytest.mark.parametrize(("options", "dim"), ROW_SPECS)
@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 4200),
    exponent=st.floats(0.0, 9.5),
    frequency=st.floats(0.01, 100.0),
)
def test_float32_points_read_in_place_give_the_same_bits(options: dict, dim: int, seed: int, n: int,
                                                         exponent: float, frequency: float) -> None:  # fmt: skip
    """float32 points are split by the block function straight from their rows (``fractal.ROWS32``, no float64
    copy): bit for bit the values of the same points as float64 (the copy's path), near and far from the origin
    (up to the lattice limit), negative and positive, over several blocks, at any frequency (not only powers of
    two, where float32 products would be exact too)."""
    if options.get("tiling"):  # a tiled spec takes whole frequencies (3, 5, ...: still inexact in float32)
        frequency = float(max(1, round(frequency)))
    spec = nc.NoiseSpec(**options, frequency=frequency)
    kind = nc.registry.KINDS[spec.kind]
    signature = fractal.point_kernels(kind.family, dim, kind.variant_of(spec), spec, np.float32)[1]
    assert signature is fractal.ROW_ARGUMENTS  # the in-place path, not the copy's
    points = _row_points(seed, n, dim, exponent, nc.api.lattice_limit(spec))
    in_place = nc.evaluate(spec, points)
    copied = nc.evaluate(spec, points.astype(np.float64))
    np.testing.assert_array_equal(in_place.view(np.uint32), copied.view(np.uint32))


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 4200),
    exponent=st.floats(-1.0, 9.5),
    frequency=st.floats(0.01, 100.0),
)
def test_prime_simplex_2d_rows_split_in_float32_near_the_origin(seed: int, n: int, exponent: float,
                                                                 frequency: float) -> None:  # fmt: skip
    """float32 points of simplex 2D with the prime hash are split in float32 (FastNoise2's formula,
    ``simplex.prime_triangle_cell32``) where every ``|x f / sqrt(3)|`` of a block is below
    ``PRIME_FLOAT32_SPLIT_LIMIT``: within 32 float32 steps of the largest scaled coordinate (at least 1) of the float64
    copy's values (measured: within 6); where every point has a coordinate beyond it, the float64 copy's bits."""
    spec = nc.NoiseSpec(**SIMPLEX_2D, frequency=frequency)
    scale = frequency * simplex.SCALE_2D
    bound = simplex.PRIME_FLOAT32_SPLIT_LIMIT / scale
    near = _row_points(seed, n, 2, min(exponent, np.log10(bound)), bound)
    near = near[np.abs(near.astype(np.float64)).max(axis=1) < 0.999 * bound]
    largest = max(1.0, float(np.abs(near.astype(np.float64)).max(initial=0.0)) * scale)
    in_place = nc.evaluate(spec, near).astype(np.float64)
    copied = nc.evaluate(spec, near.astype(np.float64))
    np.testing.assert_allclose(in_place, copied, rtol=0, atol=32 * 2.0**-23 * largest)
    limit = nc.api.lattice_limit(spec)
    if 1.03 * bound < limit:
        far = _row_points(seed, n, 2, np.log10(limit), limit, low=np.log10(bound) + 0.01)
        far[:, 1] = _row_points(seed + 1, n, 1, np.log10(limit), limit)[:, 0]
        far_values = nc.evaluate(spec, far)
        copied = nc.evaluate(spec, far.astype(np.float64))
        np.testing.assert_array_equal(far_values.view(np.uint32), copied.view(np.uint32))


@pytest.mark.parametrize(("options", "dim"), [(VALUE_2D, 2), ({"kind": "perlin", "hash": "prime", "seed": -7}, 3)])
@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 4200),
    exponent=st.floats(-40.0, 9.5),
    power=st.integers(-12, 8),
)
def test_power_of_two_frequencies_split_in_float32_give_the_same_bits(options: dict, dim: int, seed: int, n: int,
                                                                      exponent: float, power: int) -> None:  # fmt: skip
    """At power-of-two frequencies, untiled, the rows are split in float32 (``lattice.split_rows``: ``x f`` exact,
    the offset rounded once by a fused multiply-add): bit for bit the float64 copy's values, for magnitudes from
    subnormal to the lattice limit, both signs, with whole cells (edges) and zeros of both signs among them."""
    spec = nc.NoiseSpec(**options, frequency=2.0**power)
    limit = nc.api.lattice_limit(spec)
    points = _row_points(seed, n, dim, min(exponent + 46.0, np.log10(limit)), limit, low=-46.0)
    points[::7] = np.float32(np.round(points[::7] * 2.0**power)) / np.float32(2.0**power)  # whole cells
    points[3::11] = np.float32(-0.0)
    points[5::13] = np.float32(0.0)
    in_place = nc.evaluate(spec, points)
    copied = nc.evaluate(spec, points.astype(np.float64))
    np.testing.assert_array_equal(in_place.view(np.uint32), copied.view(np.uint32))


def test_float32_rows_path_is_planned_and_checks_its_points() -> None:
    """``plan`` names the in-place block function for float32 points (the one ``evaluate`` compiles), the float64
    copy's for float64 points; a float32 coordinate beyond the lattice limit, or NaN, is rejected as from
    float64 points."""
    spec = nc.NoiseSpec(**SIMPLEX_2D)
    steps = nc.api.plan(spec, 2, np.float32)
    assert steps[0][1] is fractal.ROW_ARGUMENTS and nc.api.plan(spec, 2)[0][1] is fractal.BLOCK_ARGUMENTS
    nc.evaluate(spec, np.zeros((3, 2), np.float32))
    assert all(signature in dispatcher.overloads for dispatcher, signature in steps)
    for bad in (3.0 * nc.api.lattice_limit(spec), np.nan):
        points = np.zeros((3000, 2), np.float32)
        points[2500, 1] = bad
        with pytest.raises(ValueError) as from_float32:
            nc.evaluate(spec, points)
        with pytest.raises(ValueError) as from_float64:
            nc.evaluate(spec, points.astype(np.float64))
        assert str(from_float32.value) == str(from_float64.value)
