"""Command-line flags from ``schema.Option`` rows: the rows the library checks with and the add-on's properties
are made from give each flag its name, type, choices and help (``add_flags``), so an option is declared once.

A row ``name`` is the flag ``--name`` (underscores as hyphens; ``flag``). A ``bool`` row is ``--name`` /
``--no-name``, a vector row (``size``) that many numbers, a ``str`` row with ``choices`` a choice among them and one
without a path (``subtype`` ``FILE_PATH``/``DIR_PATH``) or text; the help is the row's description, its choices'
texts (``choice_text``), its limits and its default (``help_text``).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..schema import Option

ROW = object()
"""``add_flags``' ``unset``: a flag not given takes its row's default."""
PATHS = ("FILE_PATH", "DIR_PATH")


def flag(name: str) -> str:
    """The flag of the option ``name``: ``--cell-size`` for ``cell_size``."""
    return "--" + name.replace("_", "-")


def help_text(option: Option) -> str:
    """The help of ``option``'s flag: ``"<description>[: <choice> = <text>; ...][; <limits>] (default <default>)"``."""
    text = option.description
    if option.choice_text:
        text += ": " + "; ".join(f"{choice} = {what}" for choice, (_label, what) in zip(
            option.choices, option.choice_text, strict=True))  # fmt: skip
    limits = "" if option.choices else option.limits()
    text = f"{text}{f'; {limits}' if limits else ''} (default {option.default!r})"
    return text.replace("%", "%%")  # argparse formats the help


def keywords(option: Option) -> dict[str, Any]:
    """``add_argument``'s keywords for ``option`` but its default: type, choices, number of values, action."""
    if option.type is bool:
        return {"action": argparse.BooleanOptionalAction}
    if option.size:
        return {"type": float, "nargs": option.size, "metavar": tuple("XYZW"[: option.size])}
    if option.type is str and option.choices:
        return {"choices": option.choices}
    if option.type is str:
        return {"type": Path if option.subtype in PATHS else str}
    return {"type": option.type}


def add_flags(parser: Any, options: Iterable[Option], unset: object = argparse.SUPPRESS) -> None:
    """Add a flag per row of ``options`` to ``parser`` (a parser or an argument group). A flag not given is left
    out of the parsed arguments (``unset`` ``argparse.SUPPRESS``: the library's default applies), takes its row's
    default (``ROW``), or ``unset`` itself (``None``: "not given", for options that switch a mode on)."""
    for option in options:
        default = option.default if unset is ROW else unset
        parser.add_argument(flag(option.name), default=default, help=help_text(option), **keywords(option))
