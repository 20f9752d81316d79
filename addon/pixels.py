"""Noise images as flat RGBA float32 arrays in Blender's pixel order (rows bottom-up, like ``evaluate_grid``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import compile_status
from .errors import UserError
from .mapping import CHUNK, Domain, evaluate_chunked, evaluate_mapped, evaluate_plane
from .noise_core import NoiseSpec, loops, normal_maps
from .noise_core.api import lattice_axes
from .noise_core.domain import PLANE_AXES
from .noise_core.ranges import to_unit


def noise01_image(
    spec: NoiseSpec,
    domain: Domain,
    width: int,
    height: int,
    advance: Callable[[int], None] | None = None,
    loop: tuple[int, int, float] | None = None,
) -> np.ndarray:
    """(H*W,) float32 noise mapped to 0..1 at the pixel centres on the domain's plane.

    With the identity domain and 2D noise on XY this is ``evaluate_grid(spec, (H, W))`` mapped to 0..1.
    ``loop = (frame, frames, radius)``: that frame of the seamless loop (``noise_core.loops``).
    """
    if loop is not None:
        points = loops.loop_points(domain.noise_points(domain.plane_positions(width, height)), *loop)
        return to_unit(spec, evaluate_chunked(spec, points, advance))
    if domain.plane_is_lattice():  # the lattice (u * scale + offset, v * scale + offset): the grid kernels
        first, second = PLANE_AXES[domain.plane]
        along_u = (np.arange(width, dtype=np.float64) + 0.5) / width * domain.scale[first] + domain.offset[first]
        along_v = (np.arange(height, dtype=np.float64) + 0.5) / height * domain.scale[second] + domain.offset[second]
        return to_unit(spec, evaluate_plane(spec, along_u, along_v, advance).ravel())
    return to_unit(spec, evaluate_mapped(spec, domain, domain.plane_positions(width, height), advance))


def normal_colours(
    spec: NoiseSpec,
    domain: Domain,
    width: int,
    height: int,
    strength: float,
    convention: str,
    method: str,
    loop: tuple[int, int, float] | None = None,
    advance: Callable[[int], None] | None = None,
) -> np.ndarray:
    """(H*W, 3) float32 colours 0..1 of the tangent-space normal map of the height ``noise01_image`` gives
    (``noise_core.normal_maps``): ``u`` along the plane's first axis, ``v`` its second (row 0 at the bottom),
    through the domain's transform. ``convention`` and ``method`` as ``normal_maps`` spells them; ``loop`` as
    ``noise01_image``'s. Computed in blocks of whole rows (each texel's normal depends on its point alone: the
    same bits), ``advance(n)`` after each (a cancel raised by it stops there)."""
    first, second = PLANE_AXES[domain.plane]
    corners = np.zeros((3, 3), dtype=np.float64)
    corners[1, first] = 1.0
    corners[2, second] = 1.0
    origin, along_u, along_v = domain.noise_points(corners)
    points = np.ascontiguousarray(domain.noise_points(domain.plane_positions(width, height)))
    if loop is not None:
        points = loops.loop_points(points, *loop)
        origin, along_u, along_v = (np.append(corner, (0.0, 0.0)) for corner in (origin, along_u, along_v))
    dim = points.shape[1]

    def steps() -> tuple:  # asked only when an operator listens (compile_status.announcing)
        lattice = dim == 2 and lattice_axes(points) is not None
        return normal_maps.normals_plan(spec, dim, method, lattice, points.dtype)

    compile_status.before_plan(spec, dim, steps)
    normals = np.empty((points.shape[0], 3), dtype=np.float32)
    block = max(1, CHUNK // width) * width
    for first in range(0, points.shape[0], block):
        try:
            normals[first : first + block] = normal_maps.surface_normals(
                spec, points[first : first + block], along_u - origin, along_v - origin, (1.0 / width, 1.0 / height),
                strength=strength, convention=convention, method=method,
            )  # fmt: skip
        except ValueError as error:
            raise UserError(f"noise space {error}") from None
        if advance is not None:
            advance(min(block, points.shape[0] - first))
    return normal_maps.encode(normals)


def pixel_array(owner: Any, name: str = "pixels") -> Any:
    """``owner.<name>`` (an image's ``pixels``, a preview's ``image_pixels_float``) for ``foreach_get/set``.

    The stubs type these float arrays as a single float.
    """
    return getattr(owner, name)


def linear_to_srgb(linear: np.ndarray) -> np.ndarray:
    """The sRGB transfer function (IEC 61966-2-1) for values in 0..1."""
    linear = np.clip(linear, 0.0, 1.0)
    return np.where(linear <= 0.0031308, linear * 12.92, 1.055 * np.power(linear, 1.0 / 2.4) - 0.055)


def srgb_to_linear(encoded: np.ndarray) -> np.ndarray:
    """The inverse of ``linear_to_srgb`` (IEC 61966-2-1) for values in 0..1."""
    encoded = np.clip(encoded, 0.0, 1.0)
    return np.where(encoded <= 0.04045, encoded / 12.92, np.power((encoded + 0.055) / 1.055, 2.4))


Ramp = tuple[tuple[float, float, float], tuple[float, float, float]]
"""A two-colour ramp: the colours at 0 and at 1 (scene linear)."""
RGBA_BLOCK = 1 << 18
"""Pixels ``image_colours`` and ``rgba_of`` make between two ``check`` calls."""


def image_colours(
    values: np.ndarray, ramp: Ramp | None = None, encode_srgb: bool = False, check: Callable[[], object] | None = None
) -> np.ndarray:
    """The colours an image of ``values`` (0..1) holds, float32: (N,) grey; (N, 3) ``ramp`` colours (scene
    linear) blended linearly, sRGB-encoded with ``encode_srgb`` (8-bit images in the sRGB colour space); (N, 3)
    ``values`` are colours already (data such as normal maps: kept as they are). Ramp colours are made a block
    of pixels at a time with ``check()`` before each (a cancel it raises stops there)."""
    if values.ndim == 2 or ramp is None:
        return values.astype(np.float32, copy=False)
    low, high = (np.asarray(colour, dtype=np.float32) for colour in ramp)
    colours = np.empty((values.shape[0], 3), dtype=np.float32)
    for start in range(0, values.shape[0], RGBA_BLOCK):
        if check is not None:
            check()
        block = low + values[start : start + RGBA_BLOCK, None] * (high - low)
        colours[start : start + RGBA_BLOCK] = linear_to_srgb(block) if encode_srgb else block
    return colours


def to_rgba(
    values: np.ndarray, ramp: Ramp | None = None, encode_srgb: bool = False, check: Callable[[], object] | None = None
) -> np.ndarray:
    """Flat float32 RGBA of ``image_colours(values, ramp, encode_srgb)``, alpha 1 (``rgba_of``)."""
    return rgba_of(image_colours(values, ramp, encode_srgb, check), check)


def rgba_of(colours: np.ndarray, check: Callable[[], object] | None = None) -> np.ndarray:
    """Flat float32 RGBA of (N,) grey or (N, 3) ``colours``, alpha 1, filled a block of pixels at a time with
    ``check()`` before each (a cancel it raises stops there)."""
    count = colours.shape[0]
    rgba = np.empty((count, 4), dtype=np.float32)
    for start in range(0, count, RGBA_BLOCK):  # blocks: np.repeat's copy stays in the cache
        if check is not None:
            check()
        block = rgba[start : start + RGBA_BLOCK]
        if colours.ndim == 1:  # np.repeat writes whole pixels: 2-3x faster than three channels of four
            block.reshape(-1)[:] = np.repeat(colours[start : start + RGBA_BLOCK], 4)
        else:
            block[:, :3] = colours[start : start + RGBA_BLOCK]
        block[:, 3] = 1.0
    return rgba.ravel()
