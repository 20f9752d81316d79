"""The kind registry: every noise kind, described once next to its family, collected here.

A row (``schema.Kind``) holds a kind's family and variant, dimensions, options (``schema.Option``),
tiling, one-octave value range, parameter packer and cross-option rules. ``COMMON_OPTIONS`` are the
fields every kind shares. ``NoiseSpec`` validation, ``value_range``, the kernels' arguments, the CLI
options, the add-on's properties and docs/noise-library.md's option tables all come from here. Adding a kind:
a family module with its ``Kind`` row, one line in ``KINDS`` below, and tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from . import cellular, gabor, hill, lattice_noise, simplex, voronoi, white
from .fractal_modes import MODE_CODES, USES_GAIN, USES_OFFSET
from .schema import Kind, Option, Requires

if TYPE_CHECKING:
    from .spec import NoiseSpec

KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (*lattice_noise.KINDS, *simplex.KINDS, voronoi.KIND, cellular.KIND, hill.KIND, white.KIND, gabor.KIND)
}

MAX_OCTAVES = 16
MAX_PERSISTENCE = 100.0
"""Keeps the loudest octave's weight (persistence^15) within float32."""
WARP_MODES = ("none", "independent", "progressive")
WARP_KINDS = tuple(name for name in ("value", "perlin", "simplex_value", "simplex") if name in KINDS)
"""Warp bases: the kinds with a signed, zero-centred range (``warp.py``)."""
MAX_WARP_AMPLITUDE = 1000.0
_WARPED = Requires("warp", WARP_MODES[1:], "only used with warp 'independent' or 'progressive'")
SEED_MIN = -(2**31)
SEED_MAX = 2**31 - 1

MAX_MODE_PARAMETER = 1000.0
"""Largest magnitude of a fractal mode's ``offset`` and ``gain``."""
_FREQUENCY_SLIDER = (1e-6, 0.1, 64.0)
"""``ui_minimum``, ``soft_minimum`` and ``soft_maximum`` of a lattice frequency (the noise's, the warp's)."""


def _whole_when_tiling(
    name: str, default: float, doc: str, ui_minimum: float, soft_minimum: float, soft_maximum: float, **more
) -> Option:
    """A float option > 0 that tiling needs whole (``NoiseSpec``'s tiling checks): a frequency or a factor of one."""
    return Option(name, float, default, f"{doc} (a whole number when tiling)", minimum=0.0, above=True,
                  ui_minimum=ui_minimum, soft_minimum=soft_minimum, soft_maximum=soft_maximum, **more)  # fmt: skip


def _mode_option(name: str, default: float, doc: str, modes: tuple[str, ...], **limits) -> Option:
    """A parameter of the Musgrave fractal ``modes`` (``fractal_modes``): at most ``MAX_MODE_PARAMETER``, the add-on's
    ``fractal_<name>``, used only with those modes."""
    used = f"only used with fractal {', '.join(map(repr, modes))}"
    return Option(name, float, default, doc, maximum=MAX_MODE_PARAMETER, addon_name=f"fractal_{name}",
                  requires=Requires("fractal", modes, used), **limits)  # fmt: skip


COMMON_OPTIONS: tuple[Option, ...] = (
    Option("kind", str, "perlin", "Which noise", choices=tuple(KINDS)),
    Option(
        "seed",
        int,
        0,
        "Hash seed; octave o uses seed + o",
        minimum=SEED_MIN,
        maximum=SEED_MAX,
        allowed=f"a 32-bit signed integer ({SEED_MIN}..{SEED_MAX})",
    ),
    _whole_when_tiling("frequency", 4.0, "Lattice cells per unit of noise space", *_FREQUENCY_SLIDER),
    Option("octaves", int, 1, "Fractal octaves summed", minimum=1, maximum=MAX_OCTAVES),
    _whole_when_tiling("lacunarity", 2.0, "Frequency factor per octave", 1e-3, 1.0, 4.0),
    Option(
        "persistence",
        float,
        0.5,
        "Amplitude factor per octave",
        minimum=0.0,
        maximum=MAX_PERSISTENCE,
        soft_maximum=1.0,
    ),
    Option(
        "turbulence",
        bool,
        False,
        "Sum the absolute value of each octave (creased, range 0..1)",
        requires=Requires("fractal", ("fbm",), "only used with fractal='fbm'"),
    ),
    Option("tiling", bool, False, "Repeat with period 1 along every axis (seamless 0..1 images)"),
    Option(
        "fractal",
        str,
        "fbm",
        "How octaves combine: fBm (averaged) or a Musgrave mode as in Blender's Noise Texture",
        choices=tuple(MODE_CODES),
    ),
    _mode_option(
        "offset",
        0.0,
        "Added to each octave (hetero terrain, hybrid) or the ridge height (ridged)",
        USES_OFFSET,
        minimum=-MAX_MODE_PARAMETER,
        soft_minimum=-2.0,
        soft_maximum=2.0,
    ),
    _mode_option(
        "gain", 1.0, "How much each octave weights the next (hybrid, ridged)", USES_GAIN, minimum=0.0, soft_maximum=10.0
    ),
    Option(
        "warp",
        str,
        "none",
        "Domain warp: sample at p + w(p), w fractal noise read at p (independent) or octave by octave (progressive)",
        choices=WARP_MODES,
    ),
    Option(
        "warp_kind",
        str,
        "perlin",
        "Noise kind of the warp vector (value or Perlin when tiling)",
        choices=WARP_KINDS,
        requires=_WARPED,
    ),
    Option(
        "warp_amplitude",
        float,
        0.1,
        "Largest distance the warp moves a point along each axis, in noise-space units (0: no warp)",
        minimum=0.0,
        maximum=MAX_WARP_AMPLITUDE,
        soft_maximum=1.0,
        requires=_WARPED,
    ),
    _whole_when_tiling(
        "warp_frequency", 2.0, "Lattice cells per unit of the warp noise", *_FREQUENCY_SLIDER, requires=_WARPED
    ),
    Option(
        "warp_octaves",
        int,
        1,
        "Octaves of the warp noise (lacunarity and persistence as the noise's)",
        minimum=1,
        maximum=MAX_OCTAVES,
        requires=_WARPED,
    ),
)
COMMON_NAMES = tuple(option.name for option in COMMON_OPTIONS)


def kind_info(kind: object) -> Kind:
    """The registry row of ``kind``; ``ValueError`` naming the allowed kinds otherwise."""
    try:
        return KINDS[kind]  # type: ignore[index]
    except (KeyError, TypeError):
        allowed = ", ".join(repr(k) for k in KINDS)
        raise ValueError(f"kind: unknown kind {kind!r}; allowed: {allowed}") from None


def option_kinds(name: str) -> tuple[str, ...]:
    """The kinds that have the option ``name`` (every kind for a common option)."""
    if name in COMMON_NAMES:
        return tuple(KINDS)
    return tuple(kind.name for kind in KINDS.values() if kind.option(name) is not None)


def options_by_name() -> dict[str, Option]:
    """Every option once, by name, in registry order: the common ones, then each kind's (an option several
    kinds share, such as ``distance``, as the first of them declares it)."""
    options = {option.name: option for option in COMMON_OPTIONS}
    for kind in KINDS.values():
        for option in kind.options:
            options.setdefault(option.name, option)
    return options


def kind_option_names() -> tuple[str, ...]:
    """Every kind-specific option name, once each, in registry order."""
    return tuple(name for name in options_by_name() if name not in COMMON_NAMES)


NO_PARAMS = np.zeros(0, dtype=np.float64)


def kernel_arguments(spec: NoiseSpec, dim: int) -> tuple[int, int, np.ndarray]:
    """``(family, variant, params)``: what the kernel needs to know about ``spec``'s kind in ``dim`` dimensions."""
    kind = KINDS[spec.kind]
    params = NO_PARAMS if kind.pack is None else np.ascontiguousarray(kind.pack(spec, dim), dtype=np.float64)
    return kind.family, kind.variant_of(spec), params
