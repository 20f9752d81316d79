"""Seamless loops: noise that returns to where it started after ``frames`` frames.

Frame ``f`` of an ``frames``-frame loop reads the noise at the point's own coordinates plus two more,
``(radius cos 2 pi f / frames, radius sin 2 pi f / frames)``: it moves around a circle of ``radius`` (in
noise-space units) in two extra dimensions, so frame ``frames`` is frame 0 again and every step between
frames is the same length, ``2 radius sin(pi / frames)``. A 2D image therefore loops through 4D noise, 1D
points through 3D noise. Each frame is ``evaluate`` of the points with those two columns added; the
noise's tiling (period 1 along every axis) still makes each frame tile in x and y.

``time_points`` is the plain alternative, an animation that never repeats: one extra coordinate ``w``
(Blender's 4D Noise Texture's W), moved by the caller from frame to frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from .api import _check_points, check_reach, check_shape, evaluate, grid_coordinates
from .io.files import replacing_all
from .io.images import write_image
from .ranges import to_unit
from .registry import KINDS, kind_info
from .schema import Option, integer, number
from .spec import NoiseSpec

MAX_FRAMES = 10_000
MAX_RADIUS = 1e6
DEFAULT_RADIUS = 0.25
"""A circle of 0.25 units: at the default frequency 4 a loop travels about 6 lattice cells."""
RADIUS = Option("loop_radius", float, DEFAULT_RADIUS, "Radius of the loop's circle in the two extra noise dimensions, "
                "in noise-space units (larger: faster change from frame to frame)", minimum=0.0, above=True,
                maximum=MAX_RADIUS, ui_minimum=1e-6, soft_maximum=4.0)  # fmt: skip
"""The circle a seamless loop moves around (``check_loop``'s ``radius``): the command line's ``--loop-radius``, the
add-on's Displace animation and loop bake."""


def check_loop(frames: object, radius: object) -> tuple[int, float]:
    """``frames`` as an int in ``[1, MAX_FRAMES]`` and ``radius`` as a float in ``(0, MAX_RADIUS]``;
    ``ValueError``/``TypeError`` naming the argument otherwise."""
    count = integer("frames", frames)
    if not 1 <= count <= MAX_FRAMES:
        raise ValueError(f"frames: must be between 1 and {MAX_FRAMES}, got {frames!r}")
    size = number("radius", radius)
    if not 0.0 < size <= MAX_RADIUS:
        raise ValueError(f"radius: must be in (0, {MAX_RADIUS:g}], got {radius!r}")
    return count, size


def check_loop_kind(spec: NoiseSpec, dim: int) -> None:
    """``ValueError`` naming ``loop`` unless ``spec``'s kind has noise in ``dim + 2`` dimensions."""
    if dim + 2 not in kind_info(spec.kind).dims:
        able = ", ".join(name for name, kind in KINDS.items() if dim + 2 in kind.dims)
        raise ValueError(
            f"loop: a loop of {dim}D points moves through {dim + 2}D noise, which kind {spec.kind!r} does not have "
            f"(it is defined in {', '.join(map(str, kind_info(spec.kind).dims))} dimensions); "
            f"loop {dim}D points with {able or 'no kind'}"
        )


def check_loop_reach(spec: NoiseSpec, radius: float) -> None:
    """``ValueError`` naming ``radius`` when the loop's circle (moved by the warp) leaves the 32-bit lattice of
    ``spec``."""
    check_reach(spec, "radius", radius, "the loop's circle has coordinates")


def loop_angle(frame: int, frames: int) -> float:
    """The angle of ``frame`` on the circle, ``2 pi (frame mod frames) / frames``."""
    return 2.0 * math.pi * (frame % frames) / frames


def loop_points(points: np.ndarray, frame: int, frames: int, radius: float = DEFAULT_RADIUS) -> np.ndarray:
    """(N, d + 2) float64: ``points`` (N, d) with the circle's two coordinates of ``frame`` appended."""
    points = _check_points(points)
    frames, radius = check_loop(frames, radius)
    frame = integer("frame", frame)
    angle = loop_angle(frame, frames)
    moved = np.empty((points.shape[0], points.shape[1] + 2), dtype=np.float64)
    moved[:, : points.shape[1]] = points
    moved[:, -2] = radius * math.cos(angle)
    moved[:, -1] = radius * math.sin(angle)
    return moved


def time_points(points: np.ndarray, w: float) -> np.ndarray:
    """(N, d + 1) float64: ``points`` (N, d) with the coordinate ``w`` appended (animation by moving ``w``)."""
    points = _check_points(points)
    moved = np.empty((points.shape[0], points.shape[1] + 1), dtype=np.float64)
    moved[:, : points.shape[1]] = points
    moved[:, -1] = number("w", w)
    return moved


def evaluate_loop(
    spec: NoiseSpec, points: np.ndarray, frame: int, frames: int, radius: float = DEFAULT_RADIUS
) -> np.ndarray:
    """Frame ``frame`` of the ``frames``-frame loop of ``spec`` at ``points`` (N, d): (N,) float32."""
    points = _check_points(points)
    check_loop_kind(spec, points.shape[1])
    check_loop_reach(spec, check_loop(frames, radius)[1])
    return evaluate(spec, loop_points(points, frame, frames, radius))


def loop_grid(
    spec: NoiseSpec, shape: tuple[int, int], frame: int, frames: int, radius: float = DEFAULT_RADIUS
) -> np.ndarray:
    """Frame ``frame`` of the loop of the (H, W) image ``evaluate_grid(spec, shape)`` would give (pixel
    ``[r, c]`` at ``((c + .5) / W, (r + .5) / H)``), through 4D noise: (H, W) float32."""
    height, width = check_shape(shape)
    points = np.column_stack(grid_coordinates((height, width)))
    return evaluate_loop(spec, points, frame, frames, radius).reshape(height, width)


def frame_path(pattern: str | Path, frame: int) -> Path:
    """Where frame ``frame`` (0-based) of a sequence goes: ``name.png`` -> ``name.0001.png`` (Blender's
    numbering: from 1, four digits or more)."""
    path = Path(pattern)
    return path.with_name(f"{path.stem}.{frame + 1:04d}{path.suffix}")


def write_sequence(
    pattern: str | Path,
    frames: int,
    render: Callable[[int], np.ndarray],
    bits: int = 16,
    progress: Callable[[int], None] | None = None,
) -> list[Path]:
    """Write ``render(f)`` (values 0..1, rows as the file stores them) for ``f`` in ``range(frames)`` to
    ``frame_path(pattern, f)``; all or none (``files.replacing_all``: an error or an interrupt, while writing or
    renaming, leaves no frame of the new set and keeps existing files as they were).
    ``progress(f)`` is called after each frame."""
    paths = [frame_path(pattern, frame) for frame in range(frames)]
    with replacing_all(paths) as temporaries:
        for frame, temporary in enumerate(temporaries):
            write_image(temporary, render(frame), bits)
            if progress is not None:
                progress(frame)
    return paths


def loop_frames(
    spec: NoiseSpec, shape: tuple[int, int], frames: int, radius: float = DEFAULT_RADIUS
) -> Iterator[np.ndarray]:
    """Each frame of the loop of an (H, W) image in turn, mapped to 0..1 (rows as ``loop_grid``)."""
    for frame in range(frames):
        yield to_unit(spec, loop_grid(spec, shape, frame, frames, radius))
