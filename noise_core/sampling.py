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

from ._jit import jit, named
from .cellular import cellular_block
from .gabor import gabor_block
from .hill import hill
from .lattice_noise import lattice_1d, lattice_2d, lattice_3d, lattice_4d, lattice_block
from .schema import (
    FAMILY_CELLULAR,
    FAMILY_GABOR,
    FAMILY_HILL,
    FAMILY_LATTICE,
    FAMILY_SIMPLEX,
    FAMILY_VORONOI,
    FAMILY_WHITE,
)
from .simplex import (
    simplex_1d,
    simplex_2d,
    simplex_3d,
    simplex_4d,
    simplex_block_2d,
    simplex_block_2d_of,
    simplex_block_3d,
    simplex_block_3d_of,
)
from .voronoi import GENERAL, voronoi_1d, voronoi_block, voronoi_general
from .white import white


def _point_sampler(function, dim, name):
    """``function(variant, x[, y[, z[, w]]], seed, frequency, period)``, a family's noise in ``dim`` dimensions, as a
    point sampler: the ``SAMPLERS``' arguments, the coordinates past ``dim`` ignored (the branches on the constant
    ``dim`` are pruned before typing: each call is direct, so ``variant`` stays a literal). ``name`` names the
    compiled code."""

    def sample(variant, x, y, z, w, seed, frequency, period, params):
        if dim == 1:
            return function(variant, x, seed, frequency, period)
        if dim == 2:
            return function(variant, x, y, seed, frequency, period)
        if dim == 3:
            return function(variant, x, y, z, seed, frequency, period)
        return function(variant, x, y, z, w, seed, frequency, period)

    return jit(named(sample, name))


def lattice_and_simplex_samplers(lattice, simplex, suffix=""):
    """Point samplers by ``(family, dim)`` of lattice noise's functions ``lattice`` and simplex noise's ``simplex``
    (1D to 4D each), named ``_lattice_2d`` etc. with ``suffix``: the value samplers here, the value-and-gradient
    ones in ``derivatives``."""
    samplers = {}
    for family, name, functions in ((FAMILY_LATTICE, "lattice", lattice), (FAMILY_SIMPLEX, "simplex", simplex)):
        for dim, function in enumerate(functions, 1):
            samplers[family, dim] = _point_sampler(function, dim, f"_{name}_{dim}d{suffix}")
    return samplers


def _hill_sampler(dim):
    def sample(variant, x, y, z, w, seed, frequency, period, params):
        return hill(dim, x, y, z, frequency, params)

    return jit(named(sample, f"_hill_{dim}d"))


def _white_sampler(dim):
    def sample(variant, x, y, z, w, seed, frequency, period, params):
        return white(dim, x, y, z, w, seed, frequency, period)

    return jit(named(sample, f"_white_{dim}d"))


@jit
def _voronoi_1d(variant, x, y, z, w, seed, frequency, period, params):
    if variant == GENERAL:
        return voronoi_general(1, params, x, y, z, seed, frequency, period)
    return voronoi_1d(variant, int(params[0]), params[1], x, seed, frequency, period)


SAMPLERS = {
    **lattice_and_simplex_samplers(
        (lattice_1d, lattice_2d, lattice_3d, lattice_4d), (simplex_1d, simplex_2d, simplex_3d, simplex_4d)
    ),
    (FAMILY_VORONOI, 1): _voronoi_1d,
    **{(FAMILY_HILL, dim): _hill_sampler(dim) for dim in (1, 2, 3)},
    **{(FAMILY_WHITE, dim): _white_sampler(dim) for dim in (1, 2, 3, 4)},
}
"""The single-octave noise value at one point, per ``(family, dim)`` without a block sampler (arguments
``variant, x, y, z, seed, frequency, period, params``)."""


BLOCK_SAMPLERS = {
    (FAMILY_LATTICE, 2): lattice_block(2),
    (FAMILY_LATTICE, 3): lattice_block(3),
    (FAMILY_SIMPLEX, 2): simplex_block_2d,
    (FAMILY_SIMPLEX, 3): simplex_block_3d,
    (FAMILY_CELLULAR, 2): cellular_block,
    (FAMILY_CELLULAR, 3): cellular_block,
    (FAMILY_VORONOI, 2): voronoi_block(2),
    (FAMILY_VORONOI, 3): voronoi_block(3),
    (FAMILY_GABOR, 2): gabor_block,
    (FAMILY_GABOR, 3): gabor_block,
}
"""``values[i] = sample(..., xs[i], ys[i], zs[i], ...)`` for a block, per ``(family, dim)``: for the families
that compute a block faster than point by point; the families' own block functions, all with the arguments
``variant, dim, xs, ys, zs, seed, frequency, period, params, values``."""

PRIME_BLOCK_SAMPLERS = {
    (FAMILY_LATTICE, 2): lattice_block(2, prime=True),
    (FAMILY_LATTICE, 3): lattice_block(3, prime=True),
    (FAMILY_SIMPLEX, 2): simplex_block_2d_of(True),
    (FAMILY_SIMPLEX, 3): simplex_block_3d_of(True),
}
"""``BLOCK_SAMPLERS`` of the kinds with ``hash="prime"`` (``hashing.prime_finish``): lattice and simplex noise in 2D
and 3D, the only ``(family, dim)`` pairs that hash so."""

PRIME_ROW_SAMPLERS = {
    (FAMILY_LATTICE, 2): lattice_block(2, prime=True, rows=True),
    (FAMILY_LATTICE, 3): lattice_block(3, prime=True, rows=True),
    (FAMILY_SIMPLEX, 2): simplex_block_2d_of(True, rows=True),
    (FAMILY_SIMPLEX, 3): simplex_block_3d_of(True, rows=True),
}
"""``PRIME_BLOCK_SAMPLERS`` reading a block's float32 points from their (n, dim) rows, flattened, as ``xs`` (``ys``
and ``zs`` unused): the same values bit for bit, without the launcher's copy to float64 columns
(``fractal.ROWS32``)."""

BLOCKWISE = frozenset(BLOCK_SAMPLERS)
"""The ``(family, dim)`` pairs that have a block sampler."""
