"""The public entry points ``evaluate`` and ``evaluate_grid``.

These are the thin Python layer over the kernels: they validate types, shapes
and values, and hand the (N, d) points as they are (float32 or float64, copied only
when not C-contiguous) to the compiled fractal-sum kernel, once for all points.
The kernel also reports the largest coordinate and any NaN or infinity as it reads
the points, so checking them costs no extra pass; invalid input raises afterwards.

``evaluate_grid`` runs value and Perlin noise without a domain warp through the separable grid kernel
(``grid_kernels``: per-column and per-row lattice spans, bit for bit the point path's values), the other kinds
without a warp through the point kernel in grid mode (``fractal.fractal_grid_sum``: the pixel centres made in
the kernel from one x per column and one y per row, the same bits without an (H*W, 2) array), and warped
specs through the point path on the grid's pixel centres. ``evaluate`` hands an axis-aligned lattice of 2D
points (a bake's plane) to the same grid kernels.

``plan`` lists the kernels a call runs (``route`` decides, for the run too); ``compile_state`` and
``precompile`` tell whether they are ready and prepare them ahead of time: the first use of a kind compiles
for seconds (see docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import affine, fractal, runtime
from ._jit import LazySerialKernel
from .derivatives import DERIVABLE_KINDS, derivative_kernel_and_signature, derivative_sum
from .fractal import fractal_grid_sum, fractal_grid_sum_3d, fractal_sum, kernel_for
from .fractal_modes import MODE_CODES
from .grid_kernels import grid_kernel_and_signature, grid_sum, grid_sum_3d, separable, simplex_grid_sum_3d, simplex_rows
from .hashing import HASHES
from .ranges import float32_range
from .registry import KINDS, NO_PARAMS, kernel_arguments, kind_info
from .spec import NoiseSpec
from .warp import component_spec, is_warped, warped_points, warped_points_and_jacobian

MAX_LATTICE_COORDINATE = 2.0**31
MAX_GRID_SAMPLES = 2**28
LATTICE_BLOCK = 1 << 18
"""Points per block of rows when ``evaluate_lattice`` reports progress (a few ms of work each)."""


def _check_spec(spec: object) -> NoiseSpec:
    if not isinstance(spec, NoiseSpec):
        raise TypeError(f"spec: expected a NoiseSpec, got {type(spec).__name__}")
    return spec


def _check_points(points: object) -> np.ndarray:
    if not isinstance(points, np.ndarray):
        raise TypeError(f"points: expected a numpy array of shape (N, d), got {type(points).__name__}")
    if points.dtype not in (np.float32, np.float64):
        raise TypeError(f"points: dtype must be float32 or float64, got {points.dtype}")
    if points.ndim != 2 or not 1 <= points.shape[1] <= 4:
        raise ValueError(f"points: shape must be (N, d) with d in 1, 2, 3, 4; got {points.shape}")
    return points


def _check_dimension(spec: NoiseSpec, dim: int) -> None:
    dims = kind_info(spec.kind).dims
    if dim not in dims:
        allowed = ", ".join(map(str, dims))
        raise ValueError(f"points: kind {spec.kind!r} is defined in {allowed} dimensions, got d={dim}")


def _lattice_limit(spec: NoiseSpec) -> float:
    """The largest coordinate magnitude allowed: ``|coordinate x frequency| < 2**31`` at every octave."""
    return MAX_LATTICE_COORDINATE / spec.highest_frequency


def lattice_limit(spec: NoiseSpec) -> float:
    """The largest coordinate magnitude ``spec`` takes: ``2**31 / highest octave frequency``."""
    return _lattice_limit(spec)


def lattice_reach(spec: NoiseSpec) -> float:
    """How far past the input coordinates the noise of ``spec`` reads: ``warp_amplitude`` when it warps, else 0."""
    return float(spec.warp_amplitude) if is_warped(spec) else 0.0


def check_reach(spec: NoiseSpec, name: str, largest: float, what: str) -> None:
    """``ValueError`` starting with ``name`` when coordinates up to ``largest`` (``what`` they are, in words), moved
    by the warp, would leave the 32-bit lattice of ``spec``; for arguments that are not the points themselves (a
    loop's radius, a mesh's positions), so the error names the user's argument."""
    reach = largest + lattice_reach(spec)
    if not reach < _lattice_limit(spec):
        warp = f" plus the warp's {spec.warp_amplitude:g}" if is_warped(spec) else ""
        raise ValueError(
            f"{name}: {what} up to {largest:g}{warp} at frequency {spec.highest_frequency:g} exceed the 32-bit "
            f"lattice (|coordinate x frequency| must stay below 2**31, so below {_lattice_limit(spec):g} here)"
        )


def _reject_coordinates(spec: NoiseSpec, points: np.ndarray, unwarped: np.ndarray | None = None) -> None:
    """Raise the error for ``points`` the kernel found out of range (only then is this pass paid); ``unwarped``:
    the caller's points before the warp moved them to ``points`` (then, if they are in range, the warp is named)."""
    if not np.isfinite(points).all():
        raise ValueError("points: coordinates must be finite (no NaN or infinity)")
    largest = float(np.abs(points).max())
    if unwarped is not None and float(np.abs(unwarped).max()) < _lattice_limit(spec):
        raise ValueError(
            f"warp_amplitude: the warp (amplitude {spec.warp_amplitude:g}) moves the points to coordinates up to "
            f"{largest:g}, which at frequency {spec.highest_frequency:g} exceed the 32-bit lattice "
            f"(|coordinate x frequency| must stay below 2**31); lower warp_amplitude or frequency"
        )
    raise ValueError(
        f"points: coordinates up to {largest:g} at frequency {spec.highest_frequency:g} "
        f"exceed the 32-bit lattice (|coordinate x frequency| must stay below 2**31)"
    )


def _run(spec: NoiseSpec, points: np.ndarray) -> np.ndarray:
    """The noise of ``spec`` at ``points``: warped first (``warp.py``) when ``spec`` has a domain warp."""
    if is_warped(spec):
        return _run_unwarped(spec, warped_points(spec, points, _run_unwarped), points)
    return _run_unwarped(spec, points)


POINTS, GRID, SEPARABLE, DERIVATIVES = "points", "grid", "separable", "derivatives"


def route(spec: NoiseSpec, dim: int, lattice: bool = False, derivatives: bool = False) -> str:
    """Which kernels the evaluation of unwarped ``spec`` on (N, ``dim``) points runs: ``DERIVATIVES`` (with
    ``derivatives``: ``derivatives.kernel_for``), ``SEPARABLE`` (value and Perlin noise on an axis-aligned 2D
    ``lattice``: ``grid_kernels``), ``GRID`` (the other kinds on a lattice: the block function and the grid
    launcher) or ``POINTS`` (the block function and the point launcher). The run (``_on_grid``) and ``plan``
    both ask it."""
    if derivatives:
        return DERIVATIVES
    if lattice and dim == 2:
        return SEPARABLE if separable(spec) else GRID
    return POINTS


MIN_LATTICE_WIDTH = 8
"""Points in a row from which ``evaluate`` hands an axis-aligned lattice of 2D points to the grid kernel."""


def lattice_axes(points: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(xs, ys)`` float64 when the (N, 2) ``points`` are the lattice ``(xs[c], ys[r])`` in rows (x fastest,
    at least ``MIN_LATTICE_WIDTH`` columns and 2 rows), else None. Random points are told apart at once (their
    first two y differ); a lattice is confirmed by comparing every point (one pass, no arithmetic)."""
    count = points.shape[0]
    if points.ndim != 2 or points.shape[1] != 2 or count < 2 * MIN_LATTICE_WIDTH:
        return None
    x, y = points[:, 0], points[:, 1]
    if y[1] != y[0]:
        return None
    width = _row_width(points)
    if width < MIN_LATTICE_WIDTH or count % width or not _is_lattice(points, width):
        return None
    return x[:width].astype(np.float64), y[::width].astype(np.float64)


@LazySerialKernel
def _row_width(points):
    """How many points from the first share its y (every point when all do)."""
    for i in range(1, points.shape[0]):
        if points[i, 1] != points[0, 1]:
            return i
    return points.shape[0]


@LazySerialKernel
def _is_lattice(points, width):
    """Whether point ``r * width + c`` is ``(x of point c, y of point r * width)`` for every one (stops at the
    first that is not)."""
    for r in range(points.shape[0] // width):
        row_y = points[r * width, 1]
        for c in range(width):
            i = r * width + c
            if points[i, 0] != points[c, 0] or points[i, 1] != row_y:
                return False
    return True


def _on_grid(spec: NoiseSpec, xs: np.ndarray, ys: np.ndarray, out: np.ndarray) -> bool:
    """Fill ``out`` (rows, cols) with unwarped ``spec`` at ``(xs[c], ys[r])`` by a grid kernel (the separable one
    for value and Perlin noise, else the point kernel in grid mode; the same bits as the point kernel) and
    return True, unless a coordinate is beyond the lattice limit: then False, and the point path runs and raises
    its error."""
    if max(np.abs(xs).max(), np.abs(ys).max()) >= _lattice_limit(spec):
        return False
    if route(spec, 2, lattice=True) == SEPARABLE:
        grid_sum(xs, ys, out, spec, float32_range(spec))
    else:
        family, variant, params = kernel_arguments(spec, 2)
        fractal_grid_sum(xs, ys, out, family, variant, spec, params, _lattice_limit(spec), float32_range(spec))
    return True


def _run_unwarped(spec: NoiseSpec, points: np.ndarray, unwarped: np.ndarray | None = None) -> np.ndarray:
    """Noise of ``spec`` at ``points`` without its warp; ``unwarped``: the points before the warp moved them."""
    out = np.empty(points.shape[0], dtype=np.float32)
    if out.shape[0] == 0:
        return out
    axes = None if is_warped(spec) else lattice_axes(points)
    if axes is not None and _on_grid(spec, *axes, out.reshape(axes[1].shape[0], axes[0].shape[0])):
        return out
    family, variant, params = kernel_arguments(spec, points.shape[1])
    outside = fractal_sum(
        points, out, family, points.shape[1], variant, spec, params, _lattice_limit(spec), float32_range(spec)
    )
    if outside:
        _reject_coordinates(spec, points, unwarped)
    return out


def _run_transformed(spec: NoiseSpec, points: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """The noise of ``spec`` at ``affine_points(points, matrix)``: transformed in the kernel, unless ``spec`` has a
    domain warp (its passes need the transformed points)."""
    if is_warped(spec):
        return _run(spec, affine.affine_points(points, matrix))
    out = np.empty(points.shape[0], dtype=np.float32)
    if out.shape[0] == 0:
        return out
    family, variant, params = kernel_arguments(spec, matrix.shape[0])
    limit, bounds = _lattice_limit(spec), float32_range(spec)
    if fractal_sum(points, out, family, matrix.shape[0], variant, spec, params, limit, bounds, matrix):
        _reject_coordinates(spec, affine.affine_points(points, matrix))
    return out


def _check_derivable(spec: NoiseSpec) -> None:
    """Analytic gradients exist for the lattice and simplex kinds (warp bases always are)."""
    if spec.kind not in DERIVABLE_KINDS:
        allowed = ", ".join(DERIVABLE_KINDS)
        raise ValueError(
            f"derivatives: kind {spec.kind!r} has no analytic gradient (its distance or bump functions are not "
            f"differentiable everywhere); derivatives=True is allowed for {allowed}; use central differences "
            f"of evaluate() for the others"
        )
    if spec.hash != HASHES[0]:
        raise ValueError(
            f"hash: derivatives=True needs hash={HASHES[0]!r} (the derivative kernels hash so), got {spec.hash!r}"
        )


def _run_derivatives(spec: NoiseSpec, points: np.ndarray) -> np.ndarray:
    """Value and gradient (N, 1 + d) of ``spec`` at ``points``; through a warp ``p' = W(p)`` the gradient is
    ``J^T grad n(p')`` with the warp's Jacobian ``J``."""
    if not is_warped(spec):
        return _check_gradient(spec, _run_derivatives_unwarped(spec, points))
    moved, jacobian = warped_points_and_jacobian(spec, points, _run_derivatives_unwarped)
    out = _check_gradient(spec, _run_derivatives_unwarped(spec, moved, points))
    with np.errstate(over="ignore", invalid="ignore"):
        gradient = np.einsum("ni,nij->nj", out[:, 1:].astype(np.float64), jacobian)
    if not (np.abs(gradient) <= FLOAT32_MAX).all():
        raise ValueError(
            f"warp_amplitude: through the {spec.warp} warp (amplitude {spec.warp_amplitude:g}, "
            f"{spec.warp_octaves} octaves) the gradient grows beyond float32 ({FLOAT32_MAX:.3g}); lower "
            f"warp_amplitude, warp_frequency or warp_octaves, or use central differences of evaluate()"
        )
    out[:, 1:] = gradient
    return out


FLOAT32_MAX = float(np.finfo(np.float32).max)


def _check_gradient(spec: NoiseSpec, out: np.ndarray) -> np.ndarray:
    """``out`` (value and gradient) if every gradient entry is finite; else ``ValueError`` naming ``persistence``:
    each octave's gradient is its value's times its frequency, so large persistence, lacunarity and octaves
    (and the multifractal modes' products of octaves) can reach beyond float32 where the value does not."""
    if not np.isfinite(out[:, 1:]).all():
        raise ValueError(
            f"persistence: with derivatives=True the gradient of this spec (fractal {spec.fractal!r}, "
            f"{spec.octaves} octaves, lacunarity {spec.lacunarity:g}, persistence {spec.persistence:g}) grows "
            f"beyond float32 ({FLOAT32_MAX:.3g}); lower persistence, lacunarity, octaves or gain, or use central "
            f"differences of evaluate()"
        )
    return out


def _run_derivatives_unwarped(spec: NoiseSpec, points: np.ndarray, unwarped: np.ndarray | None = None) -> np.ndarray:
    out = np.empty((points.shape[0], 1 + points.shape[1]), dtype=np.float32)
    if out.shape[0] == 0:
        return out
    outside = derivative_sum(points, out, spec, _lattice_limit(spec), float32_range(spec))
    if outside:
        _reject_coordinates(spec, points, unwarped)
    return out


def evaluate(
    spec: NoiseSpec, points: np.ndarray, derivatives: bool = False, transform: np.ndarray | None = None
) -> np.ndarray:
    """Noise of ``spec`` at ``points``, an (N, d) float32/float64 array; returns (N,) float32.

    The noise is d-dimensional and reads the columns in order (x, y, z). With ``derivatives=True`` returns
    (N, 1 + d) float32: the value and its gradient with respect to the input coordinates (x, y, z order), for
    the lattice and simplex kinds with any fractal mode, turbulence, tiling and domain warp (``derivatives.py``).

    ``transform``, a (d, k + 1) matrix ``A`` for (N, k) points, reads the d-dimensional noise at the affine
    image ``A[:, :k] @ p + A[:, k]`` of each point, computed in the kernel (``affine.py``: bit for bit the noise
    at ``affine.affine_points(points, A)``); not with ``derivatives``.
    """
    spec = _check_spec(spec)
    points = _check_points(points)
    if not isinstance(derivatives, (bool, np.bool_)):
        raise TypeError(f"derivatives: expected True or False, got {derivatives!r}")
    if transform is not None:
        matrix = affine.check_transform(transform, points.shape[1])
        _check_dimension(spec, matrix.shape[0])
        if derivatives:
            raise ValueError("transform: not with derivatives=True (give the transformed points instead)")
        return _run_transformed(spec, np.ascontiguousarray(points), matrix)
    _check_dimension(spec, points.shape[1])
    if derivatives:
        _check_derivable(spec)
        return _run_derivatives(spec, np.ascontiguousarray(points))
    return _run(spec, np.ascontiguousarray(points))


def evaluate_lattice(
    spec: NoiseSpec,
    xs: np.ndarray,
    ys: np.ndarray,
    progress: Callable[[int, int], None] | None = None,
    zs: np.ndarray | None = None,
) -> np.ndarray:
    """Noise of ``spec`` at the 2D lattice ``(xs[c], ys[r])``: (len(ys), len(xs)) float32, bit for bit ``evaluate``
    of the (N, 2) points in rows (x fastest), computed by the grid kernels (as ``evaluate`` does when it finds such
    a lattice) without making the points: a transformed plane, a terrain.

    With ``zs``, the 3D noise at the lattice ``(xs[c], ys[r], zs[s])``: (len(zs), len(ys), len(xs)) float32, bit for
    bit ``evaluate`` of the (N, 3) points with x fastest and z slowest (value and Perlin noise by the separable 3D
    grid kernel, ``grid_kernels.grid_sum_3d``; simplex noise row by row, ``grid_kernels.simplex_grid_sum_3d``; the
    other kinds by the point path at those points).

    With ``progress``, the rows (slices with ``zs``) are computed in blocks of about ``LATTICE_BLOCK`` points (each
    point's value depends on it alone: the same bits) and ``progress(done, total)`` is called after each block; an
    exception it raises (a cancel) stops the work there."""
    spec = _check_spec(spec)
    if zs is not None:
        return _evaluate_lattice_3d(spec, xs, ys, zs, progress)
    _check_dimension(spec, 2)
    axes = []
    for name, values in (("xs", xs), ("ys", ys)):
        array = np.ascontiguousarray(values, dtype=np.float64)
        if array.ndim != 1:
            raise ValueError(f"{name}: expected a 1-D array of coordinates, got shape {array.shape}")
        axes.append(array)
    xs, ys = axes
    out = np.empty((ys.shape[0], xs.shape[0]), dtype=np.float32)
    if out.size == 0:
        return out
    if progress is not None:
        step = max(1, LATTICE_BLOCK // xs.shape[0])
        for row in range(0, ys.shape[0], step):
            out[row : row + step] = evaluate_lattice(spec, xs, ys[row : row + step])
            progress(min(row + step, ys.shape[0]), ys.shape[0])
        return out
    finite = np.isfinite(xs).all() and np.isfinite(ys).all()
    if is_warped(spec) or not (finite and _on_grid(spec, xs, ys, out)):  # the point path, which raises if need be
        points = np.column_stack([np.tile(xs, ys.shape[0]), np.repeat(ys, xs.shape[0])])
        out.reshape(-1)[:] = _run(spec, points)
    return out


def _lattice_axis(name: str, values: object) -> np.ndarray:
    """``values`` as a 1-D C-contiguous float64 array; ``ValueError`` starting with ``name`` otherwise."""
    array = np.ascontiguousarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array of coordinates, got shape {array.shape}")
    return array


def _evaluate_lattice_3d(
    spec: NoiseSpec, xs: object, ys: object, zs: object, progress: Callable[[int, int], None] | None
) -> np.ndarray:
    """``evaluate_lattice`` with ``zs``: the 3D lattice."""
    _check_dimension(spec, 3)
    xs, ys, zs = (_lattice_axis(name, values) for name, values in (("xs", xs), ("ys", ys), ("zs", zs)))
    out = np.empty((zs.shape[0], ys.shape[0], xs.shape[0]), dtype=np.float32)
    if out.size == 0:
        return out
    if progress is not None:
        step = max(1, LATTICE_BLOCK // (xs.shape[0] * ys.shape[0]))
        for first in range(0, zs.shape[0], step):
            out[first : first + step] = _evaluate_lattice_3d(spec, xs, ys, zs[first : first + step], None)
            progress(min(first + step, zs.shape[0]), zs.shape[0])
        return out
    axes = (xs, ys, zs)
    finite = all(np.isfinite(axis).all() for axis in axes)
    if finite and not is_warped(spec) and max(np.abs(axis).max() for axis in axes) < _lattice_limit(spec):
        if separable(spec):
            grid_sum_3d(xs, ys, zs, out, spec, float32_range(spec))
        elif simplex_rows(spec, xs.shape[0]):
            simplex_grid_sum_3d(xs, ys, zs, out, spec, float32_range(spec))
        else:
            family, variant, params = kernel_arguments(spec, 3)
            fractal_grid_sum_3d(xs, ys, zs, out, family, variant, spec, params, _lattice_limit(spec),
                                float32_range(spec))  # fmt: skip
        return out
    z, y, x = np.meshgrid(zs, ys, xs, indexing="ij")  # the point path, which raises if need be
    out.reshape(-1)[:] = _run(spec, np.column_stack([x.reshape(-1), y.reshape(-1), z.reshape(-1)]))
    return out


def grid_coordinates(
    shape: tuple[int, int], window: tuple[int, int, int, int] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Pixel-centre coordinates of an (H, W) image: ``x = (c + .5) / W``, ``y = (r + .5) / H``.

    With ``window=(row0, col0, height, width)`` only the pixels ``[row0:row0 + height, col0:col0 + width]``
    of that image, computed by the same float64 operations (whole-number ``c`` and ``r`` are exact), so a
    window's coordinates are bit for bit those of the whole image.
    """
    xs, ys = _grid_axes(shape, window)
    return np.tile(xs, ys.shape[0]), np.repeat(ys, xs.shape[0])


def _grid_axes(
    shape: tuple[int, int], window: tuple[int, int, int, int] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The pixel-centre ``x`` of each column and ``y`` of each row of ``grid_coordinates(shape, window)``."""
    height, width = shape
    row0, col0, rows, cols = (0, 0, height, width) if window is None else window
    xs = (np.arange(col0, col0 + cols, dtype=np.float64) + 0.5) / width
    ys = (np.arange(row0, row0 + rows, dtype=np.float64) + 0.5) / height
    return xs, ys


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _check_window(window: object, height: int, width: int) -> tuple[int, int, int, int]:
    """``window`` as four ints ``(row0, col0, height, width)`` of a non-empty region inside the (H, W) grid."""
    if not isinstance(window, tuple) or len(window) != 4 or not all(map(_is_int, window)):
        raise TypeError(f"window: expected a tuple (row0, col0, height, width) of four integers, got {window!r}")
    row0, col0, rows, cols = (int(v) for v in window)
    if row0 < 0 or col0 < 0 or rows <= 0 or cols <= 0 or row0 + rows > height or col0 + cols > width:
        raise ValueError(
            f"window: (row0, col0, height, width) = {window!r} must have row0, col0 >= 0, height, width >= 1 "
            f"and lie inside the {height}x{width} grid"
        )
    return row0, col0, rows, cols


def check_shape(shape: object, limit: bool = True) -> tuple[int, int]:
    """``shape`` as ``(height, width)`` ints >= 1: ``TypeError``/``ValueError`` starting with ``shape`` otherwise,
    and (``limit``) when it holds more than ``MAX_GRID_SAMPLES`` pixels, the most one array is computed for."""
    if not isinstance(shape, tuple) or len(shape) != 2 or not all(map(_is_int, shape)):
        raise TypeError(f"shape: expected a tuple (height, width) of two integers, got {shape!r}")
    height, width = int(shape[0]), int(shape[1])
    if height <= 0 or width <= 0:
        raise ValueError(f"shape: height and width must be positive, got {shape!r}")
    if limit and height * width > MAX_GRID_SAMPLES:
        raise ValueError(f"shape: {height}x{width} exceeds the limit of {MAX_GRID_SAMPLES} samples")
    return height, width


def evaluate_grid(
    spec: NoiseSpec, shape: tuple[int, int], window: tuple[int, int, int, int] | None = None
) -> np.ndarray:
    """2D noise of ``spec`` on an (H, W) pixel grid; ``[r, c]`` is the noise at ((c+.5)/W, (r+.5)/H).

    With ``tiling=True`` the image tiles seamlessly. ``window=(row0, col0, height, width)`` returns just
    those pixels of the (H, W) grid, bit for bit equal to ``evaluate_grid(spec, shape)[row0:row0 + height,
    col0:col0 + width]`` (every value depends only on its own coordinates); then the sample limit applies to
    the window, so a grid of any size can be computed window by window (``noise_core.scale``).
    """
    spec = _check_spec(spec)
    height, width = check_shape(shape, limit=window is None)
    if window is not None:
        window = _check_window(window, height, width)
        if window[2] * window[3] > MAX_GRID_SAMPLES:
            raise ValueError(
                f"window: {window[2]}x{window[3]} exceeds the limit of {MAX_GRID_SAMPLES} samples per evaluation"
            )
    _check_dimension(spec, 2)
    rows, cols = (height, width) if window is None else window[2:]
    if not is_warped(spec):
        out = np.empty((rows, cols), dtype=np.float32)
        if _on_grid(spec, *_grid_axes((height, width), window), out):
            return out
    return _run(spec, np.column_stack(grid_coordinates((height, width), window))).reshape(rows, cols)


def kind_names() -> tuple[str, ...]:
    """The names of all noise kinds, in registry order."""
    return tuple(KINDS)


COMPILE_STATES = ("compiled", "cached", "uncompiled")


def plan(
    spec: NoiseSpec,
    dim: int,
    dtype: object = np.float64,
    *,
    lattice: bool = False,
    derivatives: bool = False,
    transform_width: int | None = None,
) -> tuple:
    """The compiled functions ``evaluate(spec, points, derivatives)`` runs for (N, ``dim``) ``dtype`` points, each
    with the argument types it is called with (pairs of dispatcher and signature, no repeats): a domain warp's
    component noise first, then the noise itself (on the moved float64 points when warped), as ``route`` says.
    ``lattice``: the points are an axis-aligned 2D lattice (``lattice_axes``), as ``evaluate_grid``'s are.
    ``compile_state`` and ``precompile`` read it, and the add-on announces a first use from it."""
    spec = _check_spec(spec)
    dims = kind_info(spec.kind).dims
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim not in dims:
        allowed = ", ".join(map(str, dims))
        raise ValueError(f"dim: kind {spec.kind!r} is defined in {allowed} dimensions, got {dim!r}")
    try:
        dtype = np.dtype(dtype)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError(f"dtype: must be float32 or float64, got {dtype!r}") from None
    if dtype not in (np.float32, np.float64):
        raise TypeError(f"dtype: must be float32 or float64, got {dtype}")
    if derivatives:
        _check_derivable(spec)
    if transform_width is not None:  # evaluate(spec, points, transform=A) for (N, transform_width) points
        width = _check_transform_width(transform_width)
        if not is_warped(spec):  # a warped spec runs on the transformed float64 points
            return tuple(dict.fromkeys(_plan_point(spec, int(dim), dtype.type, width=width)))
        dtype, lattice = np.dtype(np.float64), False
    return tuple(dict.fromkeys(_plan(spec, int(dim), dtype.type, bool(lattice), bool(derivatives))))


def _check_transform_width(width: object) -> int:
    if isinstance(width, bool) or not isinstance(width, (int, np.integer)) or not 1 <= width <= 4:
        raise ValueError(f"transform_width: must be 1, 2, 3 or 4 (the points' columns), got {width!r}")
    return int(width)


def _plan_point(spec: NoiseSpec, dim: int, dtype: type, grid: bool = False, width: int | None = None) -> list:
    """The block function of unwarped ``spec`` and the launcher that runs it (``fractal.launcher_for``) on (N,
    ``dim``) ``dtype`` points (``grid``: the grid mode's lattice; ``width``: (N, ``width``) points mapped by a
    transform), each with its argument types."""
    kind = KINDS[spec.kind]
    if grid:
        block = kernel_for(kind.family, dim, kind.variant_of(spec), spec.tiling, MODE_CODES[spec.fractal])
        block_types, launcher = fractal.BLOCK_ARGUMENTS, fractal.launcher_for(dim, grid)
    else:
        transformed = width is not None
        block, block_types, launcher = fractal.point_kernels(kind.family, dim, kind.variant_of(spec), spec, dtype,
                                                             transformed, width)  # fmt: skip
    out, outside, bounds = np.empty(1, np.float32), np.zeros(1, np.int64), float32_range(spec)
    if grid:
        out = np.empty((1, 1), np.float32)
        arguments = fractal.grid_arguments(np.empty((2, 1)), out, outside, 0, spec, NO_PARAMS, 1.0, bounds)
    else:
        points = np.empty((1, dim if width is None else width), dtype)
        matrix = None if width is None else np.zeros((dim, width + 1))
        arguments = fractal.kernel_arguments(points, matrix, out, outside, 0, spec, NO_PARAMS, 1.0, bounds)
    return [(block, block_types), (launcher, runtime.range_signature(launcher, arguments))]


def _plan(spec: NoiseSpec, dim: int, dtype: type, lattice: bool, derivatives: bool) -> list:
    """``plan`` for checked arguments (a list, in the order of the run, repeats included)."""
    steps = []
    if is_warped(spec):  # every component has the same kind and tiling, so the same kernels (warp.py)
        component = component_spec(spec, 0)
        if spec.warp == "independent":  # each component reads the caller's points
            steps += _plan(component, dim, dtype, lattice, derivatives)
        else:  # octave 0 reads the points copied to float64, the later octaves the moved points
            steps += _plan(component, dim, np.float64, lattice, derivatives)
            steps += _plan(component, dim, np.float64, False, derivatives) if spec.warp_octaves > 1 else []
        dtype, lattice = np.float64, False  # the noise reads the moved points
    taken = route(spec, dim, lattice, derivatives)
    if taken in (SEPARABLE, GRID):  # evaluate tells the lattice first (evaluate_grid knows it)
        points = np.zeros((1, 2), dtype)
        for check, arguments in ((_row_width, (points,)), (_is_lattice, (points, 1))):
            steps.append((check.dispatcher, runtime.kernel_signature(check.dispatcher, arguments)))
    if taken == SEPARABLE:
        return [*steps, grid_kernel_and_signature(spec)]
    if taken == DERIVATIVES:
        return [*steps, derivative_kernel_and_signature(spec, dim, dtype)]
    return [*steps, *_plan_point(spec, dim, dtype, grid=taken == GRID)]


def compile_state(
    spec: NoiseSpec,
    dim: int,
    dtype: object = np.float64,
    grid: bool = False,
    derivatives: bool = False,
    transform_width: int | None = None,
) -> str:
    """Whether ``evaluate(spec, points, derivatives)`` with (N, ``dim``) ``dtype`` points would have to compile
    first: the least ready of the kernels ``plan`` lists.

    ``"compiled"``: the machine code is in memory; ``"cached"``: it loads from the on-disk cache (a
    fraction of a second); ``"uncompiled"``: the call compiles it (seconds).
    Cheap (reads one small index file); one kernel serves every spec with the same kind, variant
    (distance metric), tiling and fractal mode. ``grid``: for ``evaluate_grid`` and the axis-aligned lattices of
    2D points ``evaluate`` hands to the grid kernels. ``transform_width``: for ``evaluate(spec, points,
    transform=A)`` with (N, ``transform_width``) points and ``dim`` rows of ``A``.
    """
    steps = plan(spec, dim, dtype, lattice=grid, derivatives=derivatives, transform_width=transform_width)
    return runtime.least_ready(steps)


def precompile(
    spec: NoiseSpec,
    dim: int,
    dtype: object = np.float64,
    derivatives: bool = False,
    transform_width: int | None = None,
) -> str:
    """Compile (or load from the disk cache) the kernels ``evaluate`` would use (``plan``), without evaluating.

    With ``dim`` 2 (and no ``derivatives``) it also compiles the grid kernels ``evaluate_grid`` runs for
    ``spec`` (the separable one for value and Perlin noise, ``grid_kernels``; the point kernel in grid mode for
    the other kinds). Returns the ``compile_state`` the point kernels had before. Safe to call from any thread.
    ``transform_width``: the kernels of ``evaluate(spec, points, transform=A)`` instead (``compile_state``).
    """
    steps = plan(spec, dim, dtype, derivatives=derivatives, transform_width=transform_width)
    state = runtime.least_ready(steps)
    if dim == 2 and not derivatives and transform_width is None:
        steps += plan(spec, dim, dtype, lattice=True)
    runtime.prepare(steps)
    return state
