"""Golden outputs: the sha256 of every kind's values, in every dimension and option, pinned.

The kernels, the spec validation and the registry may be rearranged; what they compute may not change
unless a test here is deliberately updated (with the reason in the commit message). Each case hashes
``evaluate`` at fixed points and a small ``evaluate_grid``.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

import noise_core as nc


def _points(dim: int) -> np.ndarray:
    rng = np.random.default_rng(1234 + dim)
    return rng.uniform(-3.0, 3.0, size=(257, dim))


CASES: list[tuple[dict, int]] = []
for _kind in ("value", "perlin", "simplex_value", "simplex"):
    for _dim in (1, 2, 3):
        CASES.append(({"kind": _kind}, _dim))
    CASES.append(({"kind": _kind, "octaves": 4, "seed": -7, "lacunarity": 2.5, "persistence": 0.6}, 3))
    CASES.append(({"kind": _kind, "turbulence": True, "octaves": 3}, 2))
for _kind in ("value", "perlin"):
    CASES.append(({"kind": _kind, "tiling": True, "frequency": 3.0, "octaves": 2}, 2))
    CASES.append(({"kind": _kind, "tiling": True}, 3))
for _distance in ("worley", "chebyshev", "squared", "manhattan"):
    for _function in ("f1", "f2", "f2_minus_f1", "cell"):
        CASES.append(({"kind": "voronoi", "distance": _distance, "function": _function}, 2))
for _dim in (1, 3):
    CASES.append(({"kind": "voronoi", "jitter": 0.5, "seed": 3}, _dim))
CASES.append(({"kind": "voronoi", "tiling": True, "octaves": 2}, 2))
for _distance in ("euclidean", "squared", "manhattan", "chebyshev"):
    for _function in ("f1", "f2", "f3", "f2_minus_f1"):
        CASES.append(({"kind": "cellular", "distance": _distance, "function": _function}, 2))
CASES.append(({"kind": "cellular", "density": 1.5, "seed": 11}, 3))
CASES.append(({"kind": "cellular", "tiling": True, "octaves": 2}, 3))
for _dim in (1, 2, 3):
    CASES.append(({"kind": "hill"}, _dim))
CASES.append(({"kind": "hill", "distribution": "raw", "sines": 20, "smoothness": 1.5}, 2))
CASES.append(({"kind": "hill", "distribution": "weibull", "alpha": 2.0, "beta": 1.5}, 3))
CASES.append(({"kind": "hill", "sizes": (1.0, 0.5, 0.25), "seed": 5}, 2))
CASES.append(({"kind": "hill", "turbulence": True}, 2))
for _kind in ("value", "perlin", "simplex_value", "simplex"):  # 4D, appended so the indices above stay
    CASES.append(({"kind": _kind}, 4))
    CASES.append(({"kind": _kind, "octaves": 3, "seed": -7, "fractal": "ridged", "offset": 1.0}, 4))
for _kind in ("value", "perlin"):
    CASES.append(({"kind": _kind, "tiling": True, "frequency": 3.0, "octaves": 2}, 4))


def digest(options: dict, dim: int) -> str:
    spec = nc.NoiseSpec(**options)
    values = nc.evaluate(spec, _points(dim))
    parts = [values.tobytes()]
    if dim == 2:
        parts.append(nc.evaluate_grid(spec, (13, 17)).tobytes())
    return hashlib.sha256(b"".join(parts)).hexdigest()[:24]


GOLDEN = {
    0: "3a8425be8f7d0a11b2730a16",
    1: "134dba324ece5c9da937f005",
    2: "5c7168dcc15865d6f519804d",
    3: "9eafb5ab18cfbb32f24e7b3b",
    4: "babe63f72c3180f2cc1dff18",
    5: "a58f60f4303a02d63f6f9425",
    6: "e4238766571f70a66bfce03b",
    7: "8971d017d92e15960f326b2c",
    8: "63b3aff88d78c5aefac5fe7a",
    9: "c49a3c8db2148fc2868c8f15",
    10: "0b57dd97aa095c368bffc1bd",
    11: "e6054137163a1f00f72e5434",
    12: "d70f23c1905eecfd1e5e0d08",
    13: "9a8d2115b13da320d56ce514",
    14: "201c7d6e63b611f3051eb6be",
    15: "d1f1d7564feccc7242dd674e",
    16: "88ecaa37b4277a3a4950db25",
    17: "307228c355cd8cc98eb30f06",
    18: "9270320350d819860f8362b1",
    19: "4f21d7e7be6e5bbc4b5bb7bd",
    20: "c6d5153918e2a96daf2b48a1",
    21: "c5949ec20d03abc77794a54b",
    22: "d32abdf47b9cfe205f388266",
    23: "804cfffcc8e006ab0089d086",
    24: "0f03407cbddfe00d98cbd97f",
    25: "74ba5e8dc6ce55a47ec3533e",
    26: "988fbd975da11eed114b9004",
    27: "8c9f3d45be0f6c8bb32919fe",
    28: "f66edaf67b99377a01488648",
    29: "fe74c164478ded262dc8c167",
    30: "0bc8899746c724a57558931b",
    31: "49ed4955171eacaa64b6d170",
    32: "98b20c0ca65b7c9f3c1c7e33",
    33: "468c4da18789dcc6f7f74cfc",
    34: "d65a230ac100b07ddb66bedd",
    35: "8c9f3d45be0f6c8bb32919fe",
    36: "f92f07a0f9c3ae6d9c335cee",
    37: "89f42a00c1941daf3b26a1b8",
    38: "b476df69d7ff440088a008d9",
    39: "9d3228976378f672926680a2",
    40: "fdc7056759ad6dd57fb9e581",
    41: "18299bf323f825ad718b1e72",
    42: "f6cc44899e6fe45ba7bbd807",
    43: "d1d4a5a747a6daabee3c7ed2",
    44: "a4faac362137b9f37f17f32e",
    45: "5b79449cfda1a80f6093d3a4",
    46: "6256a12352ca7680fa4fdc25",
    47: "0ba4c2ec99ab56c33ba0700c",
    48: "f776adfb7b004fcea37930fc",
    49: "7b3426e2dd4307d621239f00",
    50: "b2d7e19d9549858cd963aa91",
    51: "2ce075190b310c069473c6f7",
    52: "ee06d29d46962cc2299eb282",
    53: "62c58997f0c4855b0c6ff162",
    54: "30bf3cc733259e2d3e958956",
    55: "e7e00b2812bf449bbc5bdc6d",
    56: "a6b487c9701a061ad79487ad",
    57: "966dfa308764d63b364ec664",
    58: "f64f567802fecb4e88efd25a",
    59: "a0f2baff24cafe3ef97602b6",
    60: "c6619dd147a94532ba6d6360",
    61: "5b06d48ed99fdaafbe5a98e5",
    62: "69730fce1391b9135a4032cc",
    63: "add7472fec12d89a1a38cad2",
    64: "356dad3140f48d9119ffa17f",
    65: "8855af586ae400c0a336ad36",
    66: "1794e80651251690bef738fd",
    67: "69730fce1391b9135a4032cc",
    68: "57535cf1ec266f71269b70e2",
    69: "7dc670c755e31f964dd02b94",
    70: "90f7226566b32d82194c877e",
    71: "ade8b8b550b1be3db3258362",
    72: "c801d368c50a79d39816b7f8",
    73: "b4476b838eab14791a6f402d",
    74: "16bc5bdab35a57cf925f444e",
    75: "95a7dbe1268953a1591f4d69",
    76: "19fca2b450d02c2318d58e9e",
    77: "854fdf3e77aee61628cdc727",
}


@pytest.mark.parametrize(("index"), range(len(CASES)))
def test_golden(index: int) -> None:
    options, dim = CASES[index]
    assert digest(options, dim) == GOLDEN[index], (options, dim)
