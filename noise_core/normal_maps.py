"""Tangent-space normal maps of a height noise.

The height is the noise mapped to 0..1 (``ranges.to_unit``, as height images are baked) over a texture whose
sides are 1 in ``u`` and ``v``; the surface is ``z = strength * h(u, v)``, so its normal is
``normalize(-strength dh/du, -strength dh/dv, 1)``, stored as ``n / 2 + 1/2`` in RGB (what a Normal Map node
reads). OpenGL's green channel points up the texture (+v), DirectX's down: its green is flipped.

``dh/du`` and ``dh/dv`` come from the analytic gradient (``derivatives.py``) where the kind has one
(``method="analytic"``), or from central differences of the height one pixel apart,
``(h(u + 1/W) - h(u - 1/W)) W / 2`` (``method="differences"``); ``"auto"`` picks the analytic gradient when it
exists. Both are periodic when the noise tiles, so a tiling noise gives a seamless normal map.
"""

from __future__ import annotations

import math

import numpy as np

from .api import _check_points, check_reach, check_shape, evaluate, grid_coordinates, lattice_limit, plan
from .derivatives import DERIVABLE_KINDS
from .loops import check_loop_kind, check_loop_reach, loop_points
from .ranges import to_unit, value_range
from .schema import Option, number
from .spec import NoiseSpec

CONVENTIONS = ("opengl", "directx")
METHODS = ("auto", "analytic", "differences")
MAX_STRENGTH = 1000.0
METHOD_TEXT = {"analytic": "analytic derivatives", "differences": "central differences of the height"}
"""How each method is named to users (the CLI's report, the add-on's panel)."""

MAP = Option("map", str, "height", "What the image holds", title="Map", choices=("height", "normal"),
             choice_text=(("Height", "The noise mapped to 0..1"),
                          ("Normal Map", "A tangent-space normal map of that height (non-colour RGB, for a Normal "
                                         "Map node)")),
             addon_name="map_type")  # fmt: skip
STRENGTH = Option("normal_strength", float, 0.1, "Height of the surface from noise 0 to 1, in image widths",
                  title="Strength", minimum=0.0, maximum=MAX_STRENGTH, soft_maximum=2.0)  # fmt: skip
CONVENTION = Option(
    "normal_convention", str, "opengl", "Which way the green channel points", title="Green", choices=CONVENTIONS,
    choice_text=(("OpenGL (+Y)", "Green up the image: Blender, Godot, Unity"),
                 ("DirectX (-Y)", "Green down the image: Unreal Engine, Substance's DirectX preset")),
)  # fmt: skip
METHOD = Option(
    "normal_method", str, "auto", "How the normals' slopes are computed", title="Slopes", choices=METHODS,
    choice_text=(("Auto", "Analytic derivatives where the kind has them, else central differences"),
                 ("Analytic", f"The noise's exact gradient ({', '.join(DERIVABLE_KINDS)})"),
                 ("Central Differences", "Differences of the height one pixel apart (every kind)")),
)  # fmt: skip
OPTIONS = (MAP, STRENGTH, CONVENTION, METHOD)
"""A bake's normal map options (``grid_normals``' ``strength``, ``convention``, ``method``), one row each for the
command line and the add-on."""


def has_analytic_gradient(spec: NoiseSpec) -> bool:
    """Whether ``evaluate(spec, points, derivatives=True)`` works for ``spec``'s kind."""
    return spec.kind in DERIVABLE_KINDS


def normal_method(spec: NoiseSpec, method: str = "auto") -> str:
    """``"analytic"`` or ``"differences"``: what ``method`` means for ``spec``; ``ValueError`` naming ``method``
    when it is unknown or asks for an analytic gradient the kind does not have."""
    if method not in METHODS:
        raise ValueError(f"method: {method!r} is not allowed; choose one of {', '.join(map(repr, METHODS))}")
    if method == "analytic" and not has_analytic_gradient(spec):
        raise ValueError(
            f"method: kind {spec.kind!r} has no analytic gradient; use 'differences' or 'auto' "
            f"(analytic: {', '.join(DERIVABLE_KINDS)})"
        )
    if method == "auto":
        return "analytic" if has_analytic_gradient(spec) else "differences"
    return method


def normals_plan(
    spec: NoiseSpec, dim: int, method: str = "auto", lattice: bool = False, dtype: object = np.float64
) -> tuple:
    """The compiled functions ``surface_normals`` runs for ``spec`` on (N, ``dim``) ``dtype`` points by ``method``
    (as ``api.plan`` lists them): the derivative kernels, or those of the heights the differences read (on
    float64 points; ``lattice``: the points are an axis-aligned 2D lattice, as ``grid_normals``' are, and so
    are they moved)."""
    if normal_method(spec, method) == "analytic":
        return plan(spec, dim, dtype, derivatives=True)
    return plan(spec, dim, np.float64, lattice=lattice)


def check_strength(strength: object) -> float:
    """``strength`` as a float in ``[0, MAX_STRENGTH]``; ``ValueError`` naming it otherwise."""
    if isinstance(strength, bool) or not isinstance(strength, (int, float, np.integer, np.floating)):
        raise TypeError(f"strength: expected a number, got {type(strength).__name__}")
    value = float(strength)
    if not math.isfinite(value) or not 0.0 <= value <= MAX_STRENGTH:
        raise ValueError(f"strength: must be between 0 and {MAX_STRENGTH:g}, got {strength!r}")
    return value


def check_convention(convention: object) -> str:
    if convention not in CONVENTIONS:
        allowed = ", ".join(map(repr, CONVENTIONS))
        raise ValueError(f"convention: {convention!r} is not allowed; choose one of {allowed}")
    return str(convention)


def surface_normals(
    spec: NoiseSpec,
    points: np.ndarray,
    du: np.ndarray,
    dv: np.ndarray,
    pixel: tuple[float, float],
    *,
    strength: float = 1.0,
    convention: str = "opengl",
    method: str = "auto",
) -> np.ndarray:
    """Unit normals (N, 3) float32 of the height ``spec`` at ``points`` (N, d noise coordinates of the texels).

    ``du``, ``dv`` (d,) are how the noise coordinates change per unit of ``u`` and ``v``; ``pixel`` is the texel
    size ``(1/W, 1/H)`` in ``u`` and ``v``, the step of the central differences.
    """
    strength = check_strength(strength)
    convention = check_convention(convention)
    chosen = normal_method(spec, method)
    points = _check_points(points)
    du, dv = (_check_direction(name, value, points.shape[1]) for name, value in (("du", du), ("dv", dv)))
    steps = _check_pixel(pixel)
    if chosen == "analytic":
        low, high = value_range(spec)
        gradient = evaluate(spec, points, derivatives=True)[:, 1:].astype(np.float64) / (high - low)
        with np.errstate(over="ignore", invalid="ignore"):
            slope_u, slope_v = gradient @ du, gradient @ dv
    else:
        largest = float(np.abs(points).max(initial=0.0))
        if largest < lattice_limit(spec):  # else evaluate names the points themselves
            away = max(steps[0] * float(np.abs(du).max()), steps[1] * float(np.abs(dv).max()))
            check_reach(spec, "pixel", largest + away, "the central differences, a texel (pixel x du, dv) away, have "
                        "coordinates")  # fmt: skip
        slope_u, slope_v = (
            (_height(spec, points + step * axis) - _height(spec, points - step * axis)) / (2.0 * step)
            for axis, step in ((du, steps[0]), (dv, steps[1]))
        )
    normals = np.empty((points.shape[0], 3), dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        normals[:, 0] = -strength * slope_u
        normals[:, 1] = -strength * slope_v * (1.0 if convention == "opengl" else -1.0)
    normals[:, 2] = 1.0
    if not np.isfinite(normals).all():
        raise ValueError(
            "du, dv: the height's slope along them overflows float64; give shorter du and dv (noise coordinates "
            "per unit of u and v)"
        )
    normals /= np.abs(normals).max(axis=1, keepdims=True)  # scaled first: squares of huge slopes stay finite
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    return normals.astype(np.float32)


def _check_direction(name: str, value: object, dim: int) -> np.ndarray:
    """``du`` or ``dv`` as a finite float64 vector of the points' ``dim`` coordinates."""
    try:
        direction = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected {dim} numbers (one per noise coordinate), got {value!r}") from None
    if direction.shape != (dim,):
        raise ValueError(f"{name}: expected {dim} numbers (one per noise coordinate of the points), got {value!r}")
    if not np.isfinite(direction).all():
        raise ValueError(f"{name}: must be finite, got {value!r}")
    return direction


def _check_pixel(pixel: object) -> tuple[float, float]:
    """``pixel`` as two finite texel sizes > 0 (the central differences' steps)."""
    if isinstance(pixel, (str, bytes)) or not isinstance(pixel, (tuple, list, np.ndarray)) or len(pixel) != 2:
        raise TypeError(f"pixel: expected the texel size (1/W, 1/H) as two numbers, got {pixel!r}")
    steps = (number("pixel[0]", pixel[0]), number("pixel[1]", pixel[1]))
    if not (steps[0] > 0.0 and steps[1] > 0.0):
        raise ValueError(f"pixel: the texel size (1/W, 1/H) must be > 0, got {pixel!r}")
    return steps


def _height(spec: NoiseSpec, points: np.ndarray) -> np.ndarray:
    return to_unit(spec, evaluate(spec, points)).astype(np.float64)


def grid_normals(
    spec: NoiseSpec,
    shape: tuple[int, int],
    *,
    strength: float = 1.0,
    convention: str = "opengl",
    method: str = "auto",
    top_row_first: bool = True,
    loop: tuple[int, int, float] | None = None,
) -> np.ndarray:
    """(H, W, 3) unit normals of the height image ``evaluate_grid(spec, shape)`` (pixel ``[r, c]`` at
    ``((c + .5) / W, (r + .5) / H)``). ``top_row_first``: row 0 is the top of the texture, as image files store
    it (``v = 1 - y``); otherwise the bottom, as Blender's pixel buffers store it (``v = y``). ``loop =
    (frame, frames, radius)``: of that frame of the loop of the image (``loops.loop_grid``) instead."""
    height, width = check_shape(shape)
    points = np.column_stack(grid_coordinates((height, width)))
    dv = (0.0, -1.0) if top_row_first else (0.0, 1.0)
    if loop is not None:
        check_loop_kind(spec, 2)
        points = loop_points(points, *loop)
        check_loop_reach(spec, float(np.abs(points[:, 2:]).max()))
        dv = (*dv, 0.0, 0.0)
    du = (1.0, 0.0, 0.0, 0.0)[: points.shape[1]]
    normals = surface_normals(
        spec, points, du, dv, (1.0 / width, 1.0 / height), strength=strength, convention=convention, method=method,
    )  # fmt: skip
    return normals.reshape(height, width, 3)


def encode(normals: np.ndarray) -> np.ndarray:
    """Unit normals as colours in 0..1: ``n / 2 + 1/2`` (float32)."""
    return (np.asarray(normals, dtype=np.float32) * np.float32(0.5) + np.float32(0.5)).clip(0.0, 1.0)
