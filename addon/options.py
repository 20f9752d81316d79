"""Options declared once: each feature's arguments are ``schema.Option`` rows, as the noise kinds' are.

A feature module (``displace.py``, ``terrain.py``, ``erode.py``, ``bake.py``, ``bake_uv.py``) lists its
function's options as rows. From them come the operator's Blender properties (``properties.properties_of``, through
``properties.schema_property``: label, description, default, limits, slider range, subtype, unit, menu
items), the function's defaults and argument checks (``checked``: one ``UserError`` whose message starts
with the argument's name) and the operator's ``execute``, which passes ``**self.as_keywords(...)`` to the
function (``reports`` turns a ``UserError`` into the operator's error report). Adding an option to an
operator: one row, its use in the function, a test.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

import bpy
from bpy.props import PointerProperty

from .errors import UserError
from .mapping import Domain
from .noise_core import NoiseSpec, loops
from .noise_core.registry import kind_info
from .noise_core.schema import Option
from .properties import NoiseSettings
from .properties import properties_of as properties_of  # the feature modules take it from here

Function = TypeVar("Function", bound=Callable[..., Any])


def check(option: Option, value: object) -> Any:
    """``value`` checked by ``option`` (converted to its type); ``UserError`` starting with its name otherwise."""
    try:
        return option.check(value)
    except (TypeError, ValueError) as error:
        raise UserError(str(error)) from None


def checked(*options: Option) -> Callable[[Function], Function]:
    """Give ``options`` to the decorated function: its keyword arguments named after them take the rows'
    defaults and are checked by them (``check``) before the body runs. A parameter of the ``def`` named after
    a row has no default there (one whose default is None keeps it, meaning "from the context", and is
    checked only when given); rows the ``def`` does not name arrive in its ``**keywords`` parameter. The
    wrapper's signature lists every option with its default (``help()``, ``inspect.signature``)."""

    def decorate(function: Function) -> Function:
        signature = inspect.signature(function)
        rows = {option.name: option for option in options}
        named = [parameter for parameter in signature.parameters.values() if parameter.kind is not _VAR_KEYWORD]
        rest = [inspect.Parameter(name, _KEYWORD_ONLY, default=rows[name].default) for name in rows]
        rest = [parameter for parameter in rest if parameter.name not in signature.parameters]
        if rest and len(named) == len(signature.parameters):
            raise TypeError(f"{function.__name__}: no parameter for the options {', '.join(p.name for p in rest)}")
        optional = {
            name for name in rows if name in signature.parameters and signature.parameters[name].default is None
        }
        signature = signature.replace(
            parameters=[
                parameter.replace(default=rows[parameter.name].default)
                if parameter.name in rows and parameter.default is inspect.Parameter.empty
                else parameter
                for parameter in named
            ]
            + rest
        )

        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, option in rows.items():
                value = bound.arguments[name]
                if value is not None or name not in optional:
                    bound.arguments[name] = check(option, value)
            return function(*bound.args, **bound.kwargs)

        run.__signature__ = signature  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]

    return decorate


_VAR_KEYWORD = inspect.Parameter.VAR_KEYWORD
_KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY


def reports(execute: Function) -> Function:
    """An operator's ``execute`` that reports a ``UserError`` as an error and cancels (the function it calls
    has changed nothing then)."""

    @functools.wraps(execute)
    def run(operator: Any, context: Any) -> Any:
        try:
            return execute(operator, context)
        except UserError as error:
            operator.report({"ERROR"}, str(error))
            return {"CANCELLED"}

    return run  # type: ignore[return-value]


if TYPE_CHECKING:  # the mixins below are operators to a type checker (Blender wants mixins plain classes)
    _Operator = bpy.types.Operator
else:
    _Operator = object


class OptionsOperator(_Operator):
    """Mixin of the feature operators, whose properties ``properties_of`` makes from rows (each operator's
    ``__annotations__``); they can be redone, undone and saved as presets."""

    bl_options = {"REGISTER", "UNDO", "PRESET"}

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            """The generated properties, which a type checker cannot see."""

    @classmethod
    def poll(cls, context):
        """Whether the operator can run in ``context``; if not, Blender shows ``unavailable``'s reason."""
        reason = cls.unavailable(context)
        if reason:
            cls.poll_message_set(reason)
        return not reason

    @staticmethod
    def unavailable(_context: Any) -> str:
        """Why the operator cannot run in ``context`` ("" when it can)."""
        return ""

    def keywords(self, *ignore: str) -> dict[str, Any]:
        """``self.as_keywords``: the operator's properties as keyword arguments of its function, without its
        ``noise`` settings and the names in ``ignore``."""
        return self.as_keywords(ignore=("noise", *ignore))  # type: ignore[func-returns-value, return-value]


def check_noise(spec: object, domain: object) -> None:
    """``UserError`` unless ``spec`` is a ``NoiseSpec`` and ``domain`` a ``Domain`` in a dimension of its kind."""
    if not isinstance(spec, NoiseSpec):
        raise UserError(f"spec: expected a NoiseSpec, got {type(spec).__name__}")
    if not isinstance(domain, Domain):
        raise UserError(f"domain: expected a Domain, got {type(domain).__name__}")
    dims = kind_info(spec.kind).dims
    if domain.dimensions not in dims:
        allowed = ", ".join(f"{d}D" for d in dims)
        raise UserError(f"domain: kind {spec.kind!r} is defined in {allowed}, not {domain.dimensions}D")


def blender_option(option: Option) -> Option:
    """The library's row ``option`` as an operator takes it: named ``addon_name`` where it has one, and a menu's
    choices (and default) in capitals, Blender's custom for enum identifiers, each the library's lowercase value
    (``"OPENGL"``: ``"opengl"``). Its description, limits and texts are the row's."""
    changes: dict[str, Any] = {"name": option.addon_name or option.name, "addon_name": None}
    if option.choices:
        changes.update(choices=tuple(value.upper() for value in option.choices), default=str(option.default).upper())
    return replace(option, **changes)


LOOP_RADIUS = loops.RADIUS
"""The circle a seamless loop moves around (``noise_core.loops``): Displace's animation and the loop bake."""


class NoiseOperator(OptionsOperator):
    """Mixin of the operators that compute noise: their own noise settings, filled from the scene's on a first
    run (``properties.operator_settings``)."""

    __annotations__ = {"noise": PointerProperty(type=NoiseSettings, options={"SKIP_SAVE"})}  # type: ignore[func-returns-value]
