"""Analytic derivatives: each noise's value together with its gradient with respect to the input coordinates.

Lattice noise (seed 004) blends corner gradients ``c`` with quintic weights ``t = s(g)``; the derivative of
``lerp(a, b, t)`` along the weight's axis is ``lerp(a', b', t) + (b - a) s'(g)`` with
``s'(g) = 30 g^2 (g - 1)^2``, and along the other axes ``lerp(a', b', t)``. A corner's own derivative is its
gradient vector (zero for value noise). Simplex noise (seed 001) sums ``f(r^2) c`` with
``f = 8 max(0, 1/2 - r^2)^3`` (1D: ``(1 - x^2)^3``); each term's derivative is ``f' 2 d c + f grad c`` for the
corner offset ``d``. Both are multiplied by the scale of the coordinates (the frequency; for simplex also
``1/sqrt(3)`` in 2D, ``0.6`` in 3D: the skew only picks the corners). The values fold by ``fractal``'s own fold
(``fractal_modes.fold``, ``finished``); the gradients beside them: fBm's weighted mean (turbulence:
``d|n| = sign(n) dn``) or the Musgrave modes by the product and chain rules (``_combine_d``).
Values are computed by the same expressions as ``evaluate``'s, so the value column equals it to within a few
float32 roundings; the gradient is float64 until it is stored as float32.
"""

from __future__ import annotations

import numpy as np
from numba.extending import overload

from ._jit import JIT_OPTIONS, jit, range_kernel, scratch
from .blocks import block_span, read_block
from .fractal_modes import (
    FBM,
    HETERO_TERRAIN,
    HYBRID,
    HYBRID_STOP,
    MODE_CODES,
    MULTIFRACTAL,
    amplitude_sum,
    finished,
    fold,
    octave_arguments,
    octave_settings,
)
from .gradients import (
    PERLIN,
    PERLIN_2D_SCALE,
    PERLIN_3D_SCALE,
    PERLIN_4D_SCALE,
    SIMPLEX_1D_SCALE,
    SIMPLEX_2D_SCALE,
    SIMPLEX_3D_SCALE,
    SIMPLEX_4D_SCALE,
    VALUE,
    evaluate_1d,
    evaluate_2d,
    evaluate_3d,
    evaluate_4d,
    hypercube_vectors,
    octahedron_vectors,
    square_vectors,
)
from .hashing import avalanche, eat, floats01a, hash_seed
from .lattice import offset32, span
from .lattice_noise import _blend_2d, _blend_3d, _corner_hashes_2d, _corner_hashes_3d, _lerp, quadrilinear
from .registry import KINDS
from .runtime import launch_blocks, range_signature
from .sampling import lattice_and_simplex_samplers
from .schema import FAMILY_LATTICE, FAMILY_SIMPLEX
from .simplex import (
    SCALE_2D,
    SCALE_3D,
    corner_offset_4d,
    scaled_pentachoron,
    segment,
    tetrahedron_cell,
    tetrahedron_hashes,
    tetrahedron_offsets,
    tetrahedron_sum,
    triangle_cell,
    triangle_hashes,
    triangle_offsets,
    triangle_sum,
)
from .threads import on_threads

DERIVATIVE_BLOCK = 520
"""Points per block of the derivative kernels (about a quarter of ``blocks.BLOCK``): their buffers, up to 112 bytes
per point (4D coordinates, and a Musgrave mode's running totals, weights and their gradients), stay on the stack,
57 KB at most (at ``BLOCK`` points they would take 224 KB of the 512 KB of a macOS worker thread's stack). Not a
power of two: rows of 512 float64 (4 KB apart) would all fall into the same L1 cache sets."""

DERIVABLE_FAMILIES = (FAMILY_LATTICE, FAMILY_SIMPLEX)
DERIVABLE_KINDS = tuple(name for name, kind in KINDS.items() if kind.family in DERIVABLE_FAMILIES)
"""The kinds with an analytic gradient (``evaluate(..., derivatives=True)``, analytic normal maps)."""


@jit
def smooth_slope(g):
    """``d/dg`` of the quintic weight ``6g^5 - 15g^4 + 10g^3``: ``30 g^2 (g - 1)^2``."""
    h = g * (g - 1.0)
    return 30.0 * h * h


@jit
def vector_1d(gradient, h):
    """``d/dx`` of ``evaluate_1d(gradient, h, x)`` (a constant: the gradients are linear in the offset)."""
    if gradient == VALUE:
        return 0.0
    slope = 1.0 + floats01a(h)
    slope = slope if (h & 256) == 0 else -slope
    return slope if gradient == PERLIN else slope * SIMPLEX_1D_SCALE


@jit
def vector_2d(gradient, h):
    """The gradient vector of ``evaluate_2d(gradient, h, x, y)``: its derivative in ``x`` and ``y``."""
    if gradient == VALUE:
        return 0.0, 0.0
    gx, gy = square_vectors(h)
    if gradient == PERLIN:
        return gx * PERLIN_2D_SCALE, gy * PERLIN_2D_SCALE
    scale = SIMPLEX_2D_SCALE / np.sqrt(gx * gx + gy * gy)
    return gx * scale, gy * scale


@jit
def vector_3d(gradient, h):
    """The gradient vector of ``evaluate_3d(gradient, h, x, y, z)``."""
    if gradient == VALUE:
        return 0.0, 0.0, 0.0
    gx, gy, gz = octahedron_vectors(h)
    if gradient == PERLIN:
        return gx * PERLIN_3D_SCALE, gy * PERLIN_3D_SCALE, gz * PERLIN_3D_SCALE
    scale = SIMPLEX_3D_SCALE / np.sqrt(gx * gx + gy * gy + gz * gz)
    return gx * scale, gy * scale, gz * scale


@jit
def vector_4d(gradient, h):
    """The gradient vector of ``evaluate_4d(gradient, h, x, y, z, w)``."""
    if gradient == VALUE:
        return 0.0, 0.0, 0.0, 0.0
    gx, gy, gz, gw = hypercube_vectors(h)
    scale = PERLIN_4D_SCALE if gradient == PERLIN else SIMPLEX_4D_SCALE
    return gx * scale, gy * scale, gz * scale, gw * scale


@jit
def _lerp_d(a, b, t, slope, axis):
    """``lerp(a, b, t)`` of ``(value, d/dx, d/dy, d/dz, d/dw)`` tuples, ``t`` a weight of coordinate ``axis``
    whose derivative is ``slope``."""
    change = b[0] - a[0]
    return (
        _lerp(a[0], b[0], t),
        _lerp(a[1], b[1], t) + (change * slope if axis == 0 else 0.0),
        _lerp(a[2], b[2], t) + (change * slope if axis == 1 else 0.0),
        _lerp(a[3], b[3], t) + (change * slope if axis == 2 else 0.0),
        _lerp(a[4], b[4], t) + (change * slope if axis == 3 else 0.0),
    )


@jit
def _scaled(d, scale):
    """``(value, gradient * scale)``: the chain rule for coordinates multiplied by ``scale``."""
    return d[0], d[1] * scale, d[2] * scale, d[3] * scale, d[4] * scale


@jit
def lattice_1d_d(gradient, x, seed, frequency, period):
    """1D lattice noise and its derivative at ``x``."""
    h = hash_seed(seed)
    x0, x1, gx0, gx1, tx = span(x * frequency, period)
    h0 = avalanche(eat(h, x0))
    h1 = avalanche(eat(h, x1))
    a = (evaluate_1d(gradient, h0, gx0), vector_1d(gradient, h0), 0.0, 0.0, 0.0)
    b = (evaluate_1d(gradient, h1, gx1), vector_1d(gradient, h1), 0.0, 0.0, 0.0)
    return _scaled(_lerp_d(a, b, tx, smooth_slope(gx0), 0), frequency)


@jit
def _with_value(d, value):
    """``d`` with its value replaced by ``value`` (the float32 blend of ``evaluate``, so the value column is
    bit for bit ``evaluate``'s; the gradient stays the float64 derivative of the same blend)."""
    return np.float64(value), d[1], d[2], d[3], d[4]


@jit
def _corner_2d(gradient, h, x, y):
    vx, vy = vector_2d(gradient, h)
    return evaluate_2d(gradient, h, x, y), vx, vy, 0.0, 0.0


@jit
def lattice_2d_d(gradient, x, y, seed, frequency, period):
    """2D lattice noise and its gradient at ``(x, y)``: the bilinear blend of ``lattice_2d``, differentiated."""
    x0, x1, gx0, gx1, tx = span(x * frequency, period)
    y0, y1, gy0, gy1, ty = span(y * frequency, period)
    h00, h01, h10, h11 = _corner_hashes_2d(hash_seed(seed), x0, x1, y0, y1)
    sy = smooth_slope(gy0)
    a = _lerp_d(_corner_2d(gradient, h00, gx0, gy0), _corner_2d(gradient, h01, gx0, gy1), ty, sy, 1)
    b = _lerp_d(_corner_2d(gradient, h10, gx1, gy0), _corner_2d(gradient, h11, gx1, gy1), ty, sy, 1)
    fx, wx = offset32(gx0)  # lattice_2d's float32 offsets and weights
    fy, wy = offset32(gy0)
    value = _blend_2d(gradient, h00, h01, h10, h11, fx, wx, fy, wy)
    return _with_value(_scaled(_lerp_d(a, b, tx, smooth_slope(gx0), 0), frequency), value)


@jit
def _corner_3d(gradient, h, x, y, z):
    vx, vy, vz = vector_3d(gradient, h)
    return evaluate_3d(gradient, h, x, y, z), vx, vy, vz, 0.0


@jit
def lattice_3d_d(gradient, x, y, z, seed, frequency, period):
    """3D lattice noise and its gradient at ``(x, y, z)``: the trilinear blend of ``lattice_3d``, differentiated."""
    x0, x1, gx0, gx1, tx = span(x * frequency, period)
    y0, y1, gy0, gy1, ty = span(y * frequency, period)
    z0, z1, gz0, gz1, tz = span(z * frequency, period)
    h = _corner_hashes_3d(hash_seed(seed), x0, x1, y0, y1, z0, z1)
    sy = smooth_slope(gy0)
    sz = smooth_slope(gz0)
    a = _lerp_d(
        _lerp_d(_corner_3d(gradient, h[0], gx0, gy0, gz0), _corner_3d(gradient, h[1], gx0, gy0, gz1), tz, sz, 2),
        _lerp_d(_corner_3d(gradient, h[2], gx0, gy1, gz0), _corner_3d(gradient, h[3], gx0, gy1, gz1), tz, sz, 2),
        ty,
        sy,
        1,
    )
    b = _lerp_d(
        _lerp_d(_corner_3d(gradient, h[4], gx1, gy0, gz0), _corner_3d(gradient, h[5], gx1, gy0, gz1), tz, sz, 2),
        _lerp_d(_corner_3d(gradient, h[6], gx1, gy1, gz0), _corner_3d(gradient, h[7], gx1, gy1, gz1), tz, sz, 2),
        ty,
        sy,
        1,
    )
    fx, wx = offset32(gx0)  # lattice_3d's float32 offsets and weights
    fy, wy = offset32(gy0)
    fz, wz = offset32(gz0)
    value = _blend_3d(gradient, h, fx, wx, fy, wy, fz, wz)
    return _with_value(_scaled(_lerp_d(a, b, tx, smooth_slope(gx0), 0), frequency), value)


@jit
def _simplex_corner_1d(gradient, accumulator, corner, x):
    """``(1 - d^2)^3 c`` of ``simplex._kernel_1d`` and its derivative."""
    offset = x - corner
    falloff = 1.0 - offset * offset
    h = avalanche(accumulator)
    c = evaluate_1d(gradient, h, offset)
    cube = falloff * falloff * falloff
    return cube * c, -6.0 * offset * falloff * falloff * c + cube * vector_1d(gradient, h), 0.0, 0.0, 0.0


@jit
def simplex_1d_d(gradient, x, seed, frequency, period):
    """1D simplex noise and its derivative at ``x`` (the ends of ``simplex.segment``); ``period`` is unused (it does not
    tile)"""
    x, x0, h0, x1, h1 = segment(x, seed, frequency)
    a = _simplex_corner_1d(gradient, h0, x0, x)
    b = _simplex_corner_1d(gradient, h1, x1, x)
    return _scaled((a[0] + b[0], a[1] + b[1], 0.0, 0.0, 0.0), frequency)


@jit
def _simplex_corner_d(slope_x, slope_y, slope_z, c, base, vx, vy, vz):
    """The gradient ``-48 (1/2 - r^2)^2 d c + f grad c`` of one simplex kernel ``f c`` (``base = 1/2 - r^2``,
    ``d`` the offset given as ``slope_*``, ``grad c = v``)."""
    falloff = max(base * base * base * 8.0, 0.0)
    slope = -48.0 * base * base if base > 0.0 else 0.0
    return slope * slope_x * c + falloff * vx, slope * slope_y * c + falloff * vy, slope * slope_z * c + falloff * vz


@jit
def _simplex_corner_2d(gradient, h, dx, dy):
    """The gradient of ``simplex``'s kernel of the corner with finished hash ``h`` at the float32 offset
    ``(dx, dy)`` (in float64)."""
    dx = np.float64(dx)
    dy = np.float64(dy)
    vx, vy = vector_2d(gradient, h)
    c = evaluate_2d(gradient, h, dx, dy)
    ddx, ddy, _ = _simplex_corner_d(dx, dy, 0.0, c, 0.5 - dx * dx - dy * dy, vx, vy, 0.0)
    return ddx, ddy


@jit
def simplex_2d_d(gradient, x, y, seed, frequency, period):
    """2D simplex noise and its gradient at ``(x, y)``: the value as ``simplex.simplex_2d`` computes it; ``period`` is
    unused (it does not tile)"""
    scale = frequency * SCALE_2D
    x = x * scale
    y = y * scale
    i, j, x_greater, dx, dy = triangle_cell(x, y)
    h0, h1, h2 = triangle_hashes(hash_seed(seed), i, j, x_greater)
    value = np.float64(triangle_sum(gradient, h0, h1, h2, x_greater, dx, dy))
    ax, ay, bx, by, cx, cy = triangle_offsets(x_greater, dx, dy)
    a = _simplex_corner_2d(gradient, h0, ax, ay)
    b = _simplex_corner_2d(gradient, h1, bx, by)
    c = _simplex_corner_2d(gradient, h2, cx, cy)
    return _scaled((value, a[0] + b[0] + c[0], a[1] + b[1] + c[1], 0.0, 0.0), scale)


@jit
def _simplex_corner_3d(gradient, h, offset):
    """The gradient of ``simplex``'s kernel of the corner with finished hash ``h`` at the float32 ``offset``."""
    dx = np.float64(offset[0])
    dy = np.float64(offset[1])
    dz = np.float64(offset[2])
    vx, vy, vz = vector_3d(gradient, h)
    c = evaluate_3d(gradient, h, dx, dy, dz)
    return _simplex_corner_d(dx, dy, dz, c, 0.5 - dx * dx - dy * dy - dz * dz, vx, vy, vz)


@jit
def simplex_3d_d(gradient, x, y, z, seed, frequency, period):
    """3D simplex noise and its gradient at ``(x, y, z)``: the value as ``simplex.simplex_3d`` computes it; ``period``
    is unused (it does not tile)"""
    scale = frequency * SCALE_3D
    x = x * scale
    y = y * scale
    z = z * scale
    i, j, k, dx, dy, dz = tetrahedron_cell(x, y, z)
    h0, h1, h2, h3 = tetrahedron_hashes(hash_seed(seed), i, j, k, dx, dy, dz)
    value = np.float64(tetrahedron_sum(gradient, h0, h1, h2, h3, dx, dy, dz))
    oa, ob, oc, od = tetrahedron_offsets(dx, dy, dz)
    a = _simplex_corner_3d(gradient, h0, oa)
    b = _simplex_corner_3d(gradient, h1, ob)
    c = _simplex_corner_3d(gradient, h2, oc)
    d = _simplex_corner_3d(gradient, h3, od)
    return _scaled((value, a[0] + b[0] + c[0] + d[0], a[1] + b[1] + c[1] + d[1], a[2] + b[2] + c[2] + d[2], 0.0), scale)


@jit
def _corner_4d(gradient, h, x, y, z, w):
    vx, vy, vz, vw = vector_4d(gradient, h)
    return evaluate_4d(gradient, h, x, y, z, w), vx, vy, vz, vw


@jit
def _lerp_d_along(a, b, t, g0, axis):
    """``_lerp_d`` with the slope of ``t`` at ``g0``: ``lattice_noise.quadrilinear``'s blend of values with their
    gradients."""
    return _lerp_d(a, b, t, smooth_slope(g0), axis)


_lattice_4d_d = quadrilinear(_corner_4d, _lerp_d_along, (0.0, 0.0, 0.0, 0.0, 0.0), "_lattice_4d_d")


@jit
def lattice_4d_d(gradient, x, y, z, w, seed, frequency, period):
    """4D lattice noise and its gradient: the quadrilinear blend of ``lattice_4d``, differentiated."""
    return _scaled(_lattice_4d_d(gradient, x, y, z, w, seed, frequency, period), frequency)


@jit
def _simplex_corner_4d(gradient, corner, x, y, z, w):
    """The kernel of ``simplex._kernel_4d`` for ``corner = (h, i, j, k, m)``, with its gradient."""
    accumulator, dx, dy, dz, dw = corner_offset_4d(corner, x, y, z, w)
    base = 0.5 - dx * dx - dy * dy - dz * dz - dw * dw
    falloff = max(base * base * base * 8.0, 0.0)
    slope = -48.0 * base * base if base > 0.0 else 0.0
    h = avalanche(accumulator)
    c = evaluate_4d(gradient, h, dx, dy, dz, dw)
    vx, vy, vz, vw = vector_4d(gradient, h)
    return (
        falloff * c,
        slope * dx * c + falloff * vx,
        slope * dy * c + falloff * vy,
        slope * dz * c + falloff * vz,
        slope * dw * c + falloff * vw,
    )


@jit
def simplex_4d_d(gradient, x, y, z, w, seed, frequency, period):
    """4D simplex noise and its gradient at ``(x, y, z, w)`` (the corners of ``simplex.scaled_pentachoron``); ``period``
    is unused (it does not tile)"""
    scale, (x, y, z, w), (a, b, c, d, e) = scaled_pentachoron(x, y, z, w, seed, frequency)
    ka = _simplex_corner_4d(gradient, a, x, y, z, w)
    kb = _simplex_corner_4d(gradient, b, x, y, z, w)
    kc = _simplex_corner_4d(gradient, c, x, y, z, w)
    kd = _simplex_corner_4d(gradient, d, x, y, z, w)
    ke = _simplex_corner_4d(gradient, e, x, y, z, w)
    return _scaled(tuple_sum_5(ka, kb, kc, kd, ke), scale)


@jit
def tuple_sum_5(a, b, c, d, e):
    """The sum of five ``(value, d/dx, d/dy, d/dz, d/dw)`` tuples, component by component."""
    return (
        a[0] + b[0] + c[0] + d[0] + e[0],
        a[1] + b[1] + c[1] + d[1] + e[1],
        a[2] + b[2] + c[2] + d[2] + e[2],
        a[3] + b[3] + c[3] + d[3] + e[3],
        a[4] + b[4] + c[4] + d[4] + e[4],
    )


def sample_d(family, dim, variant, x, y, z, w, seed, frequency, period):
    """One octave's ``(value, d/dx, d/dy, d/dz, d/dw)`` of ``family``; callable from compiled code only."""
    raise NotImplementedError("sample_d is compiled into the kernels; call noise_core.evaluate")


_SAMPLERS = lattice_and_simplex_samplers(
    (lattice_1d_d, lattice_2d_d, lattice_3d_d, lattice_4d_d),
    (simplex_1d_d, simplex_2d_d, simplex_3d_d, simplex_4d_d),
    "_d",
)
"""The value-and-gradient functions as point samplers, by ``(family, dim)``."""


@overload(sample_d, prefer_literal=True, jit_options={**JIT_OPTIONS, "forceinline": True})
def _sample_d(family, dim, variant, x, y, z, w, seed, frequency, period):
    """The implementation of ``sample_d`` for literal ``family`` and ``dim`` (as in ``sampling``, resolved by
    them, so the sampler is inlined into the kernel's point loop); it takes ``sample_d``'s arguments, as Numba
    requires, and no parameters."""
    sampler = _SAMPLERS.get((getattr(family, "literal_value", None), getattr(dim, "literal_value", None)))
    if sampler is None:
        return None
    return lambda family, dim, variant, x, y, z, w, seed, frequency, period: sampler(
        variant, x, y, z, w, seed, frequency, period, None
    )


@jit
def _combine_d(mode, octave, d, r, offset, gain, total, weight, dtotal, dweight, i):
    """The derivatives of ``fractal_modes.combine`` for octave ``d = (n, dn/dx, dn/dy, dn/dz, dn/dw)``: those of
    the running total and weight into ``dtotal[:, i]``, ``dweight[:, i]`` by the product and chain rules, from the
    total and weight before this octave (so before ``fractal_modes.fold`` folds ``n`` in)."""
    value = d[0]
    if mode == MULTIFRACTAL:
        factor = 1.0 + r * value
        for a in range(4):
            dtotal[a, i] = r * d[1 + a] if octave == 0 else dtotal[a, i] * factor + total[i] * r * d[1 + a]
    elif mode == HETERO_TERRAIN:
        for a in range(4):
            if octave == 0:
                dtotal[a, i] = d[1 + a]
            else:
                dtotal[a, i] += r * (d[1 + a] * total[i] + (value + offset) * dtotal[a, i])
    elif mode == HYBRID:
        before = 1.0 if octave == 0 else weight[i]  # combine starts the weight at 1
        if before > HYBRID_STOP:
            w = min(before, 1.0)
            signal = (value + offset) * r
            for a in range(4):
                dw = 0.0 if octave == 0 or before > 1.0 else dweight[a, i]
                dsignal = r * d[1 + a]
                change = dw * signal + w * dsignal
                dtotal[a, i] = (0.0 if octave == 0 else dtotal[a, i]) + change
                dweight[a, i] = gain * change
    else:  # RIDGED: weight[i] holds the previous octave's signal
        ridge = offset - abs(value)
        sign = -1.0 if value < 0.0 else 1.0
        if octave == 0:
            for a in range(4):
                dweight[a, i] = -2.0 * ridge * sign * d[1 + a]
                dtotal[a, i] = dweight[a, i]
        else:
            scaled = weight[i] * gain
            clamp = min(max(scaled, 0.0), 1.0)
            inside = 0.0 < scaled < 1.0
            for a in range(4):
                dclamp = gain * dweight[a, i] if inside else 0.0
                dsignal = -2.0 * ridge * sign * d[1 + a] * clamp + ridge * ridge * dclamp
                dtotal[a, i] += dsignal * r
                dweight[a, i] = dsignal


def _build_kernel(family, dim, variant, tiled, mode):
    """The value-and-gradient kernel of one ``(family, dim, variant, tiled, mode)``: ``fractal``'s octave loop and
    fold (``fractal_modes``) with each octave's derivatives carried along. ``out`` is (N, 1 + dim) float32."""
    musgrave = mode != FBM
    fbm = not musgrave
    fbm_room = DERIVATIVE_BLOCK if fbm else 1  # fBm's float32 sums
    room = DERIVATIVE_BLOCK if musgrave else 1  # the Musgrave modes' running totals and weights

    @range_kernel
    def derivative_kernel(
        first, last, points, out, outside, limit, seed, frequency, octaves, lacunarity, persistence, turbulence,
        offset, gain, low, high,
    ):  # fmt: skip
        if first < 0:  # the launch: this kernel over blocks 0 .. last - 1 on Numba's threads
            on_threads(last)
            return
        for block in range(first, last):
            start, stop = block_span(block, DERIVATIVE_BLOCK, out.shape[0])
            m = stop - start
            local = scratch((dim, DERIVATIVE_BLOCK), (dim, m), np.float64)
            outside[block] = read_block(points[start:stop].ravel(), dim, limit, local)
            xb = local[0]
            yb = local[1 if dim > 1 else 0]
            zb = local[2 if dim > 2 else 0]
            wb = local[3 if dim > 3 else 0]
            # Stack buffers (``_jit.scratch``), only those the mode uses (branches on closure constants are
            # pruned before typing); each is written before it is read (the Musgrave modes' at octave 0).
            sums = scratch(fbm_room, m if fbm else 0, np.float32)
            total = scratch(room, m if musgrave else 0, np.float64)
            weight = scratch(room, m if musgrave else 0, np.float64)
            if fbm:
                # the fBm gradient interleaved, (x, y, z) of point i at dim * i: one array written in the point
                # loop besides ``sums``, so LLVM's overlap checks stay few enough for it to vectorise the loop
                slopes = scratch((dim, DERIVATIVE_BLOCK), dim * m, np.float64)
                for j in range(dim * m):
                    slopes[j] = 0.0
            if musgrave:
                dtotal = scratch((4, DERIVATIVE_BLOCK), (4, m), np.float64)
                dweight = scratch((4, DERIVATIVE_BLOCK), (4, m), np.float64)
            for octave in range(octaves):
                octave_seed, octave_frequency, period, amplitude = octave_settings(
                    seed, frequency, lacunarity, persistence, tiled, octave
                )
                for i in range(m):
                    d = sample_d(family, dim, variant, xb[i], yb[i], zb[i], wb[i], octave_seed, octave_frequency,
                                 period)  # fmt: skip
                    if musgrave:
                        _combine_d(mode, octave, d, amplitude, offset, gain, total, weight, dtotal, dweight, i)
                    else:
                        slope = -amplitude if (turbulence and d[0] < 0.0) else amplitude
                        slopes[dim * i] += slope * d[1]
                        if dim > 1:
                            slopes[dim * i + 1] += slope * d[2]
                        if dim > 2:
                            slopes[dim * i + 2] += slope * d[3]
                        if dim > 3:
                            slopes[dim * i + 3] += slope * d[4]
                    fold(mode, octave, d[0], amplitude, turbulence, offset, gain, sums, total, weight, i)
            inverse = 1.0 / amplitude_sum(octaves, persistence)  # fBm's: its value is scaled by float32(inverse)
            scale = np.float32(inverse)
            for i in range(m):
                out[start + i, 0] = finished(mode, sums, total, i, scale, low, high)
                for a in range(dim):
                    if musgrave:
                        out[start + i, 1 + a] = np.float32(dtotal[a, i])
                    else:
                        out[start + i, 1 + a] = np.float32(slopes[dim * i + a] * inverse)

    return derivative_kernel


_KERNELS: dict = {}


def kernel_for(family, dim, variant, tiled, mode):
    """The compiled value-and-gradient kernel of ``(family, dim, variant, tiled, mode)``, built on first use."""
    key = (int(family), int(dim), int(variant), bool(tiled), int(mode))
    found = _KERNELS.get(key)
    if found is None:
        found = _KERNELS[key] = _build_kernel(*key)
    return found


def derivative_arguments(points, out, outside, spec, limit, bounds) -> tuple:
    """The derivative kernel's arguments after its range, in order (see ``derivative_kernel``)."""
    return (points, out, outside, float(limit), *octave_arguments(spec), np.float32(bounds[0]),
            np.float32(bounds[1]))  # fmt: skip


def _kernel_of(spec, dim):
    kind = KINDS[spec.kind]
    return kernel_for(kind.family, dim, kind.variant_of(spec), spec.tiling, MODE_CODES[spec.fractal])


def derivative_kernel_and_signature(spec, dim, dtype) -> tuple:
    """The kernel ``derivative_sum`` runs for ``spec`` on (N, ``dim``) ``dtype`` points, and its argument types."""
    kernel = _kernel_of(spec, dim)
    points = np.empty((1, dim), dtype=dtype)
    out = np.empty((1, 1 + dim), dtype=np.float32)
    arguments = derivative_arguments(points, out, np.zeros(1, np.int64), spec, 1.0, (0.0, 0.0))
    return kernel, range_signature(kernel, arguments)


def derivative_sum(points, out, spec, limit, bounds):
    """Fill ``out`` ((N, 1 + dim) float32) with the fractal sum of ``spec`` at ``points`` and its gradient;
    the value is clamped to ``bounds`` like ``fractal.fractal_sum``'s. Returns the count of coordinates not
    below ``limit`` in magnitude, as ``fractal_sum`` does."""
    blocks = (out.shape[0] + DERIVATIVE_BLOCK - 1) // DERIVATIVE_BLOCK
    outside = np.zeros(blocks, dtype=np.int64)
    arguments = derivative_arguments(points, out, outside, spec, limit, bounds)
    launch_blocks(_kernel_of(spec, points.shape[1]), blocks, arguments)
    return int(outside.sum())
