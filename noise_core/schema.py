"""The records of the kind registry: ``Option`` (one setting's schema) and ``Kind`` (one noise kind).

Each family module describes its kinds with these records next to its kernels; ``registry.py``
collects them. ``NoiseSpec`` validation, ``value_range``, the CLI options, the add-on's properties and
the option tables of docs/noise-library.md all read them (``tests/test_registry.py`` checks the page agrees).
This module imports nothing of the package, so every family module can use it without a cycle.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

FAMILY_LATTICE = 0
FAMILY_SIMPLEX = 1
FAMILY_VORONOI = 2
FAMILY_CELLULAR = 3
FAMILY_HILL = 4
FAMILY_WHITE = 5
FAMILY_GABOR = 6
"""Family codes: which sampling function a kernel compiles (``sampling.py``)."""


def _typed(name: str, value: Any, kind: type, expected: str) -> Any:
    """``value`` if it is a ``kind`` (a bool only where ``kind`` is ``bool``); ``TypeError`` starting with ``name``
    saying what was ``expected`` and what came otherwise."""
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise TypeError(f"{name}: expected {expected}, got {type(value).__name__} {value!r}")
    return value


def number(name: str, value: object) -> float:
    """``value`` as a finite float; ``TypeError``/``ValueError`` starting with ``name`` otherwise."""
    try:
        result = float(_typed(name, value, numbers.Real, "a number"))
    except OverflowError:  # an int or Fraction beyond float range, e.g. 10**400
        result = math.inf
    if not math.isfinite(result):
        raise ValueError(f"{name}: must be a finite number, got {value!r}")
    return result


def integer(name: str, value: object) -> int:
    """``value`` as an int (bools refused); ``TypeError`` starting with ``name`` otherwise."""
    return int(_typed(name, value, numbers.Integral, "an integer"))


def boolean(name: str, value: object) -> bool:
    """``value`` if it is True or False; ``TypeError`` starting with ``name`` otherwise."""
    return _typed(name, value, bool, "True or False")


def choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    """``value`` if it is one of ``allowed``; ``TypeError``/``ValueError`` starting with ``name`` otherwise."""
    listed = ", ".join(map(repr, allowed))
    _typed(name, value, str, f"one of {listed} (a string)")
    if value not in allowed:
        raise ValueError(f"{name}: {value!r} is not allowed; choose one of {listed}")
    return str(value)


def text(name: str, value: object) -> str:
    """``value`` if it is a string; ``TypeError`` starting with ``name`` otherwise."""
    return _typed(name, value, str, "a string")


_COUNTS = {2: "two", 3: "three", 4: "four"}


def vector(name: str, value: object, size: int, components: str = "xyzw") -> tuple[float, ...]:
    """``value`` as a tuple of ``size`` finite floats; ``TypeError``/``ValueError`` starting with ``name``
    otherwise (``components`` names them in the message: ``"expected three numbers (r, g, b)"``)."""
    items = None if isinstance(value, (str, bytes)) else _items(value)
    if items is None or len(items) != size:
        listed = ", ".join(components[:size])
        raise TypeError(f"{name}: expected {_COUNTS.get(size, size)} numbers ({listed}), got {value!r}")
    values = tuple(float(_typed(name, item, numbers.Real, "a number")) for item in items)
    if not all(math.isfinite(item) for item in values):
        raise ValueError(f"{name}: must be a finite number, got {', '.join(f'{item:g}' for item in values)}")
    return values


def _items(value: object) -> tuple | None:
    """``tuple(value)``, or None when ``value`` cannot be iterated (Blender's vectors iterate, some without
    ``__iter__``)."""
    try:
        return tuple(value)  # type: ignore[call-overload]
    except TypeError:
        return None


def numbers_tuple(name: str, value: object) -> tuple[float, ...]:
    """A sequence of finite numbers as a tuple of floats (each checked as ``name[i]``)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name}: expected a sequence of positive numbers, got {type(value).__name__} {value!r}")
    return tuple(number(f"{name}[{index}]", item) for index, item in enumerate(value))


@dataclass(frozen=True)
class Requires:
    """An option applies only while ``option`` has ``value`` (one of them, for a tuple; ``None``: while it
    is unset)."""

    option: str
    value: object
    reason: str
    """Why it does not apply otherwise, e.g. ``"only used with distribution='weibull'"``."""

    def holds(self, values: Any) -> bool:
        """Whether the condition holds for ``values`` (anything with the options as attributes)."""
        current = getattr(values, self.option)
        if isinstance(self.value, tuple):
            return current in self.value
        return current is None if self.value is None else current == self.value


@dataclass(frozen=True)
class Option:
    """One setting: type, default, limits or choices, a one-line description.

    ``minimum``/``maximum`` are inclusive unless ``above`` (then ``value > minimum``); ``allowed``
    overrides the generated wording of the limits. ``soft_minimum``/``soft_maximum`` are the add-on's
    slider range, ``ui_minimum`` its hard minimum where ``minimum`` is exclusive. ``convert`` replaces the
    standard check for composite values (hill ``sizes``).

    The add-on's own options (operator arguments, terrain shape) also use: ``size`` (a vector of that many
    floats, each within the limits), ``title`` (the label when not the name's), ``choice_text`` (each
    choice's label and description, in ``choices`` order), ``subtype`` and ``unit`` (how Blender shows the
    value: ``"FACTOR"``, ``"COLOR"``, ``"FILE_PATH"``...; ``"LENGTH"``). A ``str`` option without
    ``choices`` is free text.
    """

    name: str
    type: type
    default: object
    description: str
    minimum: float | None = None
    maximum: float | None = None
    above: bool = False
    choices: tuple[str, ...] = ()
    allowed: str | None = None
    soft_minimum: float | None = None
    soft_maximum: float | None = None
    ui_minimum: float | None = None
    addon_name: str | None = None
    """The add-on's property name where the option's own would clash with another setting."""
    requires: Requires | None = None
    convert: Callable[[str, object], object] | None = None
    size: int = 0
    title: str | None = None
    choice_text: tuple[tuple[str, str], ...] = ()
    subtype: str | None = None
    unit: str | None = None

    @property
    def label(self) -> str:
        """The name as the add-on shows it: ``"Smoothness"`` (``title`` when given)."""
        return self.title if self.title is not None else self.name.replace("_", " ").title()

    def limits(self) -> str:
        """The allowed values in words: ``"between 1 and 16"``, ``"> 0"``, ``"in (0, 16]"``."""
        if self.allowed is not None:
            return self.allowed
        low, high = self.minimum, self.maximum
        if low is not None and high is not None:
            return f"in ({low:g}, {high:g}]" if self.above else f"between {low:g} and {high:g}"
        if low is not None:
            return f"> {low:g}" if self.above else f">= {low:g}"
        if high is not None:
            return f"<= {high:g}"
        return ""

    def check(self, value: object) -> object:
        """``value`` converted to the option's type and checked against its limits or choices."""
        if self.convert is not None:
            return self.convert(self.name, value)
        if self.type is bool:
            return boolean(self.name, value)
        if self.type is str:
            return choice(self.name, value, self.choices) if self.choices else text(self.name, value)
        if self.size:
            components = "rgba" if self.subtype == "COLOR" else "xyzw"
            checked_vector = vector(self.name, value, self.size, components)
            if not all(self._within(item) for item in checked_vector):
                each = "channels" if self.subtype == "COLOR" else "numbers"
                raise ValueError(f"{self.name}: {each} must be {self.limits()}, got {value!r}")
            return checked_vector
        checked: float = integer(self.name, value) if self.type is int else number(self.name, value)
        if not self._within(checked):
            raise ValueError(f"{self.name}: must be {self.limits()}, got {value!r}")
        return checked

    def _within(self, value: float) -> bool:
        """Whether ``value`` lies within the option's limits."""
        low, high = self.minimum, self.maximum
        too_low = low is not None and (value <= low if self.above else value < low)
        return not too_low and not (high is not None and value > high)


@dataclass(frozen=True)
class Kind:
    """One noise kind: its family's kernel, dimensions, options, value range and parameters.

    ``value_range(spec)`` is the range of one octave; ``variant(spec)`` the compile-time variant code
    (a gradient or distance metric; ``default_variant`` when None); ``pack(spec, dim)`` the float64
    parameters the kernel reads (none when None); ``check(spec)`` the rules between options.
    """

    name: str
    family: int
    default_variant: int
    dims: tuple[int, ...]
    options: tuple[Option, ...]
    tiling: bool
    description: str
    value_range: Callable[[Any], tuple[float, float]]
    variant: Callable[[Any], int] | None = None
    pack: Callable[[Any, int], np.ndarray] | None = None
    check: Callable[[Any], None] | None = None

    def option(self, name: str) -> Option | None:
        """The option called ``name``, or None if the kind has none."""
        return next((option for option in self.options if option.name == name), None)

    def option_names(self) -> tuple[str, ...]:
        return tuple(option.name for option in self.options)

    def variant_of(self, spec: Any) -> int:
        """The compile-time variant code for ``spec``."""
        return self.default_variant if self.variant is None else self.variant(spec)


def signed_unit_range(_spec: Any) -> tuple[float, float]:
    """[-1, 1]: the range of value, Perlin and simplex noise."""
    return -1.0, 1.0


def unit_range(_spec: Any) -> tuple[float, float]:
    """[0, 1]: the range of Voronoi and cellular noise."""
    return 0.0, 1.0
