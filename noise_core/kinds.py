"""The noise kinds: which family computes each, in which dimensions, with which options.

A kind is a family (the sampling function in ``sampling.py``) plus a variant code
the family understands (a gradient for lattice and simplex noise, a distance
metric for Voronoi and cellular noise). ``KINDS`` is the single table the spec
validation, the kernels, the CLI and the add-on read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from . import cellular, gradients, hill, voronoi

if TYPE_CHECKING:
    from .spec import NoiseSpec

FAMILY_LATTICE = 0
FAMILY_SIMPLEX = 1
FAMILY_VORONOI = 2
FAMILY_CELLULAR = 3
FAMILY_HILL = 4


@dataclass(frozen=True)
class KindInfo:
    """What one kind is: family, default variant, dimensions, options, tiling."""

    name: str
    family: int
    variant: int
    dims: tuple[int, ...]
    options: tuple[str, ...]
    tiling: bool
    description: str
    pack: Callable[[NoiseSpec], tuple[int, np.ndarray]] | None = None
    """Optional: the spec's variant code and float64 parameter array for the kernel."""


def _pack_voronoi(spec: NoiseSpec) -> tuple[int, np.ndarray]:
    """Voronoi: the metric code is the variant (it changes the machine code); function and jitter are parameters."""
    params = np.array([voronoi.FUNCTION_CODES[spec.function], spec.jitter], dtype=np.float64)
    return voronoi.METRIC_CODES[spec.distance], params


KINDS: dict[str, KindInfo] = {
    info.name: info
    for info in (
        KindInfo(
            "value",
            FAMILY_LATTICE,
            gradients.VALUE,
            (1, 2, 3),
            (),
            True,
            "Value noise: random values at lattice points, smoothly blended (range -1..1).",
        ),
        KindInfo(
            "perlin",
            FAMILY_LATTICE,
            gradients.PERLIN,
            (1, 2, 3),
            (),
            True,
            "Perlin gradient noise on the square/cubic lattice (range -1..1).",
        ),
        KindInfo(
            "simplex_value",
            FAMILY_SIMPLEX,
            gradients.VALUE,
            (1, 2, 3),
            (),
            False,
            "Simplex value noise: random values at simplex-lattice points, radial kernels summed (range -1..1).",
        ),
        KindInfo(
            "simplex",
            FAMILY_SIMPLEX,
            gradients.SIMPLEX,
            (1, 2, 3),
            (),
            False,
            "Simplex gradient noise: circle/sphere gradients with radial kernels on a simplex lattice (range -1..1).",
        ),
        KindInfo(
            "voronoi",
            FAMILY_VORONOI,
            voronoi.WORLEY,
            (1, 2, 3),
            ("distance", "function", "jitter"),
            True,
            "Voronoi noise: distances to random points per lattice cell, F1/F2/F2-F1 or a cell value (range 0..1).",
            _pack_voronoi,
        ),
        KindInfo(
            "cellular",
            FAMILY_CELLULAR,
            cellular.EUCLIDEAN,
            (2, 3),
            ("distance", "function", "density"),
            True,
            "Worley cell noise: Poisson-distributed feature points per cell, F1/F2/F3/F2-F1 (range 0..1).",
            cellular.pack_cellular,
        ),
        KindInfo(
            "hill",
            FAMILY_HILL,
            0,
            (1, 2, 3),
            ("smoothness", "sines", "sizes", "distribution", "alpha", "beta"),
            False,
            "Hill noise: a sum of sines with size-proportional amplitude, nearly uniform on 0..1.",
            hill.pack_hill,
        ),
    )
}


def kind_info(kind: str) -> KindInfo:
    """The table row of ``kind``; ``ValueError`` naming the allowed kinds otherwise."""
    try:
        return KINDS[kind]
    except (KeyError, TypeError):
        allowed = ", ".join(repr(k) for k in KINDS)
        raise ValueError(f"kind: unknown kind {kind!r}; allowed: {allowed}") from None


NO_PARAMS = np.zeros(0, dtype=np.float64)


def kernel_arguments(spec: NoiseSpec) -> tuple[int, int, np.ndarray]:
    """``(family, variant, params)``: what the kernel needs to know about ``spec``'s kind."""
    info = KINDS[spec.kind]
    if info.pack is None:
        return info.family, info.variant, NO_PARAMS
    variant, params = info.pack(spec)
    return info.family, variant, np.ascontiguousarray(params, dtype=np.float64)
