"""First use of a noise kind: say that it compiles, and compile the kernels ahead of time.

Each noise kind, dimension, distance metric and tiling runs its own kernel, compiled on first use (a few
seconds; 15-20 s for cellular noise) and loaded from the on-disk cache in later sessions. Blender is busy
meanwhile, so:

- operators show "Compiling cellular noise (3D) - first use only" in the status bar before an evaluation
  that has to compile (``announcing`` installs the message for the main thread; ``mapping.evaluate_chunked``
  calls ``before_evaluate``, normal maps and UV bakes ``before_plan`` with the kernels they run, as
  ``noise_core.api.plan`` lists them); in background mode the message is printed;
- the preview says so while its worker thread compiles (``preview.status``);
- ``preferences.Precompile`` compiles ``KERNELS`` in the background (a ``jobs.Worker``), one kernel at a time,
  and can be cancelled between kernels (the add-on preferences' button).

This module does not use bpy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .noise_core import NoiseSpec, compile_state
from .noise_core.api import plan
from .noise_core.registry import KINDS
from .noise_core.runtime import least_ready
from .noise_core.terrain.erosion import compile_state as erosion_compile_state


@dataclass(frozen=True)
class Kernel:
    """One kernel to compile: the noise ``spec`` evaluated in ``dim`` dimensions on ``dtype`` points."""

    spec: NoiseSpec
    dim: int
    dtype: type = np.float64
    transform_width: int | None = None
    """Points of this many columns mapped into ``dim`` dimensions in the kernel (``evaluate``'s ``transform``)."""

    @property
    def label(self) -> str:
        tiled = ", tiled" if self.spec.tiling else ""
        return f"{kind_label(self.spec.kind)} {self.dim}D{tiled}"


def kind_label(kind: str) -> str:
    return kind.replace("_", " ")


def _kernels() -> tuple[Kernel, ...]:
    """What the add-on runs with each kind's default options: every dimension on float64 points (previews,
    bakes, terrains), every dimension on float32 positions moved into noise space in the kernel (Displace reads
    mesh positions as they are: ``mapping.evaluate_mapped``) and on float64 ones (terrains and bakes off the
    lattice), 3D on float32 (Displace without a transform), and tiled 2D (tileable bakes)."""
    kernels = []
    for name, info in KINDS.items():
        for dim in info.dims:
            kernels.append(Kernel(NoiseSpec(kind=name), dim))
            kernels.append(Kernel(NoiseSpec(kind=name), dim, np.float32, 3))
            kernels.append(Kernel(NoiseSpec(kind=name), dim, np.float64, 3))
            if dim == 3:
                kernels.append(Kernel(NoiseSpec(kind=name), dim, np.float32))
            if dim == 2 and info.tiling:
                kernels.append(Kernel(NoiseSpec(kind=name, tiling=True), dim))
    return tuple(kernels)


KERNELS = _kernels()


def lattice_plan(spec: NoiseSpec) -> list:
    """The kernels ``noise_core.api.evaluate_lattice`` runs (terrains, bakes and the preview on a plane):
    ``plan``'s for a 2D lattice but the checks that tell one, which it does not run (it is given the axes)."""
    checks = {"_row_width", "_is_lattice"}
    steps = plan(spec, 2, lattice=True)
    return [step for step in steps if getattr(getattr(step[0], "py_func", None), "__name__", "") not in checks]


def needs_compile(
    spec: NoiseSpec, dim: int, dtype: type = np.float64, lattice: bool = False, transform_width: int | None = None
) -> bool:
    """Whether evaluating ``spec`` on (N, ``dim``) ``dtype`` points compiles first (neither in memory nor cached);
    ``lattice``: points in an axis-aligned 2D lattice, which ``evaluate`` gives to its grid kernels;
    ``transform_width``: (N, ``transform_width``) points mapped into ``dim`` dimensions by ``evaluate``'s
    ``transform``."""
    if lattice and dim == 2 and transform_width is None:  # the preview's plane: evaluate_lattice
        return least_ready(lattice_plan(spec)) == "uncompiled"
    return compile_state(spec, dim, dtype, grid=lattice, transform_width=transform_width) == "uncompiled"


def notice_text(kind: str, dim: int) -> str:
    """The message shown while the kernel of ``kind`` in ``dim`` dimensions compiles."""
    return f"Compiling {kind_label(kind)} noise ({dim}D) - first use only, this takes a few seconds"


_listeners = threading.local()


@contextmanager
def announcing(show: Callable[[str], None]) -> Iterator[None]:
    """Within the block, evaluations on this thread that have to compile call ``show(notice_text)`` first."""
    previous = getattr(_listeners, "show", None)
    _listeners.show = show
    try:
        yield
    finally:
        _listeners.show = previous


def listener() -> Callable[[str], None] | None:
    """This thread's listener (``announcing``'s ``show``), None outside ``announcing``."""
    return getattr(_listeners, "show", None)


def before_evaluate(
    spec: NoiseSpec, points: np.ndarray, lattice: bool = False, transform: np.ndarray | None = None
) -> None:
    """Called before ``spec`` is evaluated at ``points`` (``lattice``: an axis-aligned 2D lattice, as
    ``noise_core.api.lattice_axes`` tells; ``transform``: ``evaluate``'s): announce a compile to this thread's
    listener."""
    show = getattr(_listeners, "show", None)
    if show is None or points.ndim != 2 or not points.shape[0] or points.dtype not in (np.float32, np.float64):
        return  # nothing to announce, or input evaluate rejects with its own message
    dim = points.shape[1] if transform is None else transform.shape[0]
    width = None if transform is None else points.shape[1]
    if dim in KINDS[spec.kind].dims and needs_compile(spec, dim, points.dtype.type, lattice, width):
        show(notice_text(spec.kind, dim))


EROSION_NOTICE = "Compiling erosion - first use only, this takes a few seconds"


def before_erosion(kinds: tuple[str, ...]) -> None:
    """Called before erosion of ``kinds`` runs (``noise_core.terrain.erosion.compile_state``'s): announce a compile of
    its kernels to this thread's listener."""
    show = getattr(_listeners, "show", None)
    if show is not None and erosion_compile_state(kinds) == "uncompiled":
        show(EROSION_NOTICE)


def before_plan(spec: NoiseSpec, dim: int, steps: Callable[[], Sequence]) -> None:
    """Called before work that runs the kernels ``steps()`` lists (pairs of dispatcher and signature, as
    ``noise_core.api.plan``, ``normal_maps.normals_plan`` and ``uv_bake.bake_plan`` give them) for ``spec`` in
    ``dim`` dimensions: announce a compile to this thread's listener."""
    show = getattr(_listeners, "show", None)
    if show is not None and least_ready(steps()) == "uncompiled":
        show(notice_text(spec.kind, dim))


def ready_count(kernels: Sequence[Kernel] = KERNELS) -> int:
    """How many of ``kernels`` are compiled or in the disk cache."""
    return sum(
        not needs_compile(kernel.spec, kernel.dim, kernel.dtype, transform_width=kernel.transform_width)
        for kernel in kernels
    )
