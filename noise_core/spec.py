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
from collections.abc import Iterable
from dataclasses import dataclass, fields

from .kinds import KINDS, kind_info

MAX_OCTAVES = 16
MAX_PERSISTENCE = 100.0
"""Keeps the loudest octave's weight (persistence^15) within float32."""
LATTICE_BITS = 31
"""Lattice coordinates (coordinate x octave frequency) must stay below 2^31."""
SEED_MIN = -(2**31)
SEED_MAX = 2**31 - 1


def _number(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a number, got {type(value).__name__} {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{name}: must be a finite number, got {value!r}")
    return number


def _integer(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__} {value!r}")
    return int(value)


def _boolean(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name}: expected True or False, got {value!r}")
    return value


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ValueError(f"{name}: {value!r} is not allowed; choose one of {', '.join(map(repr, allowed))}")
    return str(value)


VORONOI_DISTANCES = ("worley", "chebyshev", "squared", "manhattan")
VORONOI_FUNCTIONS = ("f1", "f2", "f2_minus_f1", "cell")
CELLULAR_DISTANCES = ("euclidean", "squared", "manhattan", "chebyshev")
CELLULAR_FUNCTIONS = ("f1", "f2", "f3", "f2_minus_f1")
HILL_DISTRIBUTIONS = ("uniform", "raw", "weibull")
HILL_MAX_SINES = 256
HILL_SMOOTHNESS_MIN = 1e-3
HILL_SMOOTHNESS_MAX = 1e3
HILL_MAX_SIZE_RATIO = 1e12


@dataclass(frozen=True)
class NoiseSpec:
    """What noise to compute; see the README for each field's meaning and range.

    Common fields: ``kind``, ``seed``, ``frequency`` (lattice cells per unit),
    ``octaves`` (1..16), ``lacunarity`` (frequency factor per octave),
    ``persistence`` (amplitude factor per octave), ``turbulence`` (sum absolute
    octave values), ``tiling`` (period 1 along every axis).

    Voronoi (``kind="voronoi"``): ``distance``, ``function``, ``jitter``.
    Cellular (``kind="cellular"``): ``distance``, ``function``, ``density``.
    Hill (``kind="hill"``): ``smoothness``, ``sines``, ``sizes``, ``distribution``,
    ``alpha``, ``beta``.
    """

    kind: str = "perlin"
    seed: int = 0
    frequency: float = 4.0
    octaves: int = 1
    lacunarity: float = 2.0
    persistence: float = 0.5
    turbulence: bool = False
    tiling: bool = False
    distance: str | None = None
    function: str | None = None
    jitter: float = 1.0
    density: float = 4.0
    smoothness: float = 2.0
    sines: int = 12
    sizes: tuple[float, ...] | None = None
    distribution: str = "uniform"
    alpha: float = 1.0
    beta: float = 1.0

    def __post_init__(self) -> None:
        info = kind_info(self.kind)
        seed = _integer("seed", self.seed)
        if not SEED_MIN <= seed <= SEED_MAX:
            raise ValueError(f"seed: must be a 32-bit signed integer ({SEED_MIN}..{SEED_MAX}), got {seed}")
        frequency = _number("frequency", self.frequency)
        if frequency <= 0.0:
            raise ValueError(f"frequency: must be > 0, got {self.frequency!r}")
        octaves = _integer("octaves", self.octaves)
        if not 1 <= octaves <= MAX_OCTAVES:
            raise ValueError(f"octaves: must be between 1 and {MAX_OCTAVES}, got {octaves}")
        lacunarity = _number("lacunarity", self.lacunarity)
        if lacunarity <= 0.0:
            raise ValueError(f"lacunarity: must be > 0, got {self.lacunarity!r}")
        persistence = _number("persistence", self.persistence)
        if not 0.0 <= persistence <= MAX_PERSISTENCE:
            raise ValueError(f"persistence: must be between 0 and {MAX_PERSISTENCE:g}, got {self.persistence!r}")
        log2_highest = math.log2(frequency) + max(0.0, (octaves - 1) * math.log2(lacunarity))
        if log2_highest >= LATTICE_BITS:
            raise ValueError(
                f"frequency: the highest octave frequency, frequency x lacunarity^(octaves-1) = 2^{log2_highest:.1f}, "
                f"must stay below 2^{LATTICE_BITS} (the 32-bit lattice); lower frequency, lacunarity or octaves"
            )
        _boolean("turbulence", self.turbulence)
        tiling = _boolean("tiling", self.tiling)
        if tiling:
            if not info.tiling:
                tileable = ", ".join(repr(k.name) for k in KINDS.values() if k.tiling)
                raise ValueError(f"tiling: kind {self.kind!r} cannot tile; tileable kinds: {tileable}")
            if not frequency.is_integer():
                raise ValueError(f"frequency: tiling needs a whole-number frequency, got {self.frequency!r}")
            if not lacunarity.is_integer():
                raise ValueError(f"lacunarity: tiling needs a whole-number lacunarity, got {self.lacunarity!r}")
        object.__setattr__(self, "seed", seed)
        object.__setattr__(self, "frequency", frequency)
        object.__setattr__(self, "octaves", octaves)
        object.__setattr__(self, "lacunarity", lacunarity)
        object.__setattr__(self, "persistence", persistence)
        self._reject_foreign_options(info.options)
        self._validate_options()

    @property
    def highest_frequency(self) -> float:
        """The largest octave frequency, ``max(frequency, frequency * lacunarity**(octaves - 1))``."""
        return self.frequency * max(1.0, self.lacunarity) ** (self.octaves - 1)

    def _reject_foreign_options(self, options: tuple[str, ...]) -> None:
        for field in fields(self)[8:]:
            value = getattr(self, field.name)
            at_default = value is field.default or (not hasattr(value, "__array__") and value == field.default)
            if field.name not in options and not at_default:
                users = ", ".join(repr(k.name) for k in KINDS.values() if field.name in k.options)
                where = f"it applies to kind {users}" if users else "no kind uses it"
                raise ValueError(
                    f"{field.name}: not an option of kind {self.kind!r} ({where}); leave it at its default"
                )

    def _validate_options(self) -> None:
        if self.kind == "voronoi":
            object.__setattr__(self, "distance", _choice("distance", self.distance or "worley", VORONOI_DISTANCES))
            object.__setattr__(self, "function", _choice("function", self.function or "f1", VORONOI_FUNCTIONS))
            jitter = _number("jitter", self.jitter)
            if not 0.0 <= jitter <= 1.0:
                raise ValueError(f"jitter: must be between 0 and 1, got {self.jitter!r}")
            object.__setattr__(self, "jitter", jitter)
        elif self.kind == "cellular":
            object.__setattr__(self, "distance", _choice("distance", self.distance or "euclidean", CELLULAR_DISTANCES))
            object.__setattr__(self, "function", _choice("function", self.function or "f1", CELLULAR_FUNCTIONS))
            density = _number("density", self.density)
            if not 0.0 < density <= 16.0:
                raise ValueError(f"density: mean feature points per cell must be in (0, 16], got {self.density!r}")
            object.__setattr__(self, "density", density)
        elif self.kind == "hill":
            self._validate_hill()

    def _validate_hill(self) -> None:
        if self.octaves != 1:
            raise ValueError(
                f"octaves: hill noise carries its own octaves (its sines), so octaves must be 1, got {self.octaves}; "
                "shape the detail with sines, smoothness or sizes"
            )
        distribution = _choice("distribution", self.distribution, HILL_DISTRIBUTIONS)
        smoothness = _number("smoothness", self.smoothness)
        if not HILL_SMOOTHNESS_MIN <= smoothness <= HILL_SMOOTHNESS_MAX:
            raise ValueError(
                f"smoothness: must be between {HILL_SMOOTHNESS_MIN:g} and {HILL_SMOOTHNESS_MAX:g}, "
                f"got {self.smoothness!r}"
            )
        sines = _integer("sines", self.sines)
        if not 1 <= sines <= HILL_MAX_SINES:
            raise ValueError(f"sines: must be between 1 and {HILL_MAX_SINES}, got {sines}")
        defaults = {field.name: field.default for field in fields(self)}
        if self.sizes is not None:
            for name in ("smoothness", "sines"):
                if getattr(self, name) != defaults[name]:
                    raise ValueError(f"{name}: unused when sizes are given explicitly; leave it at its default")
            object.__setattr__(self, "sizes", _sizes(self.sizes))
        alpha = _number("alpha", self.alpha)
        beta = _number("beta", self.beta)
        for name, number in (("alpha", alpha), ("beta", beta)):
            if number <= 0.0:
                raise ValueError(f"{name}: must be > 0, got {getattr(self, name)!r}")
            if distribution != "weibull" and number != defaults[name]:
                raise ValueError(f"{name}: only used with distribution='weibull'; leave it at its default")
        object.__setattr__(self, "smoothness", smoothness)
        object.__setattr__(self, "sines", sines)
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "beta", beta)


def _sizes(value: object) -> tuple[float, ...]:
    """Hill ``sizes`` as a tuple of positive floats (1..HILL_MAX_SINES, spread at most HILL_MAX_SIZE_RATIO)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"sizes: expected a sequence of positive numbers, got {type(value).__name__} {value!r}")
    sizes = tuple(_number(f"sizes[{index}]", size) for index, size in enumerate(value))
    if not 1 <= len(sizes) <= HILL_MAX_SINES:
        raise ValueError(f"sizes: must hold between 1 and {HILL_MAX_SINES} sizes, got {len(sizes)}")
    if min(sizes) <= 0.0:
        raise ValueError(f"sizes: every size must be > 0, got {sizes!r}")
    if max(sizes) > HILL_MAX_SIZE_RATIO * min(sizes):
        raise ValueError(f"sizes: the largest size may be at most {HILL_MAX_SIZE_RATIO:g} times the smallest")
    return sizes
