"""Pure-Python transcriptions of the seeds' formulas, for golden values in tests.

Nothing here imports noise_core: these are independent ports of seed 004's C#
(SmallXXHash, value and Perlin gradients, lattice blending) written from the text,
so a test comparing them with the Numba kernels checks the kernels against the seed.
"""

from __future__ import annotations

import math

M32 = 0xFFFFFFFF
PRIME_A = 0b10011110001101110111100110110001
PRIME_B = 0b10000101111010111100101001110111
PRIME_C = 0b11000010101100101010111000111101
PRIME_D = 0b00100111110101001110101100101111
PRIME_E = 0b00010110010101100110011110110001


def seed(s: int) -> int:
    return (s + PRIME_E) & M32


def eat(acc: int, data: int) -> int:
    v = (acc + (data & M32) * PRIME_C) & M32
    v = ((v << 17) | (v >> 15)) & M32
    return (v * PRIME_D) & M32


def avalanche(acc: int) -> int:
    h = acc
    h ^= h >> 15
    h = (h * PRIME_B) & M32
    h ^= h >> 13
    h = (h * PRIME_C) & M32
    h ^= h >> 16
    return h


def hash_of(s: int, *lattice: int) -> int:
    acc = seed(s)
    for coordinate in lattice:
        acc = eat(acc, coordinate)
    return avalanche(acc)


def floats01(h: int, byte: int) -> float:
    return ((h >> (8 * byte)) & 255) / 255.0


def smooth(t: float) -> float:
    return t * t * t * (t * (t * 6 - 15) + 10)


def value_gradient(h: int, *offset: float) -> float:
    return floats01(h, 0) * 2 - 1


def perlin_gradient(h: int, *offset: float) -> float:
    if len(offset) == 1:
        x = offset[0]
        return (1 + floats01(h, 0)) * (x if h & (1 << 8) == 0 else -x)
    if len(offset) == 2:
        gx = floats01(h, 0) * 2 - 1
        gy = 0.5 - abs(gx)
        gx -= math.floor(gx + 0.5)
        return (gx * offset[0] + gy * offset[1]) * (2 / 0.53528)
    if len(offset) == 4:
        return sum(g * o for g, o in zip(hypercube_vector(h), offset, strict=True)) / 1.5366
    gx = floats01(h, 0) * 2 - 1
    gy = floats01(h, 3) * 2 - 1
    gz = 1 - abs(gx) - abs(gy)
    off = max(-gz, 0.0)
    gx += off if gx < 0 else -off
    gy += off if gy < 0 else -off
    return (gx * offset[0] + gy * offset[1] + gz * offset[2]) * (1 / 0.56290)


def hypercube_vector(h: int) -> tuple[int, ...]:
    """The 4D gradient (not in the seeds): signs from hash bits 8-11, the axis ``h & 3`` zeroed."""
    return tuple(0 if axis == h & 3 else (-1 if (h >> (8 + axis)) & 1 else 1) for axis in range(4))


def lattice_noise(gradient, s: int, point: tuple[float, ...], frequency: float, period: int = 0) -> float:
    """Multilinear blend over the 2**d corners, x outermost, as Lattice1D/2D/3D."""
    spans = []
    for c in point:
        c *= frequency
        p0 = math.floor(c)
        g0 = c - p0
        q0, q1 = p0, p0 + 1
        if period:
            q0 = p0 % period
            q1 = (q0 + 1) % period
        spans.append((q0, q1, g0, g0 - 1, smooth(g0)))

    def blend(axis: int, corner: tuple[int, ...], offset: tuple[float, ...]) -> float:
        if axis == len(spans):
            return gradient(hash_of(s, *corner), *offset)
        q0, q1, g0, g1, t = spans[axis]
        a = blend(axis + 1, (*corner, q0), (*offset, g0))
        b = blend(axis + 1, (*corner, q1), (*offset, g1))
        return a + (b - a) * t

    return blend(0, (), ())


def fractal(gradient, s, point, frequency, octaves, lacunarity, persistence, turbulence=False, tiling=False) -> float:
    total = amplitude_sum = 0.0
    amplitude = 1.0
    for o in range(octaves):
        v = lattice_noise(gradient, s + o, point, frequency, int(frequency) if tiling else 0)
        total += amplitude * (abs(v) if turbulence else v)
        amplitude_sum += amplitude
        frequency *= lacunarity
        amplitude *= persistence
    return total / amplitude_sum
