"""Domain warp: the noise is sampled at ``p + w(p)``, ``w`` a vector of fractal noise (FastNoiseLite's warps).

Component ``a`` (x, y, z) of the warp is noise of kind ``warp_kind`` with hash seed ``seed + 1000 (a + 1)``
(wrapped to 32 bits), frequency ``warp_frequency`` and the spec's ``lacunarity`` and ``persistence``, octave
``o`` weighted ``r^o / sum(r^j)`` (``r = persistence``), so ``|w_a| <= warp_amplitude``. As FastNoiseLite's
``DomainWarpFractalIndependent`` and ``DomainWarpFractalProgressive`` (with its ``mFractalBounding``):

- ``independent``: every octave reads the unwarped point, ``w(p) = warp_amplitude * fBm(p)``;
- ``progressive``: octave ``o`` reads the point the octaves before it moved, ``p_0 = p``,
  ``p_{o+1} = p_o + warp_amplitude * r^o / sum(r^j) * n_o(p_o)``, and the noise is sampled at ``p_octaves``.

Tiling: with ``tiling`` the warp noise tiles with period 1 as the noise does (a tileable ``warp_kind`` and a
whole ``warp_frequency``), so ``noise(p + 1 + w(p + 1)) = noise(p + w(p))``. ``warp_amplitude = 0`` skips the
warp entirely, so the output is bit for bit the unwarped noise. Each component is one call of the fractal
kernel (per octave, when progressive) over all points, so warping costs ``d`` (``d x octaves``) extra
evaluations of the basis.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from .spec import NoiseSpec

SEED_STEP = 1000
"""Component ``a`` of the warp hashes with ``seed + SEED_STEP * (a + 1)``: apart from the noise's own octave
seeds ``seed + o`` (o < 16) and from each other's."""


def _wrap_seed(seed: int) -> int:
    """``seed`` wrapped into the 32-bit signed range, as the hash sees it."""
    return (seed + 2**31) % 2**32 - 2**31


def component_spec(spec: NoiseSpec, axis: int) -> NoiseSpec:
    """The unwarped fBm spec of warp component ``axis`` (0, 1, 2 for x, y, z) of ``spec``."""
    return NoiseSpec(
        kind=spec.warp_kind,
        seed=_wrap_seed(spec.seed + SEED_STEP * (axis + 1)),
        frequency=spec.warp_frequency,
        octaves=spec.warp_octaves,
        lacunarity=spec.lacunarity,
        persistence=spec.persistence,
        tiling=spec.tiling,
    )


def is_warped(spec: NoiseSpec) -> bool:
    """Whether ``spec`` moves its sampling points (a warp mode with a non-zero amplitude)."""
    return spec.warp != "none" and spec.warp_amplitude != 0.0


def warped_points(
    spec: NoiseSpec, points: np.ndarray, run: Callable[[NoiseSpec, np.ndarray], np.ndarray]
) -> np.ndarray:
    """``points`` (N, d) moved by the warp of ``spec``, as float64; ``run(spec, points)`` evaluates unwarped noise."""
    return _warp(spec, points, lambda component, at: (run(component, at), None))[0]


def warped_points_and_jacobian(
    spec: NoiseSpec, points: np.ndarray, run_derivatives: Callable[[NoiseSpec, np.ndarray], np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """``warped_points`` and the warp's Jacobian ``J[n, i, j] = d p'_i / d p_j`` (N, d, d); ``run_derivatives``
    evaluates unwarped noise with its gradient, (N, 1 + d). Independent: ``J = I + A grad w``; progressive:
    ``J_{o+1} = (I + A_o grad n_o(p_o)) J_o`` (the chain rule through the octaves)."""
    moved, jacobian = _warp(spec, points, lambda component, at: _split(run_derivatives(component, at)))
    assert jacobian is not None
    return moved, jacobian


def _split(values_and_gradients: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return values_and_gradients[:, 0], values_and_gradients[:, 1:]


def _warp(
    spec: NoiseSpec,
    points: np.ndarray,
    sample: Callable[[NoiseSpec, np.ndarray], tuple[np.ndarray, np.ndarray | None]],
) -> tuple[np.ndarray, np.ndarray | None]:
    """The warp of ``spec`` applied to ``points``; ``sample(component, at)`` gives a component's values and,
    when the Jacobian is wanted, its gradients (else None)."""
    moved = points.astype(np.float64)  # a copy: the caller's array is never written
    count, dim = points.shape
    components = [component_spec(spec, axis) for axis in range(dim)]
    jacobian = None

    def step(specs: list[NoiseSpec], at: np.ndarray, coefficient: float) -> None:
        nonlocal jacobian
        samples = [sample(component, at) for component in specs]  # every axis reads ``at`` before any moves
        offsets = np.column_stack([values for values, _ in samples]).astype(np.float64)
        gradients = [g for _, g in samples]
        if all(g is not None for g in gradients):
            rows = np.stack(gradients, axis=1).astype(np.float64)  # rows[n, a] = grad of component a
            base = np.broadcast_to(np.eye(dim), (count, dim, dim)) if jacobian is None else jacobian
            jacobian = base + coefficient * np.matmul(rows, base)
        moved[...] += coefficient * offsets  # float64 throughout: same bits on numpy 1 and 2

    if spec.warp == "independent":
        step(components, points, float(spec.warp_amplitude))
        return moved, jacobian
    weights = spec.persistence ** np.arange(spec.warp_octaves, dtype=np.float64)
    weights /= weights.sum()
    frequency = spec.warp_frequency
    for octave in range(spec.warp_octaves):
        octave_specs = [
            replace(c, seed=_wrap_seed(c.seed + octave), frequency=frequency, octaves=1) for c in components
        ]
        step(octave_specs, moved, float(spec.warp_amplitude * weights[octave]))
        frequency *= spec.lacunarity
    return moved, jacobian
