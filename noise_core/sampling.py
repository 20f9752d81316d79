"""One noise sample of any family: the dispatch point of the kernels.

``family``, ``dim`` and ``variant`` arrive as compile-time literals (see
``fractal.py``), so Numba prunes every branch but one and each combination gets
its own straight-line machine code. ``x, y, z`` are the raw coordinates (unused
ones are ignored), ``frequency`` the octave's frequency, ``period`` the tiling
period in lattice cells (0 for no tiling), ``params`` the family's parameters.
"""

from __future__ import annotations

from ._jit import jit
from .cellular import cellular_2d, cellular_3d
from .hill import hill
from .kinds import FAMILY_CELLULAR, FAMILY_HILL, FAMILY_LATTICE, FAMILY_SIMPLEX, FAMILY_VORONOI
from .lattice_noise import lattice_1d, lattice_2d, lattice_3d
from .simplex import simplex_1d, simplex_2d, simplex_3d
from .voronoi import voronoi_1d, voronoi_2d, voronoi_3d


@jit
def sample(family, dim, variant, x, y, z, seed, frequency, period, params):
    """The single-octave noise value of ``family`` at one point."""
    if family == FAMILY_LATTICE:
        if dim == 1:
            return lattice_1d(variant, x, seed, frequency, period)
        if dim == 2:
            return lattice_2d(variant, x, y, seed, frequency, period)
        return lattice_3d(variant, x, y, z, seed, frequency, period)
    if family == FAMILY_SIMPLEX:
        if dim == 1:
            return simplex_1d(variant, x, seed, frequency)
        if dim == 2:
            return simplex_2d(variant, x, y, seed, frequency)
        return simplex_3d(variant, x, y, z, seed, frequency)
    if family == FAMILY_VORONOI:
        function = int(params[0])
        jitter = params[1]
        if dim == 1:
            return voronoi_1d(variant, function, jitter, x, seed, frequency, period)
        if dim == 2:
            return voronoi_2d(variant, function, jitter, x, y, seed, frequency, period)
        return voronoi_3d(variant, function, jitter, x, y, z, seed, frequency, period)
    if family == FAMILY_CELLULAR:
        if dim == 2:
            return cellular_2d(variant, x, y, seed, frequency, period, params)
        return cellular_3d(variant, x, y, z, seed, frequency, period, params)
    if family == FAMILY_HILL:
        return hill(dim, x, y, z, frequency, params)
    return 0.0
