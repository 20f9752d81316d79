"""Lattice (value and Perlin) noise in 1D, 2D and 3D (seed 004, "Value Noise", "Perlin Noise").

The sample's coordinates, multiplied by the frequency, fall in a lattice cell. Each
corner's hash is SmallXXHash(seed) eating the corner's lattice coordinates in
order (x, then y, then z); its gradient is evaluated at the sample's offset from
that corner, and the corners are blended with the quintic weights of the spans,
x outermost, exactly as the seeds' ``Lattice1D/2D/3D``.
"""

from __future__ import annotations

from ._jit import jit
from .gradients import evaluate_1d, evaluate_2d, evaluate_3d
from .hashing import avalanche, eat, hash_seed
from .lattice import span


@jit
def _lerp(a, b, t):
    return a + (b - a) * t


@jit
def lattice_1d(gradient, x, seed, frequency, period):
    """1D lattice noise of gradient kind ``gradient`` at ``x``."""
    h = hash_seed(seed)
    x0, x1, gx0, gx1, tx = span(x * frequency, period)
    a = evaluate_1d(gradient, avalanche(eat(h, x0)), gx0)
    b = evaluate_1d(gradient, avalanche(eat(h, x1)), gx1)
    return _lerp(a, b, tx)


@jit
def lattice_2d(gradient, x, y, seed, frequency, period):
    """2D lattice noise at ``(x, y)``: bilinear blend of four corner gradients."""
    h = hash_seed(seed)
    x0, x1, gx0, gx1, tx = span(x * frequency, period)
    y0, y1, gy0, gy1, ty = span(y * frequency, period)
    h0 = eat(h, x0)
    h1 = eat(h, x1)
    a = _lerp(
        evaluate_2d(gradient, avalanche(eat(h0, y0)), gx0, gy0),
        evaluate_2d(gradient, avalanche(eat(h0, y1)), gx0, gy1),
        ty,
    )
    b = _lerp(
        evaluate_2d(gradient, avalanche(eat(h1, y0)), gx1, gy0),
        evaluate_2d(gradient, avalanche(eat(h1, y1)), gx1, gy1),
        ty,
    )
    return _lerp(a, b, tx)


@jit
def lattice_3d(gradient, x, y, z, seed, frequency, period):
    """3D lattice noise at ``(x, y, z)``: trilinear blend of eight corner gradients."""
    h = hash_seed(seed)
    x0, x1, gx0, gx1, tx = span(x * frequency, period)
    y0, y1, gy0, gy1, ty = span(y * frequency, period)
    z0, z1, gz0, gz1, tz = span(z * frequency, period)
    h0 = eat(h, x0)
    h1 = eat(h, x1)
    h00 = eat(h0, y0)
    h01 = eat(h0, y1)
    h10 = eat(h1, y0)
    h11 = eat(h1, y1)
    a = _lerp(
        _lerp(
            evaluate_3d(gradient, avalanche(eat(h00, z0)), gx0, gy0, gz0),
            evaluate_3d(gradient, avalanche(eat(h00, z1)), gx0, gy0, gz1),
            tz,
        ),
        _lerp(
            evaluate_3d(gradient, avalanche(eat(h01, z0)), gx0, gy1, gz0),
            evaluate_3d(gradient, avalanche(eat(h01, z1)), gx0, gy1, gz1),
            tz,
        ),
        ty,
    )
    b = _lerp(
        _lerp(
            evaluate_3d(gradient, avalanche(eat(h10, z0)), gx1, gy0, gz0),
            evaluate_3d(gradient, avalanche(eat(h10, z1)), gx1, gy0, gz1),
            tz,
        ),
        _lerp(
            evaluate_3d(gradient, avalanche(eat(h11, z0)), gx1, gy1, gz0),
            evaluate_3d(gradient, avalanche(eat(h11, z1)), gx1, gy1, gz1),
            tz,
        ),
        ty,
    )
    return _lerp(a, b, tx)
