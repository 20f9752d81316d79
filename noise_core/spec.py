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
    try:
        number = float(value)
    except OverflowError:  # an int or Fraction beyond float range, e.g. 10**400
        number = math.inf
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
    if not isinstance(value, str):
        raise TypeError(
            f"{name}: expected one of {', '.join(map(repr, allowed))} (a string), got {type(value).__name__} {value!r}"
        )
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
HILL_SIZE_MIN = 1e-100
HILL_SIZE_MAX = 1e100
"""Explicit sizes stay where their squares, sums and ``2 pi max(sizes)`` are finite, normal float64 numbers."""
WEIBULL_ALPHA_MIN = 1e-30
WEIBULL_ALPHA_MAX = 1e30
WEIBULL_MAX_VALUE = 1e38
"""Largest allowed Weibull value ``alpha * (20 ln 2) ** (1 / beta)``: below float32's 3.4e38, so all are finite."""


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
            if field.name not in options and not _is_default(getattr(self, field.name), field.default):
                users = ", ".join(repr(k.name) for k in KINDS.values() if field.name in k.options)
                where = f"it applies to kind {users}" if users else "no kind uses it"
                raise ValueError(
                    f"{field.name}: not an option of kind {self.kind!r} ({where}); leave it at its default"
                )

    def _validate_options(self) -> None:
        if self.kind == "voronoi":
            self._set_choice("distance", "worley", VORONOI_DISTANCES)
            self._set_choice("function", "f1", VORONOI_FUNCTIONS)
            jitter = _number("jitter", self.jitter)
            if not 0.0 <= jitter <= 1.0:
                raise ValueError(f"jitter: must be between 0 and 1, got {self.jitter!r}")
            object.__setattr__(self, "jitter", jitter)
        elif self.kind == "cellular":
            self._set_choice("distance", "euclidean", CELLULAR_DISTANCES)
            self._set_choice("function", "f1", CELLULAR_FUNCTIONS)
            density = _number("density", self.density)
            if not 0.0 < density <= 16.0:
                raise ValueError(f"density: mean feature points per cell must be in (0, 16], got {self.density!r}")
            object.__setattr__(self, "density", density)
        elif self.kind == "hill":
            self._validate_hill()

    def _set_choice(self, name: str, default: str, allowed: tuple[str, ...]) -> None:
        """A string option: ``default`` when unset (None); any other value, even a falsy one, must be allowed."""
        value = getattr(self, name)
        object.__setattr__(self, name, _choice(name, default if value is None else value, allowed))

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
        if distribution == "weibull":
            _check_weibull(alpha, beta)
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
    if not HILL_SIZE_MIN <= min(sizes) <= max(sizes) <= HILL_SIZE_MAX:
        raise ValueError(f"sizes: every size must be between {HILL_SIZE_MIN:g} and {HILL_SIZE_MAX:g}, got {sizes!r}")
    if max(sizes) > HILL_MAX_SIZE_RATIO * min(sizes):
        raise ValueError(f"sizes: the largest size may be at most {HILL_MAX_SIZE_RATIO:g} times the smallest")
    return sizes


def _is_default(value: object, default: object) -> bool:
    """Whether ``value`` is an option's default: None for None, an equal string, or an equal number (never a bool)."""
    if default is None:
        return value is None
    if isinstance(default, str):
        return isinstance(value, str) and value == default
    return isinstance(value, numbers.Real) and not isinstance(value, bool) and value == default


def _check_weibull(alpha: float, beta: float) -> None:
    """Weibull limits: every value ``alpha * w ** (1 / beta)``, ``w <= 20 ln 2``, is a finite float32 (``hill.py``)."""
    if not WEIBULL_ALPHA_MIN <= alpha <= WEIBULL_ALPHA_MAX:
        raise ValueError(f"alpha: must be between {WEIBULL_ALPHA_MIN:g} and {WEIBULL_ALPHA_MAX:g}, got {alpha!r}")
    # log10 of the largest value alpha * (20 ln 2) ** (1 / beta), computed without overflow
    log10_upper = math.log10(alpha) + math.log10(20.0 * math.log(2.0)) / beta
    if log10_upper > math.log10(WEIBULL_MAX_VALUE):
        smallest = math.log10(20.0 * math.log(2.0)) / (math.log10(WEIBULL_MAX_VALUE) - math.log10(alpha))
        digits = 3 - math.floor(math.log10(smallest))  # four significant digits, rounded up
        largest = f"1e{log10_upper:.0f}" if math.isfinite(log10_upper) else "beyond float64"
        raise ValueError(
            f"beta: the largest Weibull value alpha * (20 ln 2)**(1/beta) would be {largest}, above "
            f"{WEIBULL_MAX_VALUE:g} (float32); with alpha={alpha:g} beta must be at least "
            f"{math.ceil(smallest * 10**digits) / 10**digits:g}, got {beta!r}"
        )
