"""One noise sample of any family, or a block of them: the dispatch point of the kernels.

``SAMPLERS`` maps ``(family, dim)`` to the function giving one sample, ``BLOCK_SAMPLERS``
to the function filling a block of values at once, for the families that compute a
block faster than point by point (lattice, Voronoi and cell noise in 2D and 3D;
``BLOCKWISE`` names them). ``fractal._build_block`` looks its family's function up
when it is built and holds it as a closure constant, so a kernel types and compiles
only that family. Arguments: ``variant`` (the kind's variant code), ``x, y, z, w`` the
raw coordinates (unused ones are ignored; ``xs, ys, zs`` for a block), ``seed``,
``frequency`` the octave's frequency, ``period`` the tiling period in lattice cells
(0 for no tiling), ``params`` the family's parameters (and ``values``, a block's
float32 output: every block sampler computes its values in float32).

The point samplers only adapt these arguments to the family's function; the block
samplers are the families' block functions themselves, which take these arguments (and
``dim``) as they are. They are inlined by Numba into their caller before typing
(``_jit.inline``): a compiled function of their own would be one more module that
optimises and compiles the family's large block code again, and an adapter between them
and their caller one more inlining, which copies the inlined code again (0.25 s of a
cellular 3D first use). The point samplers are ``jit`` helpers, inlined by
LLVM (inlined by Numba, Voronoi 1D's point loop lost its speed: docs/benchmarks.md).
"""

from __future__ import annotations

from ._jit import jit
from .cellular import cellular_block
from .gabor import gabor_block
from .hill import hill
from .lattice_noise import lattice_1d, lattice_2d, lattice_3d, lattice_4d, lattice_block_2d, lattice_block_3d
from .schema import (
    FAMILY_CELLULAR,
    FAMILY_GABOR,
    FAMILY_HILL,
    FAMILY_LATTICE,
    FAMILY_SIMPLEX,
    FAMILY_VORONOI,
    FAMILY_WHITE,
)
from .simplex import simplex_1d, simplex_2d, simplex_3d, simplex_4d, simplex_block_2d, simplex_block_3d
from .voronoi import GENERAL, voronoi_1d, voronoi_block_2d, voronoi_block_3d, voronoi_general
from .white import white


@jit
def _lattice_1d(variant, x, y, z, w, seed, frequency, period, params):
    return lattice_1d(variant, x, seed, frequency, period)


@jit
def _lattice_2d(variant, x, y, z, w, seed, frequency, period, params):
    return lattice_2d(variant, x, y, seed, frequency, period)


@jit
def _lattice_3d(variant, x, y, z, w, seed, frequency, period, params):
    return lattice_3d(variant, x, y, z, seed, frequency, period)


@jit
def _lattice_4d(variant, x, y, z, w, seed, frequency, period, params):
    return lattice_4d(variant, x, y, z, w, seed, frequency, period)


@jit
def _simplex_1d(variant, x, y, z, w, seed, frequency, period, params):
    return simplex_1d(variant, x, seed, frequency)


@jit
def _simplex_2d(variant, x, y, z, w, seed, frequency, period, params):
    return simplex_2d(variant, x, y, seed, frequency)


@jit
def _simplex_3d(variant, x, y, z, w, seed, frequency, period, params):
    return simplex_3d(variant, x, y, z, seed, frequency)


@jit
def _simplex_4d(variant, x, y, z, w, seed, frequency, period, params):
    return simplex_4d(variant, x, y, z, w, seed, frequency)


@jit
def _voronoi_1d(variant, x, y, z, w, seed, frequency, period, params):
    if variant == GENERAL:
        return voronoi_general(1, params, x, y, z, seed, frequency, period)
    return voronoi_1d(variant, int(params[0]), params[1], x, seed, frequency, period)


@jit
def _hill_1d(variant, x, y, z, w, seed, frequency, period, params):
    return hill(1, x, y, z, frequency, params)


@jit
def _hill_2d(variant, x, y, z, w, seed, frequency, period, params):
    return hill(2, x, y, z, frequency, params)


@jit
def _hill_3d(variant, x, y, z, w, seed, frequency, period, params):
    return hill(3, x, y, z, frequency, params)


@jit
def _white_1d(variant, x, y, z, w, seed, frequency, period, params):
    return white(1, x, y, z, w, seed, frequency, period)


@jit
def _white_2d(variant, x, y, z, w, seed, frequency, period, params):
    return white(2, x, y, z, w, seed, frequency, period)


@jit
def _white_3d(variant, x, y, z, w, seed, frequency, period, params):
    return white(3, x, y, z, w, seed, frequency, period)


@jit
def _white_4d(variant, x, y, z, w, seed, frequency, period, params):
    return white(4, x, y, z, w, seed, frequency, period)


SAMPLERS = {
    (FAMILY_LATTICE, 1): _lattice_1d,
    (FAMILY_LATTICE, 2): _lattice_2d,
    (FAMILY_LATTICE, 3): _lattice_3d,
    (FAMILY_LATTICE, 4): _lattice_4d,
    (FAMILY_SIMPLEX, 1): _simplex_1d,
    (FAMILY_SIMPLEX, 2): _simplex_2d,
    (FAMILY_SIMPLEX, 3): _simplex_3d,
    (FAMILY_SIMPLEX, 4): _simplex_4d,
    (FAMILY_VORONOI, 1): _voronoi_1d,
    (FAMILY_HILL, 1): _hill_1d,
    (FAMILY_HILL, 2): _hill_2d,
    (FAMILY_HILL, 3): _hill_3d,
    (FAMILY_WHITE, 1): _white_1d,
    (FAMILY_WHITE, 2): _white_2d,
    (FAMILY_WHITE, 3): _white_3d,
    (FAMILY_WHITE, 4): _white_4d,
}
"""The single-octave noise value at one point, per ``(family, dim)`` without a block sampler (arguments
``variant, x, y, z, seed, frequency, period, params``)."""


BLOCK_SAMPLERS = {
    (FAMILY_LATTICE, 2): lattice_block_2d,
    (FAMILY_LATTICE, 3): lattice_block_3d,
    (FAMILY_SIMPLEX, 2): simplex_block_2d,
    (FAMILY_SIMPLEX, 3): simplex_block_3d,
    (FAMILY_CELLULAR, 2): cellular_block,
    (FAMILY_CELLULAR, 3): cellular_block,
    (FAMILY_VORONOI, 2): voronoi_block_2d,
    (FAMILY_VORONOI, 3): voronoi_block_3d,
    (FAMILY_GABOR, 2): gabor_block,
    (FAMILY_GABOR, 3): gabor_block,
}
"""``values[i] = sample(..., xs[i], ys[i], zs[i], ...)`` for a block, per ``(family, dim)``: for the families
that compute a block faster than point by point; the families' own block functions, all with the arguments
``variant, dim, xs, ys, zs, seed, frequency, period, params, values``."""

BLOCKWISE = frozenset(BLOCK_SAMPLERS)
"""The ``(family, dim)`` pairs that have a block sampler."""
