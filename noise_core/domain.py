"""The noise space of a surface: where a point ``p`` (a vertex, a pixel centre on a plane) reads the noise.

``q = offset + R(rotation) @ (scale * p)`` with ``R`` the XYZ Euler rotation, as Blender's Mapping node of type
Point; 3D noise reads ``q`` whole, 4D noise ``q`` and the fourth coordinate ``w`` (as W of Blender's 4D Noise
Texture), 2D noise the two axes of ``plane``, 1D noise ``axis``. The add-on's noise settings and a terrain
recipe (``terrain.recipe``) both hold one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .affine import affine_points
from .api import grid_coordinates

AXIS_INDEX = {"X": 0, "Y": 1, "Z": 2}
PLANE_AXES = {"XY": (0, 1), "XZ": (0, 2), "YZ": (1, 2)}


def euler_matrix(rotation: tuple[float, float, float]) -> np.ndarray:
    """(3, 3) float64 rotation ``R = Rz @ Ry @ Rx`` of the XYZ Euler angles ``rotation`` (radians), each entry
    computed in double from the float32 angles and rounded to float32, as Blender's ``Euler.to_matrix`` (its
    ``eulO_to_mat3``) does: the same matrix bit for bit."""
    ti, tj, th = (float(np.float32(angle)) for angle in rotation)
    ci, cj, ch = math.cos(ti), math.cos(tj), math.cos(th)
    si, sj, sh = math.sin(ti), math.sin(tj), math.sin(th)
    cc, cs, sc, ss = ci * ch, ci * sh, si * ch, si * sh
    rows = (
        (cj * ch, sj * sc - cs, sj * cc + ss),
        (cj * sh, sj * ss + cc, sj * cs - sc),
        (-sj, cj * si, cj * ci),
    )
    return np.array(rows, dtype=np.float32).astype(np.float64)


@dataclass(frozen=True)
class Domain:
    """The noise-space transform and the axes the noise reads (see the module docstring)."""

    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rotation: tuple[float, float, float] = (0.0, 0.0, 0.0)
    scale: tuple[float, float, float] = (1.0, 1.0, 1.0)
    dimensions: int = 3
    plane: str = "XY"
    axis: str = "X"
    w: float = 0.0
    """The fourth coordinate of 4D noise (unused in 1-3D)."""

    def axes(self) -> tuple[int, ...]:
        """Indices of the noise-space axes the noise reads, in order (4D noise adds ``w`` to all three)."""
        if self.dimensions >= 3:
            return (0, 1, 2)
        if self.dimensions == 2:
            return PLANE_AXES[self.plane]
        return (AXIS_INDEX[self.axis],)

    def is_identity(self) -> bool:
        """Whether the transform leaves positions unchanged (no offset, rotation or scale)."""
        return not any(self.offset) and not any(self.rotation) and all(s == 1.0 for s in self.scale)

    def matrix(self) -> np.ndarray:
        """The transform as the (dimensions, 4) affine matrix ``noise_core.evaluate`` applies in its kernel
        (``transform=``): the rows of ``[R @ diag(scale) | offset]`` for the axes read (``euler_matrix``), and
        ``(0, 0, 0, w)`` for 4D noise. Without rotation its products are ``scale * p`` and zeros, so the noise
        coordinates are ``scale * p + offset`` exactly; with rotation ``(R[j, i] * scale[i]) * p[i]`` summed
        left to right (``noise_core.affine``)."""
        scale = np.asarray(self.scale, dtype=np.float64)
        linear = euler_matrix(self.rotation) * scale if any(self.rotation) else np.diag(scale)
        rows = np.hstack([linear, np.asarray(self.offset, dtype=np.float64)[:, None]])[list(self.axes())]
        if self.dimensions == 4:
            rows = np.vstack([rows, [0.0, 0.0, 0.0, self.w]])
        return rows

    def kernel_transform(self) -> np.ndarray | None:
        """``matrix()``, or None for the identity transform reading all three axes (``evaluate`` then reads the
        positions as they are, float32 mesh positions included)."""
        return None if self.is_identity() and self.dimensions == 3 else self.matrix()

    def noise_points(self, positions: np.ndarray) -> np.ndarray:
        """(N, 3) positions -> (N, dimensions) noise coordinates (4D: the transformed positions and ``w``), in
        float64 so large offsets keep their precision: ``noise_core.affine.affine_points`` of ``matrix()``,
        bit for bit what ``evaluate(..., transform=matrix())`` computes in its kernel.
        The identity transform reading all three axes returns ``positions`` itself."""
        transform = self.kernel_transform()
        return positions if transform is None else affine_points(positions, transform)

    def plane_positions(self, width: int, height: int) -> np.ndarray:
        """(H*W, 3) pixel centres ``((c + .5) / W, (r + .5) / H)`` on ``plane``, row 0 at the bottom."""
        u, v = grid_coordinates((height, width))
        positions = np.zeros((u.shape[0], 3), dtype=np.float64)
        first, second = PLANE_AXES[self.plane]
        positions[:, first] = u
        positions[:, second] = v
        return positions

    def plane_is_lattice(self) -> bool:
        """Whether the noise points of the plane's pixels (``noise_points(plane_positions(...))``) form an
        axis-aligned 2D lattice, which ``evaluate`` hands to its grid kernels: 2D noise without rotation."""
        return self.dimensions == 2 and not any(self.rotation)

    def keeps_tiling(self) -> bool:
        """Whether an image baked on ``plane`` stays tileable: no rotation, whole-number scale on the plane."""
        plane_scale = [self.scale[axis] for axis in PLANE_AXES[self.plane]]
        return not any(self.rotation) and all(float(s).is_integer() and s != 0 for s in plane_scale)
