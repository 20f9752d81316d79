"""One noise sample of any family: the dispatch point of the kernels.

``family``, ``dim`` and ``variant`` arrive as compile-time literals (see
``fractal.py``). ``x, y, z, w`` are the raw coordinates (unused ones are ignored),
``frequency`` the octave's frequency, ``period`` the tiling period in lattice
cells (0 for no tiling), ``params`` the family's parameters.

``sample`` is resolved when a kernel is typed: ``_SAMPLERS`` maps ``(family, dim)``
to the one family function it calls, so a kernel types and compiles only that
family. (A chain of ``if family == FAMILY_...`` tests would compile every family:
Numba prunes branches on literal arguments only against literal numbers, not
against named module constants.)

``sample_block`` fills a block of values at once. It exists for the families that
compute a block faster than point by point (``_BLOCK_SAMPLERS``: lattice, Voronoi
and cell noise in 2D and 3D); ``BLOCKWISE`` names them, and the kernels of all
other families never reach it (the kernel's branch on that closure constant is
pruned before typing).
"""

from __future__ import annotations

from numba.extending import overload

from ._jit import JIT_OPTIONS
from .cellular import cellular_block
from .hill import hill
from .lattice_noise import lattice_1d, lattice_2d, lattice_3d, lattice_4d, lattice_block_2d, lattice_block_3d
from .schema import FAMILY_CELLULAR, FAMILY_HILL, FAMILY_LATTICE, FAMILY_SIMPLEX, FAMILY_VORONOI
from .simplex import simplex_1d, simplex_2d, simplex_3d, simplex_4d
from .voronoi import voronoi_1d, voronoi_block_2d, voronoi_block_3d


def sample(family, dim, variant, x, y, z, w, seed, frequency, period, params):
    """The single-octave noise value of ``family`` at one point; callable from compiled code only."""
    raise NotImplementedError("sample is compiled into the kernels; call noise_core.evaluate")


# Each implementation takes sample's arguments (Numba requires the same names).
# fmt: off
_SAMPLERS = {
    (FAMILY_LATTICE, 1): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: lattice_1d(
        variant, x, seed, frequency, period),
    (FAMILY_LATTICE, 2): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: lattice_2d(
        variant, x, y, seed, frequency, period),
    (FAMILY_LATTICE, 3): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: lattice_3d(
        variant, x, y, z, seed, frequency, period),
    (FAMILY_LATTICE, 4): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: lattice_4d(
        variant, x, y, z, w, seed, frequency, period),
    (FAMILY_SIMPLEX, 1): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: simplex_1d(
        variant, x, seed, frequency),
    (FAMILY_SIMPLEX, 2): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: simplex_2d(
        variant, x, y, seed, frequency),
    (FAMILY_SIMPLEX, 3): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: simplex_3d(
        variant, x, y, z, seed, frequency),
    (FAMILY_SIMPLEX, 4): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: simplex_4d(
        variant, x, y, z, w, seed, frequency),
    (FAMILY_VORONOI, 1): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: voronoi_1d(
        variant, int(params[0]), params[1], x, seed, frequency, period),
    (FAMILY_HILL, 1): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: hill(
        1, x, y, z, frequency, params),
    (FAMILY_HILL, 2): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: hill(
        2, x, y, z, frequency, params),
    (FAMILY_HILL, 3): lambda family, dim, variant, x, y, z, w, seed, frequency, period, params: hill(
        3, x, y, z, frequency, params),
}
# fmt: on


@overload(sample, prefer_literal=True, jit_options={**JIT_OPTIONS, "forceinline": True})
def _sample(family, dim, variant, x, y, z, w, seed, frequency, period, params):
    """The implementation of ``sample`` for literal ``family`` and ``dim`` (None otherwise: no match)."""
    key = (getattr(family, "literal_value", None), getattr(dim, "literal_value", None))
    return _SAMPLERS.get(key)


def sample_block(family, dim, variant, xs, ys, zs, seed, frequency, period, params, values):
    """``values[i] = sample(..., xs[i], ys[i], zs[i], ...)`` for a block; callable from compiled code only."""
    raise NotImplementedError("sample_block is compiled into the kernels; call noise_core.evaluate")


# fmt: off
_BLOCK_SAMPLERS = {
    (FAMILY_LATTICE, 2): lambda family, dim, variant, xs, ys, zs, seed, frequency, period, params, values: (
        lattice_block_2d(variant, xs, ys, seed, frequency, period, values)),
    (FAMILY_LATTICE, 3): lambda family, dim, variant, xs, ys, zs, seed, frequency, period, params, values: (
        lattice_block_3d(variant, xs, ys, zs, seed, frequency, period, values)),
    (FAMILY_CELLULAR, 2): lambda family, dim, variant, xs, ys, zs, seed, frequency, period, params, values: (
        cellular_block(variant, 2, xs, ys, zs, seed, frequency, period, params, values)),
    (FAMILY_CELLULAR, 3): lambda family, dim, variant, xs, ys, zs, seed, frequency, period, params, values: (
        cellular_block(variant, 3, xs, ys, zs, seed, frequency, period, params, values)),
    (FAMILY_VORONOI, 2): lambda family, dim, variant, xs, ys, zs, seed, frequency, period, params, values: (
        voronoi_block_2d(variant, int(params[0]), params[1], xs, ys, seed, frequency, period, values)),
    (FAMILY_VORONOI, 3): lambda family, dim, variant, xs, ys, zs, seed, frequency, period, params, values: (
        voronoi_block_3d(variant, int(params[0]), params[1], xs, ys, zs, seed, frequency, period, values)),
}
# fmt: on

BLOCKWISE = frozenset(_BLOCK_SAMPLERS)
"""The ``(family, dim)`` pairs that have a block sampler."""


@overload(sample_block, prefer_literal=True, jit_options={**JIT_OPTIONS, "forceinline": True})
def _sample_block(family, dim, variant, xs, ys, zs, seed, frequency, period, params, values):
    """The implementation of ``sample_block`` for literal ``family`` and ``dim`` in ``BLOCKWISE``."""
    key = (getattr(family, "literal_value", None), getattr(dim, "literal_value", None))
    return _BLOCK_SAMPLERS.get(key)
