"""White noise in 1D-4D: one hash per lattice cell, as Blender's White Noise Texture.

The value of a sample is that of its lattice cell ``(floor(x f), floor(y f), ...)`` for frequency ``f``:
``avalanche(eat(... eat(hash_seed(seed), cx) ..., cw))``, SmallXXHash (seed 004) eating the cell's lattice
coordinates x, then y, z, w as the other kinds do, mapped to [0, 1) by its top 24 bits, ``(h >> 8) / 2**24``
(the Voronoi ``cell`` value's mapping). It is constant inside each cell and independent between cells: for
per-cell randomness (tile colours, scatter IDs). With tiling the cell coordinates wrap modulo the octave's
frequency (``lattice.wrap``), so the pattern repeats with period 1. Blender's node hashes the raw input
coordinates (each float a different value); ours hashes lattice cells, so ``frequency`` sets the cell size.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit
from .hashing import avalanche, eat, hash_seed
from .lattice import wrap
from .schema import FAMILY_WHITE, Kind, unit_range

CELL_VALUE_SCALE = 1.0 / 2.0**24

KIND = Kind(
    "white",
    FAMILY_WHITE,
    0,
    (1, 2, 3, 4),
    (),
    True,
    "White noise: one random value per lattice cell, as Blender's White Noise Texture (range 0..1).",
    unit_range,
)
"""White noise: in [0, 1) (24-bit values)."""


@jit
def _cell(coordinate, frequency, period):
    """The lattice cell of ``coordinate`` (wrapped into ``[0, period)`` when tiling) as an int64."""
    return np.int64(np.int32(wrap(np.floor(coordinate * frequency), period)))


@jit
def white(dim, x, y, z, w, seed, frequency, period):
    """The white noise value of the cell holding ``(x, y, z, w)`` (the first ``dim`` coordinates)."""
    h = eat(hash_seed(seed), _cell(x, frequency, period))
    if dim > 1:
        h = eat(h, _cell(y, frequency, period))
    if dim > 2:
        h = eat(h, _cell(z, frequency, period))
    if dim > 3:
        h = eat(h, _cell(w, frequency, period))
    return np.float64(avalanche(h) >> 8) * CELL_VALUE_SCALE
