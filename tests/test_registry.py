"""The kind registry is the one description of every kind: NoiseSpec, the CLI and docs/noise-library.md agree with it,
and the package's modules import each other without cycles."""

from __future__ import annotations

import math
import re
from dataclasses import fields
from pathlib import Path

import numpy as np

import noise_core as nc
from noise_core.cli import build_parser
from noise_core.registry import COMMON_NAMES, COMMON_OPTIONS, KINDS, kind_option_names
from noise_core.schema import Option

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "docs" / "noise-library.md").read_text(encoding="utf-8")
SUPERSCRIPTS = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def test_noise_spec_fields_are_the_registry_options() -> None:
    names = [field.name for field in fields(nc.NoiseSpec)]
    assert names == [*COMMON_NAMES, *kind_option_names()]
    defaults = {field.name: field.default for field in fields(nc.NoiseSpec)}
    for option in COMMON_OPTIONS:
        assert defaults[option.name] == option.default, option.name
    for kind in KINDS.values():
        spec = nc.NoiseSpec(kind=kind.name)
        for option in kind.options:
            assert getattr(spec, option.name) == option.default, (kind.name, option.name)
            assert defaults[option.name] in (None, option.default), (kind.name, option.name)


def test_every_kind_has_a_valid_row() -> None:
    for kind in KINDS.values():
        assert kind.dims and set(kind.dims) <= {1, 2, 3, 4}, kind.name
        spec = nc.NoiseSpec(kind=kind.name)
        low, high = nc.value_range(spec)
        assert low < high
        for dim in kind.dims:
            values = nc.evaluate(spec, np.full((4, dim), 0.3))
            assert ((values >= low) & (values <= high)).all(), (kind.name, dim)


def test_the_cli_has_one_option_per_registry_option() -> None:
    bake = build_parser()._subparsers._group_actions[0].choices["bake"]  # type: ignore[union-attr]
    flags = {action.dest for action in bake._actions}
    assert {*COMMON_NAMES, *kind_option_names()} <= flags


def _number_forms(value: float) -> set[str]:
    """How the README may write ``value``: ``1e-30``/``0.001``/``16`` or a power of ten ``10⁻³⁰``."""
    forms = {f"{value:g}"}
    exponent = round(math.log10(value)) if value > 0 else 0
    if value > 0 and float(f"1e{exponent}") == value:
        forms.add("10" + str(exponent).translate(SUPERSCRIPTS))
    return forms


def _default_text(option: Option) -> str:
    return f'`"{option.default}"`' if isinstance(option.default, str) else f"`{option.default!r}`"


def _check_row(option: Option, default: str, allowed: str) -> None:
    """The README row of ``option`` states its default and its limits or choices."""
    assert default == _default_text(option), (option.name, default)
    if option.choices and option.name != "kind":  # the kinds have a table of their own
        assert re.findall(r'`"(\w+)"`', allowed) == list(option.choices), (option.name, allowed)
    if option.allowed is not None or option.convert is not None:
        return
    low, high = option.minimum, option.maximum
    if option.above:
        assert any(f"> {form}" in allowed or f"({form}, " in allowed for form in _number_forms(low)), option.name
    elif low is not None:
        assert any(form in allowed for form in _number_forms(low)), (option.name, allowed)
    if high is not None:
        assert any(form in allowed for form in _number_forms(high)), (option.name, allowed)


def _tables() -> dict[str, dict[str, tuple[str, str]]]:
    """README option tables: ``{"common" or kind: {option: (default cell, allowed cell)}}``."""
    tables: dict[str, dict[str, tuple[str, str]]] = {}
    owner = None
    for line in README.splitlines():
        heading = re.match(r"^\*\*(\w+)\*\*.*options:$", line)
        if line == "## Common fields":
            owner = "common"
        elif heading:
            owner = heading.group(1).lower()
        elif line.startswith("#"):
            owner = None
        elif owner and line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            for name in re.findall(r"`(\w+)`", cells[0]):
                tables.setdefault(owner, {})[name] = (cells[1], cells[2])
        elif owner in tables and not line.startswith("|"):
            owner = None  # the first table after the heading has ended
    return tables


def test_readme_option_tables_agree_with_the_registry() -> None:
    tables = _tables()
    assert set(tables["common"]) == set(COMMON_NAMES)
    for option in COMMON_OPTIONS:
        _check_row(option, *tables["common"][option.name])
    for kind in KINDS.values():
        if not kind.options:
            assert kind.name not in tables
            continue
        assert set(tables[kind.name]) == set(kind.option_names()), kind.name
        for option in kind.options:
            _check_row(option, *tables[kind.name][option.name])


def test_readme_kinds_table_agrees_with_the_registry() -> None:
    rows = {}
    table = README.split("## Kinds", 1)[1].split("\n\n")[1]
    for line in table.splitlines():
        match = re.match(r"^\| `(\w+)` \| ([^|]+) \| ([^|]+) \|", line)
        if match:
            rows[match.group(1)] = (match.group(2).strip(), match.group(3).strip())
    assert list(rows) == list(KINDS)
    for name, kind in KINDS.items():
        dims, value_range = rows[name]
        assert dims == f"{min(kind.dims)}\u2013{max(kind.dims)}", name
        low, high = nc.value_range(nc.NoiseSpec(kind=name))
        assert value_range.startswith(f"[{low:g}, {high:g}]".replace("-", "\u2212")), (name, value_range)
