"""``NoiseSpec``: the immutable, validated description of one noise.

Every field is checked when the record is built; a bad value raises ``ValueError``
(or ``TypeError`` for a wrong type) whose message starts with the field's name and
says what is allowed. Options that belong to other kinds (``distance`` on Perlin
noise, say) must stay at their defaults: setting them is rejected rather than
silently ignored, so a typo never produces unexpected noise.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields

from .fractal_modes import mode_range
from .registry import COMMON_NAMES, COMMON_OPTIONS, KINDS, WARP_KINDS, kind_info, option_kinds

LATTICE_BITS = 31
"""Lattice coordinates (coordinate x octave frequency) must stay below 2^31."""
MAX_MODE_VALUE = 1e38
"""Largest magnitude a multifractal mode may reach (``fractal_modes.mode_range``): within float32."""


@dataclass(frozen=True)
class NoiseSpec:
    """What noise to compute; see docs/noise-library.md for each field's meaning and range.

    The fields are the registry's common options (``registry.COMMON_OPTIONS``: ``kind``, ``seed``,
    ``frequency``, ``octaves``, ``lacunarity``, ``persistence``, ``turbulence``, ``tiling``, ``fractal``,
    ``offset``, ``gain``; see ``fractal_modes``; ``warp``, ``warp_kind``, ``warp_amplitude``, ``warp_frequency``,
    ``warp_octaves``; see ``warp``) and every
    kind's own options (``voronoi``: ``distance``, ``function``, ``jitter``; ``cellular``: ``distance``,
    ``function``, ``density``; ``hill``: ``smoothness``, ``sines``, ``sizes``, ``distribution``, ``alpha``,
    ``beta``; ``value``, ``perlin``, ``simplex``, ``simplex_value``: ``hash``), each checked by its ``schema.Option``.
    An unset choice (None) takes the kind's default.
    """

    kind: str = "perlin"
    seed: int = 0
    frequency: float = 4.0
    octaves: int = 1
    lacunarity: float = 2.0
    persistence: float = 0.5
    turbulence: bool = False
    tiling: bool = False
    fractal: str = "fbm"
    offset: float = 0.0
    gain: float = 1.0
    warp: str = "none"
    warp_kind: str = "perlin"
    warp_amplitude: float = 0.1
    warp_frequency: float = 2.0
    warp_octaves: int = 1
    hash: str = "smallxxhash"
    distance: str | None = None
    exponent: float = 0.5
    function: str | None = None
    jitter: float = 1.0
    smoothing: float = 1.0
    density: float = 4.0
    smoothness: float = 2.0
    sines: int = 12
    sizes: tuple[float, ...] | None = None
    distribution: str = "uniform"
    alpha: float = 1.0
    beta: float = 1.0
    gabor_frequency: float = 2.0
    anisotropy: float = 1.0
    orientation: float = 0.7853981852531433
    orientation_3d: tuple[float, ...] | None = None
    output: str = "value"

    def __post_init__(self) -> None:
        kind = kind_info(self.kind)
        for option in COMMON_OPTIONS[1:]:
            object.__setattr__(self, option.name, option.check(getattr(self, option.name)))
        self._check_lattice()
        if self.tiling:
            self._check_tiling(kind.tiling)
        if self.warp != "none":
            self._check_warp(kind.dims)
        defaults = {field.name: field.default for field in fields(self)}
        for name, default in defaults.items():
            if name in COMMON_NAMES:
                continue
            value = getattr(self, name)
            option = kind.option(name)
            if option is None:
                if not _is_default(value, default):
                    users = ", ".join(map(repr, option_kinds(name)))
                    where = f"it applies to kind {users}" if users else "no kind uses it"
                    raise ValueError(f"{name}: not an option of kind {self.kind!r} ({where}); leave it at its default")
                continue
            # an unset field (None by default: distance, function) takes the kind's default; any other value,
            # even a falsy one, is checked
            unset = value is None and default is None
            object.__setattr__(self, name, option.check(option.default if unset else value))
        for option in (*COMMON_OPTIONS, *kind.options):
            requires = option.requires
            unused = requires is not None and not requires.holds(self)
            if unused and not _is_default(getattr(self, option.name), defaults[option.name]):
                raise ValueError(f"{option.name}: {requires.reason}; leave it at its default")
        if kind.check is not None:
            kind.check(self)
        if self.fractal != "fbm":
            self._check_mode_range(kind.value_range(self))

    def _check_lattice(self) -> None:
        log2_highest = math.log2(self.frequency) + max(0.0, (self.octaves - 1) * math.log2(self.lacunarity))
        if log2_highest >= LATTICE_BITS:
            raise ValueError(
                f"frequency: the highest octave frequency, frequency x lacunarity^(octaves-1) = 2^{log2_highest:.1f}, "
                f"must stay below 2^{LATTICE_BITS} (the 32-bit lattice); lower frequency, lacunarity or octaves"
            )

    def _check_tiling(self, tileable: bool) -> None:
        if not tileable:
            names = ", ".join(repr(k.name) for k in KINDS.values() if k.tiling)
            raise ValueError(f"tiling: kind {self.kind!r} cannot tile; tileable kinds: {names}")
        for name in ("frequency", "lacunarity"):
            if not getattr(self, name).is_integer():
                raise ValueError(f"{name}: tiling needs a whole-number {name}, got {getattr(self, name)!r}")

    def _check_warp(self, dims: tuple[int, ...]) -> None:
        log2_highest = math.log2(self.warp_frequency) + max(0.0, (self.warp_octaves - 1) * math.log2(self.lacunarity))
        if log2_highest >= LATTICE_BITS:
            raise ValueError(
                f"warp_frequency: the warp's highest octave frequency, warp_frequency x lacunarity^(warp_octaves-1) "
                f"= 2^{log2_highest:.1f}, must stay below 2^{LATTICE_BITS}; lower warp_frequency or warp_octaves"
            )
        if self.warp == "progressive":  # the octave frequencies as warp.py computes them
            frequency = self.warp_frequency
            for octave in range(1, self.warp_octaves):
                frequency *= self.lacunarity
                if not frequency > 0.0:
                    raise ValueError(
                        f"lacunarity: {self.lacunarity!r} makes warp octave {octave}'s frequency, warp_frequency x "
                        f"lacunarity^{octave}, underflow to 0; raise lacunarity or lower warp_octaves"
                    )
        reach = (1.0 + self.warp_amplitude) * self.highest_frequency
        if reach >= 2.0**LATTICE_BITS:
            raise ValueError(
                f"warp_amplitude: the warp moves the unit square's points up to {self.warp_amplitude:g} away, and at "
                f"the highest octave frequency {self.highest_frequency:g} they reach lattice coordinate {reach:.3g}, "
                f"beyond 2^{LATTICE_BITS}; lower warp_amplitude, frequency, lacunarity or octaves"
            )
        if self.tiling:
            if not KINDS[self.warp_kind].tiling:
                names = ", ".join(repr(k) for k in WARP_KINDS if KINDS[k].tiling)
                raise ValueError(f"warp_kind: {self.warp_kind!r} cannot tile; with tiling use {names}")
            if not self.warp_frequency.is_integer():
                raise ValueError(
                    f"warp_frequency: tiling needs a whole-number warp_frequency, got {self.warp_frequency!r}"
                )
        missing = [d for d in dims if d not in KINDS[self.warp_kind].dims]
        if missing:
            raise ValueError(
                f"warp_kind: {self.warp_kind!r} is not defined in {missing[0]} dimensions as {self.kind!r} is"
            )

    def _check_mode_range(self, octave_range: tuple[float, float]) -> None:
        low, high = mode_range(self.fractal, *octave_range, self.octaves, self.persistence, self.offset, self.gain)
        if max(abs(low), abs(high)) > MAX_MODE_VALUE:
            raise ValueError(
                f"persistence: with fractal={self.fractal!r} the values could reach {max(abs(low), abs(high)):.3g}, "
                f"beyond float32 ({MAX_MODE_VALUE:g}); lower persistence, octaves or offset"
            )

    @property
    def highest_frequency(self) -> float:
        """The largest octave frequency, ``max(frequency, frequency * lacunarity**(octaves - 1))``."""
        return self.frequency * max(1.0, self.lacunarity) ** (self.octaves - 1)


def _is_default(value: object, default: object) -> bool:
    """Whether ``value`` is an option's default: None for None, an equal string, or an equal number (never a bool)."""
    if default is None or isinstance(default, bool):
        return value is default
    if isinstance(default, str):
        return isinstance(value, str) and value == default
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and value == default
