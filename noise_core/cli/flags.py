"""Command-line flags from ``schema.Option`` rows: the rows the library checks with and the add-on's properties
are made from give each flag its name, type, choices and help (``add_flags``), so an option is declared once.

A row ``name`` is the flag ``--name`` (underscores as hyphens; ``flag``). A ``bool`` row is ``--name`` /
``--no-name``, a vector row (``size``) that many numbers, a ``str`` row with ``choices`` a choice among them and one
without a path (``subtype`` ``FILE_PATH``/``DIR_PATH``) or text; the help is the row's description, its choices'
texts (``choice_text``), its limits and its default (``help_text``).

What every command shares: ``Parser`` (errors in one line naming the flag, "did you mean" by ``difflib``),
``WRITES`` (the help's word on how outputs are written) and ``make_folders``/``remove_folders`` (an output's missing
folders, made before a command runs and removed again when it fails).
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NoReturn

from ..io.files import ArgumentFileError
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


WRITES = (
    "Outputs: a missing folder is created. Every file is written whole or not at all: the command writes to "
    "temporary files beside the outputs and renames them over them only when every output was written (an "
    "existing file is replaced then, and only then); on any error no output changes, and the folders it created "
    "are removed again."
)
"""The epilog of every command that writes files (``--help``)."""
TYPE_TEXT = {"int": "a whole number", "float": "a number"}
"""What a flag of a type takes, for the message of a value that is not one (``invalid int value``)."""


def close_matches(word: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` naming the choices closest to ``word`` (``difflib``), or ``""``."""
    found = difflib.get_close_matches(word, [str(choice) for choice in choices], n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(map(repr, found))}?" if found else ""


class Parser(argparse.ArgumentParser):
    """The command line's parser (its subcommands' too): an error is one line naming the flag (``--octaves:
    ...``) and what it allows, with "did you mean" for a misspelt choice, command or flag, and a pointer to
    ``--help`` instead of the usage."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is not None and value not in action.choices:
            allowed = ", ".join(map(str, action.choices))
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r} (choose from {allowed}){close_matches(str(value), action.choices)}"
            )

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            parser = self.command_parser(parsed)
            flags = [option for action in parser._actions for option in action.option_strings]
            first = next((extra for extra in extras if extra.startswith("-")), extras[0])
            hint = close_matches(first.split("=", 1)[0], flags) if first.startswith("-") else ""
            others = [extra for extra in extras if extra.startswith("-") and extra != first]
            parser.error(f"{first}: not an option of {parser.prog}{hint}" + (
                f" (nor {', '.join(others)})" if others else ""))  # fmt: skip
        return parsed

    def command_parser(self, parsed: argparse.Namespace) -> Parser:
        """The parser of the subcommand ``parsed`` ran (this parser without one)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and getattr(parsed, action.dest, None) in action.choices:
                found = action.choices[getattr(parsed, action.dest)]
                return found.command_parser(parsed) if isinstance(found, Parser) else self
        return self

    def flag_message(self, message: str) -> str:
        """``message`` with its leading argument name as the flag the user typed: ``octaves: ...`` becomes
        ``--octaves: ...`` (a name that is no flag of this parser, e.g. a positional ``heights``, stays)."""
        message = re.sub(r"^the following arguments are required: (.*)$", r"\1: required", message)
        message = re.sub(r"^one of the arguments (.*) is required$", lambda found: found.group(1).replace(" ", ", ")
                         + ": give one of them", message)  # fmt: skip
        for action in self._actions:  # a missing command: the commands there are
            if isinstance(action, argparse._SubParsersAction) and message == f"{action.dest}: required":
                message += f" (choose from {', '.join(action.choices)})"
        message = re.sub(r"^argument ([^:]+): ", lambda match: match.group(1).split("/")[-1] + ": ", message)
        found = re.match(r"([A-Za-z][\w-]*(?:, [A-Za-z][\w-]*)*): ", message)
        if found:
            names = [self.flag_of(name) for name in found.group(1).split(", ")]
            message = ", ".join(names) + message[len(found.group(1)) :]
        invalid = re.search(r"invalid (int|float) value: ('.*')$", message)
        if invalid:
            message += f" (expected {TYPE_TEXT[invalid.group(1)]})"
        return message

    def flag_of(self, name: str) -> str:
        """``--name`` if ``name`` (``height_scale`` or ``height-scale``) is a flag of this parser, else ``name``."""
        wanted = flag(name.replace("-", "_"))
        return wanted if any(wanted in action.option_strings for action in self._actions) else name

    def error(self, message: str) -> NoReturn:  # type: ignore[override]
        """Print ``prog: error: message`` (the flag named, no usage) and where the help is; exit with status 2."""
        self.exit(2, f"{self.prog}: error: {self.flag_message(message)}\n(see {self.prog} --help)\n")


OUTPUTS = ("out", "splat_out", "area_out", "rivers_out", "erosion_out", "deposition_out", "out_level", "out_flow",
           "rivers", "carve", "overview", "save_recipe")  # fmt: skip
"""The arguments (``argparse`` destinations) that name files a command writes: their folders are made."""


def _folders(args: argparse.Namespace) -> dict[Path, str]:
    """The folders of the outputs ``args`` names, by the flag naming each; a pattern's (``{map}``, ``{row}``)
    up to its first part with a field in it."""
    found: dict[Path, str] = {}
    for name in OUTPUTS:
        value = getattr(args, name, None)
        if value is None or isinstance(value, bool):
            continue
        texts = [str(value)]
        if "{map}" in texts[0]:
            texts = [texts[0].replace("{map}", str(map_name)) for map_name in getattr(args, "maps", None) or ["map"]]
        for text in texts:
            parts = Path(text).parent.parts
            plain = next((index for index, part in enumerate(parts) if "{" in part), len(parts))
            found.setdefault(Path(*parts[:plain]) if plain else Path("."), flag(name))
    return found


def make_folders(args: argparse.Namespace) -> list[Path]:
    """Make the missing folders of every output ``args`` names (``OUTPUTS``); return those made, outermost first.
    ``ArgumentFileError`` naming the flag when one cannot be made (a file in its place)."""
    made: list[Path] = []
    try:
        for folder, name in _folders(args).items():
            missing = [part for part in (folder, *folder.parents) if not part.exists()][::-1]
            for part in missing:
                try:
                    part.mkdir()
                except FileExistsError:
                    continue  # a folder of another output, or made meanwhile
                except OSError as error:
                    raise ArgumentFileError(f"{name}: cannot create the folder {str(part)!r}: {error}") from None
                made.append(part)
    except BaseException:
        remove_folders(made)
        raise
    return made


def remove_folders(made: list[Path]) -> None:
    """Remove the folders of ``made`` (``make_folders``') that are still empty, innermost first."""
    for folder in reversed(made):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
