"""SmallXXHash: the small xxHash32 variant of the seeds (004, "Hashing"); and the prime-multiply hash of
``hash="prime"`` (FastNoiseLite's, below).

State is a 32-bit accumulator. ``seed(s) = s + E``; eating an int ``d`` is
``rotl(acc + d*C, 17) * D``; the final hash avalanches the accumulator:
``h ^= h>>15; h *= B; h ^= h>>13; h *= C; h ^= h>>16``, with the xxHash32 primes
A..E. All arithmetic wraps modulo 2**32, exactly as C#'s ``uint``.

Every value here is a ``np.uint32``; each operation is truncated back to 32 bits
explicitly, which also lets LLVM use 32-bit SIMD multiplies.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit
from .schema import Option

PRIME_A = np.uint32(0b10011110001101110111100110110001)
PRIME_B = np.uint32(0b10000101111010111100101001110111)
PRIME_C = np.uint32(0b11000010101100101010111000111101)
PRIME_D = np.uint32(0b00100111110101001110101100101111)
PRIME_E = np.uint32(0b00010110010101100110011110110001)
_MASK32 = 0xFFFFFFFF


@jit
def hash_seed(seed):
    """``SmallXXHash.Seed(seed)``: the accumulator ``(uint)seed + E``."""
    return np.uint32((seed + np.int64(PRIME_E)) & _MASK32)


@jit
def rotate_left(value, steps):
    """32-bit left rotation of a ``uint32``."""
    return np.uint32(((value << steps) | (value >> (32 - steps))) & _MASK32)


@jit
def scaled_word(data):
    """``(uint)data * C`` (mod 2**32): the product ``eat`` adds to the accumulator."""
    return np.uint32(np.uint32(data & _MASK32) * PRIME_C)


@jit
def next_scaled_word(scaled):
    """``scaled_word(data + 1)`` from ``scaled_word(data)``: ``(data + 1) * C = data * C + C`` (mod 2**32)."""
    return np.uint32((scaled + PRIME_C) & _MASK32)


@jit
def scaled_words(data):
    """``scaled_word(data)`` and ``scaled_word(data + 1)``: a cell's low and high coordinate, multiplied once."""
    low = scaled_word(data)
    return low, next_scaled_word(low)


@jit
def eat_scaled(accumulator, scaled):
    """``Eat`` of the word whose ``scaled_word`` is ``scaled``: ``rotl(acc + scaled, 17) * D`` (mod 2**32)."""
    mixed = np.uint32((accumulator + scaled) & _MASK32)
    return np.uint32(rotate_left(mixed, 17) * PRIME_D)


@jit
def eat(accumulator, data):
    """``Eat(int data)``: ``rotl(acc + (uint)data * C, 17) * D`` (mod 2**32); ``eat_scaled(acc, scaled_word(data))``
    written out, so the kinds that only eat compile no two more helpers for it."""
    word = np.uint32(data & _MASK32)
    mixed = np.uint32((accumulator + np.uint32(word * PRIME_C)) & _MASK32)
    return np.uint32(rotate_left(mixed, 17) * PRIME_D)


@jit
def avalanche(accumulator):
    """The implicit ``uint`` conversion: the avalanche that finishes the hash."""
    h = accumulator
    h = np.uint32(h ^ (h >> 15))
    h = np.uint32(h * PRIME_B)
    h = np.uint32(h ^ (h >> 13))
    h = np.uint32(h * PRIME_C)
    return np.uint32(h ^ (h >> 16))


@jit
def floats01a(h):
    """``Floats01A``: byte 0 of the finished hash mapped to [0, 1] by ``/255``."""
    return np.float64(h & 255) * (1.0 / 255.0)


@jit
def floats01b(h):
    """``Floats01B``: byte 1 of the finished hash, ``/255``."""
    return np.float64((h >> 8) & 255) * (1.0 / 255.0)


@jit
def floats01c(h):
    """``Floats01C``: byte 2 of the finished hash, ``/255``."""
    return np.float64((h >> 16) & 255) * (1.0 / 255.0)


@jit
def floats01d(h):
    """``Floats01D``: byte 3 of the finished hash, ``/255``."""
    return np.float64(h >> 24) * (1.0 / 255.0)


@jit
def signed_floats01(h, shift):
    """``Floats01X * 2 - 1`` for the byte at ``shift`` (0 = A ... 24 = D), in [-1, 1].

    Computed as ``byte * (2/255) - 1``, one fused multiply-add: ``2/255`` is exactly
    twice ``1/255`` in binary, so only the final rounding can differ (by an ulp of
    float64) from the seed's ``(byte * (1/255)) * 2 - 1``.
    """
    return np.float64((h >> shift) & 255) * (2.0 / 255.0) - 1.0


@jit
def get_bits(h, count, shift):
    """``GetBits(count, shift)``: ``(h >> shift) & (2**count - 1)``."""
    return np.uint32((h >> shift) & ((1 << count) - 1))


@jit
def get_bits_as_floats01(h, count, shift):
    """``GetBitsAsFloats01(count, shift)``: those bits divided by ``2**count - 1``."""
    return np.float64(get_bits(h, count, shift)) * (1.0 / ((1 << count) - 1))


# The prime-multiply hash (``hash="prime"``), after FastNoiseLite's ``Hash`` and ``GradCoord`` (Jordan Peck, 2020,
# MIT; docs/sources.md): a corner's hash is ``H ^ (H >> 15)`` with ``H = (seed ^ x*PX ^ y*PY [^ z*PZ]) * MIX``
# (mod 2**32, logical shift). It has the SmallXXHash helpers' shape (a state that eats each coordinate's scaled
# word, then a finish), so the block passes hash corners the same way: ``prime_scaled(d, P)`` is ``d * P``,
# ``prime_eat`` an exclusive or, ``prime_finish`` the multiply and the xor-shift.
PRIME_X = np.uint32(501125321)
PRIME_Y = np.uint32(1136930381)
PRIME_Z = np.uint32(1720413743)
PRIME_MIX = np.uint32(0x27D4EB2D)


@jit
def prime_seed(seed):
    """The prime hash's state before any coordinate: the seed's low 32 bits."""
    return np.uint32(seed & _MASK32)


@jit
def prime_scaled(data, prime):
    """``(uint)data * prime`` (mod 2**32): a lattice coordinate's word for the axis whose prime is ``prime``."""
    return np.uint32(np.uint32(data & _MASK32) * prime)


@jit
def prime_eat(state, scaled):
    """``state ^ scaled``: the state after a coordinate whose ``prime_scaled`` word is ``scaled``."""
    return np.uint32(state ^ scaled)


@jit
def prime_finish(state):
    """The finished hash: ``H ^ (H >> 15)`` with ``H = state * MIX`` (mod 2**32)."""
    h = np.uint32(state * PRIME_MIX)
    return np.uint32(h ^ (h >> 15))


HASHES = ("smallxxhash", "prime")
"""The corner hashes of the lattice and simplex kinds (their ``hash`` option), the default first."""
HASH_STRIDE = 16
"""A kind's variant code is its gradient code plus ``HASH_STRIDE`` times the index of its hash in ``HASHES``, so
the default hash keeps the gradient codes (and the compiled kernels' names) of before."""
HASH_OPTION = Option(
    "hash",
    str,
    HASHES[0],
    "Corner hash: SmallXXHash (the seeds') or FastNoiseLite's prime-multiply hash (2D and 3D only, no derivatives;"
    " faster on random points, other values)",
    choices=HASHES,
)
"""The ``hash`` option of the lattice and simplex kinds."""


def hashed_variant(gradient: int):
    """A kind's ``variant(spec)``: its ``gradient`` code and ``spec.hash`` (``HASH_STRIDE``)."""

    def variant(spec) -> int:
        return gradient + HASH_STRIDE * HASHES.index(spec.hash)

    return variant
