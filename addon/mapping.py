"""From the add-on's noise settings to ``noise_core``: the ``NoiseSpec``, the noise-space transform, evaluation.

Noise space: a point ``p`` (vertex position, or a pixel centre on the chosen plane) is moved into noise
space like Blender's Mapping node of type Point, ``q = offset + R(rotation) @ (scale * p)`` with ``R`` the
XYZ Euler rotation; 3D noise reads ``q`` whole, 4D noise ``q`` and the fourth coordinate ``w`` (as W of
Blender's 4D Noise Texture), 2D noise the two axes of ``plane``, 1D noise ``axis``.

Noise values are mapped to 0..1 by the spec's documented range: ``(noise - low) / (high - low)`` with
``(low, high) = noise_core.value_range(spec)`` (-1..1 for value/Perlin/simplex, 0..1 for Voronoi, 0..1 for
any turbulent sum). Displacement is then ``(noise01 - midlevel) * strength``, as Blender's Displace modifier.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import compile_status
from .errors import UserError
from .noise_core import NoiseSpec, evaluate
from .noise_core.api import evaluate_lattice, lattice_axes
from .noise_core.domain import Domain
from .noise_core.registry import COMMON_OPTIONS, kind_info, options_by_name
from .noise_core.schema import Option, Requires
from .properties import NoiseSettings, choices, property_name

CHUNK = 1 << 18
"""Points per ``evaluate`` call: the progress bar advances once per chunk."""


def check_finite_values(name: str, values: np.ndarray) -> None:
    """``UserError`` starting with ``name`` when ``values`` holds NaN or an infinity (nothing is written then)."""
    bad = int(np.count_nonzero(~np.isfinite(values)))
    if bad:
        raise non_finite_error(name, bad, values.size)


def non_finite_error(name: str, bad: int, size: int) -> UserError:
    """The error of ``check_finite_values`` when ``bad`` of ``size`` values are NaN or infinite."""
    return UserError(
        f"{name}: {bad} of {size} values would be NaN or infinite with these settings; nothing was changed"
    )


def spec_fields() -> dict[str, str]:
    """``{property name: NoiseSpec field}`` for every registry option."""
    return {property_name(option): name for name, option in options_by_name().items()}


def _holds(settings: NoiseSettings, requires: Requires) -> bool:
    """Whether an option's condition holds for ``settings`` (a blank ``sizes`` text counts as unset)."""
    current = getattr(settings, requires.option)
    if requires.value is None and isinstance(current, str):
        return not current.strip()
    return requires.holds(settings)


def applicable_common(settings: NoiseSettings) -> tuple[Option, ...]:
    """The common options that take effect with ``settings`` (turbulence with fBm, offset/gain with the
    modes that use them)."""
    return tuple(o for o in COMMON_OPTIONS if o.requires is None or _holds(settings, o.requires))


def applicable_options(settings: NoiseSettings) -> tuple[str, ...]:
    """The kind-specific fields that take effect with ``settings``; the UI shows only these.

    An option whose registry ``requires`` condition does not hold is left out (hill noise: smoothness and
    sines with explicit sizes, alpha/beta unless the distribution is Weibull; ``NoiseSpec`` rejects them).
    """
    options = kind_info(settings.kind).options
    return tuple(o.name for o in options if o.requires is None or _holds(settings, o.requires))


def parse_sizes(text: str, name: str = "sizes") -> tuple[float, ...] | None:
    """A tuple option (hill ``sizes``, Gabor ``orientation_3d``) from comma- or space-separated numbers; blank
    means none (the option's default)."""
    words = text.replace(",", " ").split()
    if not words:
        return None
    try:
        return tuple(float(word) for word in words)
    except ValueError:
        raise UserError(f"{name}: expected numbers separated by commas, got {text!r}") from None


def _option_value(settings: NoiseSettings, name: str) -> object:
    value = getattr(settings, name)
    if options_by_name()[name].type is tuple:
        return parse_sizes(value, name)
    if isinstance(value, str) and value not in choices(settings.kind, name):
        return None
    return value


def to_spec(settings: NoiseSettings) -> NoiseSpec:
    """The ``NoiseSpec`` of ``settings``, passing only the options that apply to its kind.

    Invalid values raise ``UserError`` with ``NoiseSpec``'s message, which starts with the field name;
    tiling on for a kind that cannot tile is one (the panels clear and hide tiling for such kinds).
    """
    try:
        values = {option.name: getattr(settings, property_name(option)) for option in applicable_common(settings)}
        values["tiling"] = bool(settings.tiling)
        values.update({name: _option_value(settings, name) for name in applicable_options(settings)})
        return NoiseSpec(**values)
    except (ValueError, TypeError) as error:
        raise UserError(str(error)) from None


def from_spec(settings: NoiseSettings, spec: NoiseSpec) -> None:
    """Set ``settings`` to ``spec`` (the inverse of ``to_spec``): the kind first, then every option that applies
    to it; the others keep their values, which ``to_spec`` does not read."""
    settings.kind = spec.kind
    names = [option.name for option in COMMON_OPTIONS[1:]] + list(kind_info(spec.kind).option_names())
    options = options_by_name()
    for name in names:
        value = getattr(spec, name)
        if options[name].type is tuple:
            value = "" if value is None else ", ".join(map(repr, value))  # repr: exact round trip
        if value is not None:
            setattr(settings, property_name(options[name]), value)


def from_domain(settings: NoiseSettings, domain: Domain) -> None:
    """Set the noise-space fields of ``settings`` to ``domain`` (the inverse of ``to_domain``)."""
    settings.offset = domain.offset
    settings.rotation = domain.rotation
    settings.scale = domain.scale
    settings.dimensions = str(domain.dimensions)
    settings.plane = domain.plane
    settings.axis = domain.axis
    settings.w = domain.w


def to_domain(settings: NoiseSettings, dimensions: int | None = None) -> Domain:
    """The ``Domain`` of ``settings`` (reading ``dimensions`` instead of the settings' when given);
    ``UserError`` if the kind has no noise of that dimension."""
    field = "dimensions" if dimensions is None else "noise_dimensions"
    dimensions = int(settings.dimensions) if dimensions is None else dimensions
    dims = kind_info(settings.kind).dims
    if dimensions not in dims:
        allowed = ", ".join(f"{d}D" for d in dims)
        raise UserError(f"{field}: kind {settings.kind!r} is defined in {allowed}, not {dimensions}D")
    return Domain(
        offset=tuple(settings.offset),
        rotation=tuple(settings.rotation),
        scale=tuple(settings.scale),
        dimensions=dimensions,
        plane=settings.plane,
        axis=settings.axis,
        w=settings.w,
    )


def evaluate_mapped(
    spec: NoiseSpec, domain: Domain, positions: np.ndarray, advance: Callable[[int], None] | None = None
) -> np.ndarray:
    """``evaluate_chunked(spec, domain.noise_points(positions), advance)`` with the noise-space transform done in
    the kernel (``Domain.kernel_transform``): the same bits, without the (N, dimensions) noise points; ``positions``
    (N, 3), float32 mesh positions read as they are."""
    transform = domain.kernel_transform()
    return evaluate_chunked(spec, np.ascontiguousarray(positions), advance, transform)


def evaluate_plane(
    spec: NoiseSpec, xs: np.ndarray, ys: np.ndarray, advance: Callable[[int], None] | None = None
) -> np.ndarray:
    """(len(ys), len(xs)) float32 2D noise at the lattice ``(xs[c], ys[r])`` (``noise_core.api.evaluate_lattice``:
    the grid kernels, without the (N, 2) points), checked as ``evaluate_chunked`` checks its values; ``advance(n)``
    follows each block of rows (the same bits; a cancel raised by it stops there)."""
    compile_status.before_plan(spec, 2, lambda: compile_status.lattice_plan(spec))
    done = [0]

    def progress(rows: int, _total: int) -> None:
        assert advance is not None  # passed only then
        advance((rows - done[0]) * xs.shape[0])
        done[0] = rows

    try:
        out = evaluate_lattice(spec, xs, ys, None if advance is None else progress)
    except ValueError as error:
        raise UserError(f"noise space {error}") from None
    check_finite_values("noise", out)
    return out


def evaluate_chunked(
    spec: NoiseSpec,
    points: np.ndarray,
    advance: Callable[[int], None] | None = None,
    transform: np.ndarray | None = None,
) -> np.ndarray:
    """``noise_core.evaluate`` in chunks of ``CHUNK`` points, calling ``advance(n)`` after each one (a lattice of
    2D points in whole rows, so ``evaluate`` gives each chunk to its grid kernel); ``transform`` is passed on.

    Coordinates ``evaluate`` rejects (beyond the 32-bit lattice) and NaN or infinite noise values
    raise ``UserError``: no operator writes a non-finite value. A first use that compiles is announced
    first (``compile_status.before_evaluate``).
    """
    out = np.empty(points.shape[0], dtype=np.float32)
    # a lattice (a bake's plane, a grid mesh in 2D) is cut into whole rows, so each chunk stays one
    axes = lattice_axes(points) if transform is None else None
    compile_status.before_evaluate(spec, points, lattice=axes is not None, transform=transform)
    step = CHUNK if axes is None else max(1, CHUNK // axes[0].shape[0]) * axes[0].shape[0]
    for start in range(0, points.shape[0], step):
        chunk = points[start : start + step]
        try:
            out[start : start + chunk.shape[0]] = evaluate(spec, chunk, transform=transform)
        except ValueError as error:
            raise UserError(f"noise space {error}") from None
        check_finite_values("noise", out[start : start + chunk.shape[0]])
        if advance is not None:
            advance(chunk.shape[0])
    return out
