"""The command line's edges (issue 43): errors, ``--version``, ``--help``, output folders, every heightmap format in
and out of ``erode`` and ``maps`` with the sidecar's height range and cell size, the documented splat mix, and
Unreal's nearest sizes."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import noise_core as nc
from noise_core._version import __version__
from noise_core.cli import build_parser, main
from noise_core.io import heightmaps
from noise_core.io.engines import ENGINES, unreal_layout, unreal_nearest
from noise_core.io.images import read_image

ROOT = Path(__file__).resolve().parent.parent


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _minimal(parser: argparse.ArgumentParser) -> list[str]:
    """Arguments that satisfy ``parser``'s required ones."""
    arguments = []
    for group in parser._mutually_exclusive_groups:  # one of a required group: the first (its value a choice)
        if group.required:
            first = group._group_actions[0]
            arguments += [first.option_strings[-1], first.choices[0] if first.choices else "x.png"]  # type: ignore[index]
    for action in parser._actions:
        if not action.option_strings:
            arguments.append(action.choices[0] if action.choices else "x.png")
        elif action.required:
            arguments += [action.option_strings[-1], "x.png"]
    return arguments


def _error(capsys: pytest.CaptureFixture[str], arguments: list[str]) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main(arguments)
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert "usage:" not in error and "Traceback" not in error and len(error.strip().split("\n")) == 2, error
    return error


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0 and capsys.readouterr().out == f"noise_core {__version__}\n"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["bake", "--out", "x.png", "--octaves", "0"], "bake: error: --octaves: must be between 1 and 16, got 0"),
        (["bake", "--out", "x.png", "--octaves", "x"], "--octaves: invalid int value: 'x' (expected a whole number)"),
        (["bake", "--out", "x.png", "--kind", "perlni"], "--kind: invalid choice: 'perlni' (choose from value, "),
        (["bakee"], "error: command: invalid choice: 'bakee' (choose from bake, "),
        (["bake", "--out", "x.png", "--octavs", "3"], "--octavs: not an option of python -m noise_core bake; did you "
                                                      "mean '--octaves'"),
        (["bake"], "bake: error: --out: required"),
        (["terrain", "--out", "x.r16"], "terrain: error: --preset, --recipe: give one of them"),
    ],
)  # fmt: skip
def test_an_error_is_one_line_naming_the_flag(capsys: pytest.CaptureFixture[str], arguments, message: str) -> None:
    error = _error(capsys, arguments)
    assert message in error, error
    assert error.split("\n")[1].startswith("(see python -m noise_core")  # where the help is, not the usage


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_every_command_suggests_a_misspelt_choice_and_flag(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    parser = _subcommands()[command]
    base = [command, *_minimal(parser)]
    flags = [a for a in parser._actions if a.option_strings and a.option_strings[-1].startswith("--")
             and a.option_strings[-1] not in ("--help",)]  # fmt: skip
    misspelt = flags[0].option_strings[-1] + flags[0].option_strings[-1][-1]  # its last letter twice
    error = _error(capsys, [*base, misspelt, "1"])
    assert f"{misspelt}: not an option of python -m noise_core {command}; did you mean " in error, error
    assert repr(flags[0].option_strings[-1]) in error
    chosen = [a for a in flags if a.choices and all(isinstance(c, str) and len(c) > 3 for c in a.choices)]
    for action in chosen[:2]:
        wrong = action.choices[-1][:-1] + "q"  # type: ignore[index]
        error = _error(capsys, [*base, action.option_strings[-1], wrong])
        assert f"{action.option_strings[-1]}: invalid choice: {wrong!r}" in error, error
        assert f"did you mean {action.choices[-1]!r}" in error or f"or {action.choices[-1]!r}" in error, error  # type: ignore[index]


@pytest.mark.parametrize("command", sorted(_subcommands()))
def test_help_says_how_outputs_are_written(command: str) -> None:
    parser = _subcommands()[command]
    text = " ".join(parser.format_help().split())
    writes = any(action.dest in ("out", "out_level") for action in parser._actions)
    assert ("written whole or not at all" in text and "a missing folder is created" in text) == writes, text


def test_output_folders_are_made_and_removed_on_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    land = tmp_path / "a" / "b" / "land.r16"
    assert main(["bake", "--size", "9", "--out", str(land), "--height-range", "0", "90", "--cell-size", "10"]) == 0
    commands = [
        ["import", str(land), "--out", str(tmp_path / "c" / "land.exr")],
        ["erode", str(land), "--out", str(tmp_path / "d" / "e" / "out.r16"), "--mode", "thermal", "--iterations", "1",
         ],
        ["maps", str(land), "--maps", "slope", "--out", str(tmp_path / "f" / "m_{map}.exr")],
        ["water", str(land), "--out-level", str(tmp_path / "g" / "level.r16")],
    ]  # fmt: skip
    for arguments in commands:
        assert main(arguments) == 0, capsys.readouterr().err
    made = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert made == ["a/b/land.r16", "a/b/land.r16.json", "c/land.exr", "c/land.exr.json", "d/e/out.r16",
                    "d/e/out.r16.json", "f/m_slope.exr", "g/level.r16", "g/level.r16.json"]  # fmt: skip
    _error(capsys, ["bake", "--size", "9", "--octaves", "0", "--out", str(tmp_path / "h" / "i" / "x.png")])
    _error(capsys, ["erode", str(land), "--out", str(tmp_path / "j" / "o.exr"), "--relief", "0"])
    assert not (tmp_path / "h").exists() and not (tmp_path / "j").exists()  # a failed command leaves no folder


@pytest.mark.parametrize("suffix", list(heightmaps.FORMATS))
def test_erode_reads_and_writes_every_format_with_its_sidecar(tmp_path: Path, suffix: str) -> None:
    source = tmp_path / f"in{suffix}"
    bake = ["bake", "--kind", "perlin", "--octaves", "4", "--frequency", "3", "--size", "24", "--out", str(source)]
    assert main([*bake, "--height-range", "-50", "150", "--cell-size", "20"]) == 0
    out = tmp_path / "out" / f"eroded{suffix}"
    assert main(["erode", str(source), "--out", str(out), "--mode", "thermal", "--iterations", "4"]) == 0
    found = heightmaps.read_heightmap(source)
    expected = nc.erode_thermal(found.heights, cell_size=20.0, iterations=4).heights
    result = heightmaps.read_heightmap(out)
    assert result.cell_size == (20.0, 20.0) and result.unit == "m"
    low, high = result.height_range
    assert low <= expected.min() and expected.max() <= high and (low, high) == (-50.0, 150.0)  # thermal: within
    step = (high - low) / 65535 if suffix in (".r16", ".raw", ".png") else 1e-4
    np.testing.assert_allclose(result.heights, expected, atol=step)


def test_erode_widens_an_integer_format_s_range_to_the_uplifted_heights(tmp_path: Path) -> None:
    source = tmp_path / "in.r16"
    main(["bake", "--size", "16", "--out", str(source), "--height-range", "0", "10", "--cell-size", "100"])
    for out in (tmp_path / "out.r16", tmp_path / "out.exr"):
        main(["erode", str(source), "--out", str(out), "--steps", "20", "--dt", "1e5", "--uplift", "1e-3"])
    raw, exr = heightmaps.read_heightmap(tmp_path / "out.r16"), heightmaps.read_heightmap(tmp_path / "out.exr")
    assert exr.height_range == (0.0, 10.0) and exr.values.max() > 1.0  # a float file keeps heights beyond it
    assert raw.height_range[1] > 10.0 and raw.values.max() == 1.0  # an integer one widens its range
    np.testing.assert_allclose(raw.heights, exr.heights, atol=(raw.height_range[1] - raw.height_range[0]) / 65535)


def test_maps_reads_the_sidecar_s_heights_and_cell_size(tmp_path: Path) -> None:
    land = tmp_path / "land.r16"
    main(["bake", "--size", "32", "--octaves", "5", "--out", str(land), "--height-range", "0", "3000", "--cell-size",
          "90"])  # fmt: skip
    assert main(["maps", str(land), "--maps", "slope,height", "--out", str(tmp_path / "m_{map}.exr")]) == 0
    heights = heightmaps.read_heightmap(land).heights
    np.testing.assert_allclose(read_image(tmp_path / "m_slope.exr"), nc.slope(heights, cell_size=90.0), atol=1e-3)
    np.testing.assert_allclose(read_image(tmp_path / "m_height.exr"), heights, rtol=1e-6)


def test_maps_writes_raw_heightmaps_with_their_sidecars(tmp_path: Path) -> None:
    land = tmp_path / "land.exr"
    main(["bake", "--size", "20", "--octaves", "4", "--out", str(land), "--height-range", "0", "500", "--cell-size",
          "30"])  # fmt: skip
    assert main(["maps", str(land), "--maps", "slope,aspect", "--out", str(tmp_path / "m" / "{map}.r16")]) == 0
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["aspect.r16", "aspect.r16.json", "slope.r16",
                                                                  "slope.r16.json"]  # fmt: skip
    heights = heightmaps.read_heightmap(land).heights
    for name, expected in (("slope", nc.slope(heights, cell_size=30.0)), ("aspect", None)):
        found = heightmaps.read_heightmap(tmp_path / "m" / f"{name}.r16")
        assert found.cell_size == (30.0, 30.0) and found.sidecar["settings"]["map"] == name
        if expected is not None:
            low, high = found.height_range
            assert (low, high) == (float(expected.min()), float(expected.max()))
            np.testing.assert_allclose(found.heights, expected, atol=(high - low) / 65535 + 1e-4)


def test_the_documented_splat_example_gives_the_documented_mix(tmp_path: Path, monkeypatch) -> None:
    """docs/terrain-maps.md's commands, as written, give the layer shares its comment states (within 3 %)."""
    text = (ROOT / "docs" / "terrain-maps.md").read_text(encoding="utf-8")
    rules = re.search(r"```json rules.json\n(.*?)```", text, flags=re.S).group(1)  # type: ignore[union-attr]
    commands = re.search(r"## Command line.*?```sh\n(.*?)```", text, flags=re.S).group(1)  # type: ignore[union-attr]
    monkeypatch.chdir(tmp_path)
    Path("rules.json").write_text(rules)
    lines = commands.replace("\\\n", " ").strip().split("\n")
    for line in lines:
        words = line.split("#")[0].split()
        assert words[:3] == ["python", "-m", "noise_core"] and main(words[3:]) == 0
    shares = {name: float(share) / 100 for name, share in re.findall(r"(\w+) (\d+) %", lines[-1])}
    names = [layer["name"] for layer in json.loads(rules)]
    assert list(shares) == names
    weights = read_image(Path("maps/splat_0.png")).reshape(-1, 4).mean(axis=0)
    np.testing.assert_allclose(weights, list(shares.values()), atol=0.03)
    assert weights[0] < 0.8 and min(weights[1:3]) > 0.1  # a mix, not 95 % grass


def test_unreal_refusal_names_the_nearest_sizes() -> None:
    with pytest.raises(ValueError, match=r"^size: Unreal Engine does not take 1000x1000: the nearest sizes it takes "
                       r"are 993x993 or 1009x1009; "):  # fmt: skip
        ENGINES["unreal"].check_size(1000, 1000)


@given(width=st.integers(2, 9000), height=st.integers(2, 9000))
def test_unreal_nearest_sizes_are_exact_and_nearest(width: int, height: int) -> None:
    nearest = unreal_nearest(width, height)
    assert 1 <= len(nearest) <= 2 and all(unreal_layout(*size) is not None for size in nearest)
    if width == height and len(nearest) == 2:
        (below, _), (above, _) = nearest
        assert below <= width <= above
        assert not any(unreal_layout(side, side) for side in range(below + 1, above) if side != width)


def test_blender_scripts_import_their_siblings_by_path() -> None:
    """``blender --background --python scripts/<name>.py`` puts no folder on ``sys.path``: a script meant for
    Blender (it imports ``bpy`` or the add-on's start-up) imports no sibling by name, only by its path
    (``_blender_addon`` by ``spec_from_file_location``, the others by ``_blender_addon.sibling``);
    tests/blender/test_headless.py runs three of them as Blender does."""
    import ast

    scripts = ROOT / "scripts"
    siblings = {path.stem for path in scripts.glob("*.py")}
    checked = []
    for path in sorted(scripts.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        names = [alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names]
        names += [node.module or "" for node in tree.body if isinstance(node, ast.ImportFrom)]
        if "bpy" in names or 'spec_from_file_location("_blender_addon"' in text:
            assert not set(names) & siblings, f"{path.name} imports {sorted(set(names) & siblings)} by name"
            checked.append(path.stem)
    assert {"demo", "make_terrain", "bake_texture", "render_presets", "render_water"} <= set(checked)
