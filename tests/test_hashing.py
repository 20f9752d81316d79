"""SmallXXHash against hand-derived values and the pure-Python port of seed 004."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from noise_core import hashing

from . import reference


@numba.njit
def _hash_of(seed, i, j, k, count):
    acc = hashing.hash_seed(seed)
    if count > 0:
        acc = hashing.eat(acc, i)
    if count > 1:
        acc = hashing.eat(acc, j)
    if count > 2:
        acc = hashing.eat(acc, k)
    return hashing.avalanche(acc)


def test_seed_zero_without_data_is_xxhash32_of_empty_input() -> None:
    # SmallXXHash.Seed(0) finished without eating is xxHash32("", seed 0) = 0x02CC5D05, the
    # published xxHash32 test vector: accumulator 0 + PRIME32_5 + length 0, then the avalanche.
    assert _hash_of(0, 0, 0, 0, 0) == 0x02CC5D05
    assert reference.hash_of(0) == 0x02CC5D05


def test_eat_by_hand() -> None:
    # Seed(0) = E; Eat(1): rotl(E + 1*C, 17) * D, all mod 2**32, worked out step by step.
    acc = reference.PRIME_E
    mixed = (acc + reference.PRIME_C) & 0xFFFFFFFF
    assert mixed == 0xD90915EE
    rotated = ((mixed << 17) | (mixed >> 15)) & 0xFFFFFFFF
    assert rotated == 0x2BDDB212
    assert hashing.eat(np.uint32(acc), 1) == (rotated * reference.PRIME_D) & 0xFFFFFFFF


@pytest.mark.parametrize(
    ("seed", "lattice"),
    [(0, (0,)), (0, (1, 2, 3)), (-5, (-1,)), (123456, (7, -8)), (2**31 - 1, (2**31 - 1, -(2**31), 5))],
)
def test_hash_matches_reference(seed: int, lattice: tuple[int, ...]) -> None:
    padded = (*lattice, 0, 0, 0)[:3]
    assert int(_hash_of(seed, *padded, len(lattice))) == reference.hash_of(seed, *lattice)


def test_negative_data_wraps_like_a_csharp_uint_cast() -> None:
    h = hashing.avalanche(hashing.eat(hashing.hash_seed(-1), -1))
    assert 0 <= int(h) <= 0xFFFFFFFF
    assert int(h) == reference.hash_of(-1, -1)


def test_floats_and_bits() -> None:
    h = np.uint32(0x80FF4001)
    assert hashing.floats01a(h) == pytest.approx(1 / 255)
    assert hashing.floats01b(h) == pytest.approx(0x40 / 255)
    assert hashing.floats01c(h) == pytest.approx(1.0)
    assert hashing.floats01d(h) == pytest.approx(0x80 / 255)
    assert hashing.get_bits(h, 5, 0) == 1
    assert hashing.get_bits(h, 5, 10) == 0x10
    assert hashing.get_bits_as_floats01(h, 5, 10) == pytest.approx(16 / 31)


@pytest.mark.parametrize("data", [0, 1, -1, 5, -7, 2**31 - 1, -(2**31), 123456789, -987654321])
def test_eat_of_a_scaled_word_is_eat(data: int) -> None:
    # The simplex corners form each coordinate's product with C once and step it by adding C:
    # eat_scaled(h, scaled_word(d)) is eat(h, d), and next_scaled_word steps d to d + 1 modulo 2**32
    # (2**31 - 1 wraps to -2**31, as the int32 cells do).
    acc = hashing.hash_seed(42)
    scaled = hashing.scaled_word(data)
    assert int(scaled) == ((data & 0xFFFFFFFF) * reference.PRIME_C) & 0xFFFFFFFF
    assert hashing.eat_scaled(acc, scaled) == hashing.eat(acc, data)
    after = hashing.next_scaled_word(scaled)
    assert after == hashing.scaled_word(data + 1)
    assert hashing.eat_scaled(acc, after) == hashing.eat(acc, (data + 1 + 2**31) % 2**32 - 2**31)
