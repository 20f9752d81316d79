"""Voronoi (Worley) noise in 1D, 2D and 3D: distances to pseudorandom points (seed 000).

Points per lattice cell, from the cell's finished hash ``h`` (SmallXXHash(seed) eating
the cell's lattice coordinates x, then y, then z), exactly as seed 000:

* 1D: one point at ``Floats01A``;
* 2D: two points ``(Floats01A, Floats01B)`` and ``(Floats01C, Floats01D)`` ("Two points
  per Lattice Square"; the seed's XZ plane is (x, y) here);
* 3D: two points from six 5-bit fields, ``GetBitsAsFloats01(5, 0/5/10)`` and
  ``(5, 15/20/25)`` ("Six Values Per Hash").

The sample's cell and its neighbours (the 3^d block, lattice points passed through
``validate_single_step`` so tiled noise is seamless) are searched; the two smallest
distances ``F1 <= F2`` start at 2 and are updated with the seed's selects
(``UpdateVoronoiMinima``). Distance metrics (codes are the kernel's ``variant``):

* ``worley`` (0): Euclidean. 2D/3D track squared distances and finish with
  ``sqrt(min(F, 1))`` (seed "Voronoi Worley Noise"); 1D uses ``|dx|``.
* ``chebyshev`` (1): ``max |d_i|`` (seed "Voronoi Chebyshev Noise"). In 1D it is the
  same noise as ``worley`` (both are ``|dx|``), as the seed notes.
* ``squared`` (2): squared Euclidean, ``min(F, 1)`` without the root (seed "Other Metrics").
* ``manhattan`` (3): ``sum |d_i|``, clamped to 1 (seed "Other Metrics").

Every metric finishes with ``min(F, 1)``. The seed leaves 1D (and Chebyshev) unclamped;
F1 and Chebyshev's 2D/3D F2 never exceed 1 anyway, but 1D F2 reaches 1.5 (points at
-1, 0.5 and 2 seen from 0.5), breaking the seed's own claim that F2 - F1 lies in
[0, 1] and admitting the discontinuities that clamping avoids in 2D. That slip is
fixed here: 1D F2 is clamped to 1 like the other dimensions.

Functions (``params[0]``, chosen at run time by a select): ``f1`` (0), ``f2`` (1),
``f2_minus_f1`` (2) and ``cell`` (3). ``cell`` is a stable random value in [0, 1) per
Voronoi point, for colouring cells (the seed's closing "cell hashes" idea, without
taking bits from the point offsets so the points stay the seed's): the search keeps
the finished hash ``h`` of the nearest point's lattice cell and the point's index
``n`` within that cell (0, or 1 for the second point in 2D/3D); the value is
``(avalanche(eat(h, n)) >> 8) / 2**24``, i.e. SmallXXHash continued from ``h`` by
eating ``n``, top 24 bits. It depends only on seed, cell (wrapped when tiling) and
``n``, so it is constant inside each Voronoi cell and jumps across its edges.

2D and 3D are computed per block of samples (``voronoi_block``, the kernel's
block sampler): a first pass splits each coordinate into its lattice cell and the
offset in it (float64, exact far from the origin); the search pass then works in
int32 hashes and float32 offsets and distances, like the seed's ``float4`` code (why:
docs/benchmarks.md, "Voronoi search in float32"). Against a float64 search the results differ by at
most 2e-7, and ``cell`` can pick the other of two points whose distances differ by
less than that. 1D stays per point in float64 (three candidates, already fast).

Blender's Voronoi Texture functions and metric (beyond the seed; ``voronoi_general``, variant ``GENERAL``):
``smooth_f1`` (4, Blender's smooth minimum with ``k = smoothing / 2``; smoothing 0 is F1, the classic
kernel), ``distance_to_edge`` (5, distance to the cell boundary, Blender's two-pass method) and
``n_sphere_radius`` (6, half the distance from the nearest point to its nearest other point), both Euclidean,
and the ``minkowski`` metric (4) with ``exponent`` ``p`` (1 and 2 use the Manhattan and Worley kernels, bit
for bit). They run per sample in float64 over the same points, widening the search beyond the 3^d cells
(shells of 5^d, 7^d) until no farther point can change the result, so they are exact where a 3^d search is
not; every result is clamped to [0, 1]. ``params`` is ``[function, jitter, smoothing / 2, exponent, metric]``.

``jitter`` (``params[1]``, beyond the seed, default 1) places each point at
``r * jitter + anchor * (1 - jitter)`` for the seed's offset ``r``: 1 is the seed's
placement exactly, 0 a regular lattice. Anchors are the cell centre in 1D and
``(1/4, 1/4[, 1/4])`` / ``(3/4, 3/4[, 3/4])`` for the two points in 2D/3D, so jitter 0
gives a square lattice turned 45 degrees (diamond cells) in 2D and a body-centred
cubic lattice in 3D, where F2 is still a genuine second distance.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._jit import inline, jit, named, scratch
from .blocks import BLOCK
from .hashing import avalanche, eat, floats01a, get_bits, hash_seed
from .lattice import span, split_block, validate_single_step, wrap
from .schema import FAMILY_VORONOI, Kind, Option, Requires, unit_range

if TYPE_CHECKING:
    from .spec import NoiseSpec

WORLEY = 0
CHEBYSHEV = 1
SQUARED = 2
MANHATTAN = 3
MINKOWSKI = 4
METRIC_CODES = {
    "worley": WORLEY,
    "chebyshev": CHEBYSHEV,
    "squared": SQUARED,
    "manhattan": MANHATTAN,
    "minkowski": MINKOWSKI,
}
GENERAL = 8
"""The variant of the general search (``voronoi_general``): Minkowski distances and the Blender functions."""

F1 = 0
F2 = 1
F2_MINUS_F1 = 2
CELL = 3
SMOOTH_F1 = 4
DISTANCE_TO_EDGE = 5
N_SPHERE_RADIUS = 6
FUNCTION_CODES = {
    "f1": F1,
    "f2": F2,
    "f2_minus_f1": F2_MINUS_F1,
    "cell": CELL,
    "smooth_f1": SMOOTH_F1,
    "distance_to_edge": DISTANCE_TO_EDGE,
    "n_sphere_radius": N_SPHERE_RADIUS,
}
EUCLIDEAN_ONLY = ("distance_to_edge", "n_sphere_radius")
MAX_EXPONENT = 1000.0


def _metric(spec: NoiseSpec) -> int:
    """The metric code; Minkowski with exponent 1 or 2 is Manhattan or Euclidean (the same kernels, bit for bit)."""
    if spec.distance == "minkowski" and spec.exponent in (1.0, 2.0):
        return MANHATTAN if spec.exponent == 1.0 else WORLEY
    return METRIC_CODES[spec.distance]


def _function(spec: NoiseSpec) -> int:
    """The function code; smooth F1 with smoothing 0 is F1."""
    if spec.function == "smooth_f1" and spec.smoothing == 0.0:
        return F1
    return FUNCTION_CODES[spec.function]


def _variant(spec: NoiseSpec) -> int:
    """The metric code is the variant (it changes the machine code); ``GENERAL`` for Minkowski distances and the
    functions beyond ``cell``."""
    metric = _metric(spec)
    return GENERAL if metric == MINKOWSKI or _function(spec) > CELL else metric


def _pack(spec: NoiseSpec, dim: int) -> np.ndarray:
    """``[function code, jitter, smoothing / 2, exponent, metric code]`` (the same in every dimension; the
    classic kernels read the first two)."""
    return np.array(
        [_function(spec), spec.jitter, spec.smoothing / 2.0, spec.exponent, _metric(spec)], dtype=np.float64
    )


def _check(spec: NoiseSpec) -> None:
    if spec.function in EUCLIDEAN_ONLY and spec.distance != "worley":
        raise ValueError(
            f"distance: function {spec.function!r} measures Euclidean distances (as Blender's); "
            f"leave distance at 'worley', got {spec.distance!r}"
        )


KIND = Kind(
    "voronoi",
    FAMILY_VORONOI,
    WORLEY,
    (1, 2, 3),
    (
        Option(
            "distance",
            str,
            "worley",
            "Distance metric between a point and the feature points",
            choices=tuple(METRIC_CODES),
        ),
        Option(
            "exponent",
            float,
            0.5,
            "Exponent p of the Minkowski distance (sum |d_i|^p)^(1/p): 1 Manhattan, 2 Euclidean, large Chebyshev",
            minimum=0.0,
            maximum=MAX_EXPONENT,
            above=True,
            ui_minimum=0.01,
            soft_minimum=0.25,
            soft_maximum=8.0,
            requires=Requires("distance", "minkowski", "only used with distance='minkowski'"),
        ),
        Option(
            "function",
            str,
            "f1",
            "Which distance (or cell value) becomes the noise value",
            choices=tuple(FUNCTION_CODES),
        ),
        Option(
            "jitter",
            float,
            1.0,
            "How far feature points may move from their cell centres (0 = regular grid)",
            minimum=0.0,
            maximum=1.0,
        ),
        Option(
            "smoothing",
            float,
            1.0,
            "Smoothness of smooth F1 (Blender's Smoothness): the smooth minimum's width is smoothing/2; 0 is F1",
            minimum=0.0,
            maximum=1.0,
            requires=Requires("function", "smooth_f1", "only used with function='smooth_f1'"),
            title="Smoothness",
        ),
    ),
    True,
    "Voronoi noise: distances to random points per lattice cell, F1/F2/F2-F1, smooth F1, distance to edge, "
    "n-sphere radius or a cell value (range 0..1).",
    unit_range,
    variant=_variant,
    pack=_pack,
    check=_check,
)
"""Voronoi noise: every metric and function lies in [0, 1] (distances are clamped to 1)."""

INITIAL_MINIMUM = 2.0
ANCHOR_1D = 0.5
ANCHOR_FIRST = 0.25
ANCHOR_SECOND = 0.75
CELL_VALUE_SCALE = 1.0 / 2.0**24


@jit
def _distance_1d(metric, dx):
    """1D distance: ``dx^2`` for ``squared``, ``|dx|`` for every other metric."""
    return dx * dx if metric == SQUARED else abs(dx)


@jit
def _distance(metric, dx, dy, dz):
    """2D/3D distance of the metric (2D passes ``dz = 0``); Euclidean stays squared until :func:`_finish`."""
    if metric == CHEBYSHEV:
        return max(max(abs(dx), abs(dy)), abs(dz))
    if metric == MANHATTAN:
        return abs(dx) + abs(dy) + abs(dz)
    return dx * dx + dy * dy + dz * dz


@jit
def _update(f1, f2, nearest_hash, nearest_point, distance, h, point):
    """``UpdateVoronoiMinima`` plus the nearest point's cell hash and index, all by selects."""
    closer = distance < f1
    f2 = min(f2, max(f1, distance))  # f1 when closer (f1 <= f2), else min(f2, distance)
    f1 = min(f1, distance)
    nearest_hash = h if closer else nearest_hash
    nearest_point = point if closer else nearest_point
    return f1, f2, nearest_hash, nearest_point


@jit
def _finish(metric, dim, function, f1, f2, nearest_hash, nearest_point):
    """Clamp to 1 (and root Worley in 2D/3D), then apply the Voronoi function.

    Constants are float32 (exact values), so float32 minima stay float32 and float64 ones float64.
    """
    f1 = min(f1, np.float32(1.0))
    f2 = min(f2, np.float32(1.0))
    if metric == WORLEY and dim > 1:
        f1 = np.sqrt(f1)
        f2 = np.sqrt(f2)
    cell = np.float32(avalanche(eat(nearest_hash, nearest_point)) >> 8) * np.float32(CELL_VALUE_SCALE)
    result = f1
    result = f2 if function == F2 else result
    result = f2 - f1 if function == F2_MINUS_F1 else result
    return cell if function == CELL else result


@jit
def voronoi_1d(metric, function, jitter, x, seed, frequency, period):
    """1D Voronoi noise: one point per span, spans ``p0 - 1 .. p0 + 1`` searched."""
    h = hash_seed(seed)
    p0, _, g0, _, _ = span(x * frequency, period)
    anchor = ANCHOR_1D * (1.0 - jitter)
    f1 = INITIAL_MINIMUM
    f2 = INITIAL_MINIMUM
    nearest_hash = np.uint32(0)
    nearest_point = 0
    for u in range(-1, 2):
        hc = avalanche(eat(h, validate_single_step(p0 + u, period)))
        distance = _distance_1d(metric, floats01a(hc) * jitter + anchor + (u - g0))
        f1, f2, nearest_hash, nearest_point = _update(f1, f2, nearest_hash, nearest_point, distance, hc, 0)
    return _finish(metric, 1, function, f1, f2, nearest_hash, nearest_point)


@jit
def _block_anchors(jitter):
    """The two points' anchors scaled by ``1 - jitter``, in float32."""
    return np.float32(ANCHOR_FIRST * (1.0 - jitter)), np.float32(ANCHOR_SECOND * (1.0 - jitter))


@jit
def _no_minima():
    """``(f1, f2, nearest hash, nearest point)`` before the search, float32 and uint32."""
    return np.float32(INITIAL_MINIMUM), np.float32(INITIAL_MINIMUM), np.uint32(0), np.uint32(0)


@jit
def _visit_point(metric, dim, h, point, step, ox, oy, oz, f1, f2, nearest_hash, nearest_point):
    """Point ``point`` (0 or 1) of the cell with finished hash ``h`` into the minima.

    Its offset along each axis is that axis' bit field times ``step`` (seed 000: the bytes
    ``Floats01A..D`` in 2D, six 5-bit ``GetBitsAsFloats01`` fields in 3D; field
    ``point * dim + axis``) plus ``ox, oy, oz``: its anchor minus the sample's offset
    (``oz`` is 0 in 2D).
    """
    width = 8 if dim == 2 else 5
    dx = np.float32(get_bits(h, width, (point * dim) * width)) * step + ox
    dy = np.float32(get_bits(h, width, (point * dim + 1) * width)) * step + oy
    dz = np.float32(get_bits(h, width, (point * dim + 2) * width)) * step + oz if dim == 3 else oz
    return _update(f1, f2, nearest_hash, nearest_point, _distance(metric, dx, dy, dz), h, np.uint32(point))


def voronoi_block(dim):
    """The block sampler of Voronoi noise in ``dim`` (2 or 3) dimensions (``sampling.BLOCK_SAMPLERS``' arguments;
    ``params`` is ``[function code, jitter]``, ``zs`` unused in 2D): two points per square (cube), the 3x3 squares
    (3x3x3 cubes) around each sample searched. ``dim`` is a closure constant, so the other dimension's branches
    are pruned before typing."""

    def voronoi_block_nd(metric, _dim, xs, ys, zs, seed, frequency, period, params, values):
        if metric == GENERAL:
            voronoi_general_block(dim, xs, ys, zs, seed, frequency, period, params, values)
            return
        function = int(params[0])
        jitter = params[1]
        cells = scratch((3, BLOCK), (dim, values.shape[0]), np.int32)
        offsets = scratch((3, BLOCK), (dim, values.shape[0]), np.float32)
        split_block(dim, xs, ys, zs, frequency, period, cells, offsets)  # pass 1
        h = hash_seed(seed)
        first, second = _block_anchors(jitter)
        # Floats01A..D * jitter = byte * step (2D), GetBitsAsFloats01(5, .) * jitter = bits * step (3D)
        step = np.float32(jitter / (255.0 if dim == 2 else 31.0))
        depth = 1 if dim == 3 else 0  # the cells searched along z: -depth .. depth
        for i in range(values.shape[0]):
            px = np.int64(cells[0, i])
            py = np.int64(cells[1, i])
            gx = offsets[0, i]
            gy = offsets[1, i]
            if dim == 3:
                pz = np.int64(cells[2, i])
                gz = offsets[2, i]
            f1, f2, nearest_hash, nearest_point = _no_minima()
            for u in range(-1, 2):
                hx = eat(h, validate_single_step(px + u, period))
                ox1 = first + (np.float32(u) - gx)
                ox2 = second + (np.float32(u) - gx)
                for v in range(-1, 2):
                    hy = eat(hx, validate_single_step(py + v, period))
                    oy1 = first + (np.float32(v) - gy)
                    oy2 = second + (np.float32(v) - gy)
                    for w in range(-depth, depth + 1):
                        if dim == 3:
                            hc = avalanche(eat(hy, validate_single_step(pz + w, period)))
                            oz1 = first + (np.float32(w) - gz)
                            oz2 = second + (np.float32(w) - gz)
                        else:
                            hc = avalanche(hy)
                            oz1 = oz2 = np.float32(0.0)
                        f1, f2, nearest_hash, nearest_point = _visit_point(
                            metric, dim, hc, 0, step, ox1, oy1, oz1, f1, f2, nearest_hash, nearest_point
                        )
                        f1, f2, nearest_hash, nearest_point = _visit_point(
                            metric, dim, hc, 1, step, ox2, oy2, oz2, f1, f2, nearest_hash, nearest_point
                        )
            values[i] = _finish(metric, dim, function, f1, f2, nearest_hash, nearest_point)

    return inline(named(voronoi_block_nd, f"voronoi_block_{dim}d"))


MAX_RING = 3
"""The general search visits the cells up to this many steps from the sample's (Chebyshev distance)."""
FAR = 8.0
"""Distances of the general search are capped here (beyond every searched cell, and finite for the smooth
minimum's blend: a tiny Minkowski exponent can overflow to infinity)."""


@jit
def _general_distance(metric, exponent, dx, dy, dz):
    """The distance of ``metric`` in float64 (the true Euclidean distance, not its square), capped at ``FAR``.

    Minkowski ``(|dx|^p + |dy|^p + |dz|^p)^(1/p)`` is computed as ``m (sum (|d_i|/m)^p)^(1/p)`` with ``m`` the
    largest ``|d_i|``, so no power under- or overflows before the root."""
    ax, ay, az = abs(dx), abs(dy), abs(dz)
    largest = max(max(ax, ay), az)
    if metric == CHEBYSHEV:
        distance = largest
    elif metric == MANHATTAN:
        distance = ax + ay + az
    elif metric == SQUARED:
        distance = dx * dx + dy * dy + dz * dz
    elif metric == MINKOWSKI:
        safe = max(largest, 1e-300)
        total = (ax / safe) ** exponent + (ay / safe) ** exponent + (az / safe) ** exponent
        distance = largest * total ** (1.0 / exponent) if largest > 0.0 else 0.0
    else:
        distance = np.sqrt(dx * dx + dy * dy + dz * dz)
    return min(distance, FAR)


@jit
def _cell_point(h, dim, point, jitter):
    """Point ``point`` of the cell with finished hash ``h``: its offset in the cell (x, y, z; float64), the same
    bit fields and anchors as the block searches."""
    if dim == 1:
        return floats01a(h) * jitter + ANCHOR_1D * (1.0 - jitter), 0.0, 0.0
    width = 8 if dim == 2 else 5
    step = jitter / (255.0 if dim == 2 else 31.0)
    anchor = (ANCHOR_FIRST if point == 0 else ANCHOR_SECOND) * (1.0 - jitter)
    ox = np.float64(get_bits(h, width, (point * dim) * width)) * step + anchor
    oy = np.float64(get_bits(h, width, (point * dim + 1) * width)) * step + anchor
    oz = np.float64(get_bits(h, width, (point * dim + 2) * width)) * step + anchor if dim == 3 else 0.0
    return ox, oy, oz


@jit
def _ring_cell(index, ring, dim):
    """The cell offsets ``(u, v, w)`` of ``index`` in the ``(2 ring + 1)^dim`` block around the sample's cell, and
    whether it lies on the block's outer shell (every cell for ring 1, which holds the sample's cell too)."""
    side = 2 * ring + 1
    u = index % side - ring
    v = (index // side) % side - ring if dim > 1 else 0
    w = index // (side * side) - ring if dim > 2 else 0
    shell = ring == 1 or max(max(abs(u), abs(v)), abs(w)) == ring
    return u, v, w, shell


@jit
def _ring_hash(h, dim, cx, cy, cz, u, v, w, period):
    """The finished hash of the cell ``(cx + u, cy + v, cz + w)``, wrapped modulo ``period`` when tiling."""
    p = np.int64(period)
    x = (cx + u) % p if p > 0 else cx + u
    hc = eat(h, x)
    if dim > 1:
        hc = eat(hc, (cy + v) % p if p > 0 else cy + v)
    if dim > 2:
        hc = eat(hc, (cz + w) % p if p > 0 else cz + w)
    return avalanche(hc)


@jit
def _ring_point(slot, points, ring, dim, h, cx, cy, cz, gx, gy, gz, jitter, period):
    """Point ``slot % points`` of cell ``slot // points`` of the ``(2 ring + 1)^dim`` block: whether the cell is on
    the block's shell (``_ring_cell``), its hash, the point's index and its vector from the sample."""
    point = slot % points
    u, v, w, shell = _ring_cell(slot // points, ring, dim)
    hc = _ring_hash(h, dim, cx, cy, cz, u, v, w, period)
    ox, oy, oz = _cell_point(hc, dim, point, jitter)
    return shell, hc, point, ox + (u - gx), oy + (v - gy), oz + (w - gz)


@jit
def _smoothstep(x):
    """``smoothstep(0, 1, x)``: ``x^2 (3 - 2x)`` of ``x`` clamped to [0, 1]."""
    t = min(max(x, 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


@jit
def voronoi_general(dim, params, x, y, z, seed, frequency, period):
    """One sample of the general search (float64): the functions of ``params[0]`` with the metric ``params[4]``.

    Pass 1 visits the cells ring by ring (3^d, then the shells of 5^d, 7^d: ``_ring_cell``); every point outside
    ring ``r`` is at least ``r`` away (``r^2`` squared). It keeps F1, F2, the nearest point and Blender's smooth
    minimum (``voronoi_smooth_f1``: ``h = smoothstep(1/2 + (s - d) / (2k))``, ``s = mix(s, d, h) - k h (1 - h)``,
    ``h = 1`` for the first point, ``k = smoothing / 2``) and stops once no farther point can change the result:
    F1 and F2 clamp at 1 (ring 1, the seed's search), a point farther than ``s + k`` leaves the smooth minimum as
    it is. Pass 2 (distance to edge, n-sphere radius; Euclidean) visits the rings again from the nearest point
    ``c`` (vector from the sample): the distance to the bisector of ``c`` and each other point ``q``,
    ``((c + q)/2) . (q - c)/|q - c|`` (Blender's ``voronoi_distance_to_edge``), whose minimum is the distance to
    the cell's boundary, a point at distance ``D`` bounding its bisector's distance below by ``(D - F1) / 2``;
    or half the distance from ``c`` to its nearest other point (``voronoi_n_sphere_radius``), a point at ``D``
    being at least ``D - F1`` from ``c``. Both stop when the next ring cannot lower the minimum. Results clamp
    to [0, 1]."""
    function = int(params[0])
    jitter = params[1]
    k = params[2]
    exponent = params[3]
    metric = int(params[4])
    h = hash_seed(seed)
    sx, sy, sz = x * frequency, y * frequency, z * frequency
    fx = wrap(np.floor(sx), period)
    fy = wrap(np.floor(sy), period) if dim > 1 else 0.0
    fz = wrap(np.floor(sz), period) if dim > 2 else 0.0
    gx = sx - np.floor(sx)
    gy = sy - np.floor(sy) if dim > 1 else 0.0
    gz = sz - np.floor(sz) if dim > 2 else 0.0
    cx, cy, cz = np.int64(np.int32(fx)), np.int64(np.int32(fy)), np.int64(np.int32(fz))
    points = 1 if dim == 1 else 2
    f1 = FAR
    f2 = FAR
    smooth = 0.0
    first = True
    nearest_hash = np.uint32(0)
    nearest_point = np.uint32(0)
    vx, vy, vz = 0.0, 0.0, 0.0
    for ring in range(1, MAX_RING + 1):
        reach = np.float64((ring - 1) * (ring - 1)) if metric == SQUARED else np.float64(ring - 1)
        if ring > 1 and (function != SMOOTH_F1 or reach >= f1 + k):
            break
        for slot in range(points * (2 * ring + 1) ** dim):
            shell, hc, point, dx, dy, dz = _ring_point(
                slot, points, ring, dim, h, cx, cy, cz, gx, gy, gz, jitter, period
            )
            if shell:
                d = _general_distance(metric, exponent, dx, dy, dz)
                if d < f1:
                    nearest_hash = hc
                    nearest_point = np.uint32(point)
                    vx, vy, vz = dx, dy, dz
                f2 = min(f2, max(f1, d))
                f1 = min(f1, d)
                blend = 1.0 if first else _smoothstep(0.5 + 0.5 * (smooth - d) / max(k, 1e-300))
                smooth = smooth + (d - smooth) * blend - k * blend * (1.0 - blend)
                first = False
    f1 = min(f1, 1.0)
    f2 = min(f2, 1.0)
    if function == SMOOTH_F1:
        return min(max(smooth, 0.0), 1.0)
    if function == CELL:
        return np.float64(avalanche(eat(nearest_hash, nearest_point)) >> 8) * CELL_VALUE_SCALE
    if function <= F2_MINUS_F1:
        return f1 if function == F1 else (f2 if function == F2 else f2 - f1)
    nearest = np.sqrt(vx * vx + vy * vy + vz * vz)
    best = FAR
    for ring in range(1, MAX_RING + 1):
        bound = (ring - 1 - nearest) / 2.0 if function == DISTANCE_TO_EDGE else ring - 1 - nearest
        if ring > 1 and bound >= best:
            break
        for slot in range(points * (2 * ring + 1) ** dim):
            shell, _, _, qx, qy, qz = _ring_point(slot, points, ring, dim, h, cx, cy, cz, gx, gy, gz, jitter, period)
            if shell:
                ex, ey, ez = qx - vx, qy - vy, qz - vz
                apart = np.sqrt(ex * ex + ey * ey + ez * ez)
                if apart > 1e-9:
                    if function == DISTANCE_TO_EDGE:
                        along = ((vx + qx) * ex + (vy + qy) * ey + (vz + qz) * ez) / (2.0 * apart)
                        best = min(best, along)
                    else:
                        best = min(best, apart)
    result = best if function == DISTANCE_TO_EDGE else best / 2.0
    return min(max(result, 0.0), 1.0)


@jit
def voronoi_general_block(dim, xs, ys, zs, seed, frequency, period, params, values):
    """``values[i]`` = ``voronoi_general`` at the block's samples (2D: ``zs`` unused)."""
    for i in range(values.shape[0]):
        z = zs[i] if dim == 3 else 0.0
        values[i] = np.float32(voronoi_general(dim, params, xs[i], ys[i], z, seed, frequency, period))
