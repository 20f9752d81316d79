"""The package map of docs/architecture.md holds: every module of ``noise_core`` is in one layer, imports only its
own layer and those below it, and neither ``noise_core`` nor the add-on has an import cycle; ``noise_core`` never
imports ``bpy``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "docs" / "architecture.md"


def _module_name(path: Path, root: Path, name: str) -> tuple[str, list[str]]:
    """``(dotted module name, its package's parts)`` of the file ``path`` under ``root`` (package ``name``)."""
    parts = [name, *path.relative_to(root).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts = parts[:-1]
        return ".".join(parts), parts
    return ".".join(parts), parts[:-1]


def _sources(root: Path, name: str) -> dict[str, Path]:
    files = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0] == "noise_core" and name != "noise_core":  # the add-on's link to the library
            continue
        files[_module_name(path, root, name)[0]] = path
    return files


def _targets(path: Path, root: Path, name: str, typing: bool = False) -> set[str]:
    """Every module of package ``name`` that ``path`` imports at run time, in functions too (``TYPE_CHECKING``
    blocks left out unless ``typing``), as dotted names; ``from pkg import sub`` names ``pkg.sub`` and not ``pkg``."""
    _, package = _module_name(path, root, name)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not typing and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:
                found.add(f"{source}.{alias.name}")
            found.add(source)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _graph(root: Path, name: str, typing: bool = False) -> dict[str, set[str]]:
    """``{module: the modules of the package it imports}`` (``_targets``; ``typing``: for the type checker too)."""
    sources = _sources(root, name)
    graph = {}
    for module, path in sources.items():
        targets = _targets(path, root, name, typing)
        # ``from pkg import sub`` imports the module ``pkg.sub``; the package counts only when named for itself
        parents = {target.rsplit(".", 1)[0] for target in targets if target in sources and "." in target}
        graph[module] = {target for target in targets if target in sources and target not in parents} - {module}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if target not in state and (found := visit(target)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def _layers() -> dict[str, tuple[int, str]]:
    """``{dotted module: (layer number, layer name)}`` from the first table of docs/architecture.md."""
    layers = {}
    for line in MAP.read_text(encoding="utf-8").split("## ", 1)[0].splitlines():
        match = re.match(r"^\| (\d+) ([\w ]+?) \| (.+?) \|", line)
        if match:
            for module in re.findall(r"`([\w.]+)`", match.group(3)):
                full = module if module == "noise_core" else f"noise_core.{module}"
                assert full not in layers, f"{module} is in two layers"
                layers[full] = (int(match.group(1)), match.group(2))
    return layers


def test_the_map_has_every_module_and_only_modules() -> None:
    layers = _layers()
    modules = set(_sources(ROOT / "noise_core", "noise_core"))
    assert not modules - set(layers), f"modules in no layer of docs/architecture.md: {sorted(modules - set(layers))}"
    assert not set(layers) - modules, f"layers name missing modules: {sorted(set(layers) - modules)}"


def test_no_import_runs_up_a_layer() -> None:
    layers = _layers()
    upward = [
        f"{module} ({layers[module][1]}) imports {target} ({layers[target][1]})"
        for module, targets in _graph(ROOT / "noise_core", "noise_core").items()
        for target in sorted(targets)
        if layers[target][0] > layers[module][0]
    ]
    assert not upward, "\n".join(upward)


@pytest.mark.parametrize(("package", "typing"), [("noise_core", False), ("addon", True)])
def test_modules_import_without_cycles(package: str, typing: bool) -> None:
    """No chain of imports leads back to where it started, at run time or in functions; in the add-on not for the
    type checker either (a ``TYPE_CHECKING`` import is a dependency of the design all the same; ``noise_core``'s
    kind modules name ``NoiseSpec`` in their checks, whose module reads their registry rows)."""
    graph = _graph(ROOT / package, package, typing)
    assert len(graph) > 10, package
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_the_checks_find_what_they_look_for(tmp_path: Path) -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .low import x\n")
    (package / "low.py").write_text("def f():\n    from .sub import high\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "high.py").write_text("from .. import low\nfrom ..low import x\n")
    graph = _graph(package, "pkg")
    assert graph["pkg.low"] == {"pkg.sub.high"}  # an in-function import counts
    assert graph["pkg.sub.high"] == {"pkg.low"}  # ``from .. import low`` is low, not the package
    assert graph["pkg"] == {"pkg.low"}
    (package / "typed.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .low import x\n")
    (package / "low.py").write_text("def f():\n    from . import typed\n")
    assert _graph(package, "pkg")["pkg.typed"] == set()  # not at run time: the layers allow it
    assert _cycle(_graph(package, "pkg", typing=True)) == ["pkg.low", "pkg.typed", "pkg.low"]  # a circle all the same


def test_noise_core_never_imports_bpy() -> None:
    for path in sorted((ROOT / "noise_core").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        names |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not {n for n in names if n.split(".")[0] in ("bpy", "mathutils", "bmesh")}, path


MAX_ADDON_LINES = 500
"""The longest an add-on module may be: one feature (its function beside its thin operator) per module."""


def test_every_addon_module_is_at_most_500_lines() -> None:
    lengths = {path.name: len(path.read_text(encoding="utf-8").splitlines()) for path in (ROOT / "addon").glob("*.py")}
    assert len(lengths) > 20
    longer = {name: lines for name, lines in sorted(lengths.items()) if lines > MAX_ADDON_LINES}
    assert not longer, f"add-on modules over {MAX_ADDON_LINES} lines (split them by feature): {longer}"
