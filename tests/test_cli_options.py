"""Every option declared once, library to interface: the command line's flags of the terrain maps, erosion, normal
map, loop and heightmap options are made from the same ``schema.Option`` rows the library checks with and the
add-on's properties come from (``noise_core.cli.flags``); the flags that are no row are named here, each with
why."""

from __future__ import annotations

import argparse

import pytest

from noise_core import loops, normal_maps
from noise_core.cli import build_parser
from noise_core.cli.erode import MAPS, MODES, OUTPUTS
from noise_core.cli.flags import ROW, add_flags, flag, help_text
from noise_core.cli.main import HEIGHTMAP_FLAGS
from noise_core.io import heightmaps
from noise_core.schema import Option
from noise_core.terrain.heightfield import CELL_SIZE
from noise_core.terrain.layers import LAYER_OPTIONS
from noise_core.terrain.maps import HEIGHT_SCALE, MAP_OPTIONS
from noise_core.terrain.water import WATER_OPTIONS

ROWS = {
    "maps": (CELL_SIZE, HEIGHT_SCALE, *MAP_OPTIONS, heightmaps.SPLAT_BITS),
    "erode": (CELL_SIZE, *{option.name: option for rows in MODES.values() for option in rows}.values()),
    "bake": (*normal_maps.OPTIONS, loops.RADIUS, *HEIGHTMAP_FLAGS),
    "water": (*WATER_OPTIONS, heightmaps.ENGINE),
    "layers": (CELL_SIZE, HEIGHT_SCALE, *LAYER_OPTIONS),
}
"""The rows each command's flags come from."""
NOT_ROWS = {
    "layers": {"heights", "layers", "out", "png_bits"},
    "maps": {"heights", "maps", "out", "png_bits", "splat", "splat_out", "seed"},
    "erode": {"input", "out", "mode", "relief", "png_bits", *MAPS, *OUTPUTS},
    "bake": {"out", "size", "width", "height", "png_bits", "frames", "height_range"},
    "water": {
        "path",
        "cell_size",
        "height_scale",
        "sea",
        "out_level",
        "out_flow",
        "flow_bits",
        "rivers",
        "carve",
        "carve_depth",
    },
}
"""Flags that are no row: files and image depths of the command line alone; ``maps``' ``--splat`` (a layer file
for splat images of their own) and ``--seed`` (their breakup noise); ``erode``'s ``--mode``, ``--relief`` (its
heights are the input times the relief, ``--cell-size`` apart: the add-on's Relief spans pixels instead) and its
fluvial maps; ``bake``'s size (``--size`` or ``--width``/``--height``), ``--frames`` (given: a loop of at least one
frame; the add-on's Loop Frames is 0 for a still image) and ``--height-range`` (two numbers; the add-on's export
has a fixed range switch and its two heights); ``water``'s input is read as ``stats`` reads it (``--cell-size``
optional: the sidecar's spacing, ``--height-scale``), ``--sea`` a level for the outlets mask, and its outputs."""


def _commands() -> dict[str, argparse.ArgumentParser]:
    return build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]


def _actions(command: str) -> dict[str, argparse.Action]:
    return {action.dest: action for action in _commands()[command]._actions if action.dest != "help"}


@pytest.mark.parametrize("command", sorted(ROWS))
def test_every_flag_is_a_row_or_named_as_none(command: str) -> None:
    actions = _actions(command)
    rows = {option.name for option in ROWS[command]}
    others = set(actions) - rows - NOT_ROWS[command]
    if command == "bake":  # the noise settings (the registry's rows: tests/test_registry.py) and tiled bakes
        from noise_core.registry import options_by_name
        from noise_core.tiled_bake import OPTIONS as TILED

        others -= {*options_by_name(), *TILED}
    assert not others, f"{command}: flags that are neither a row nor named as none: {sorted(others)}"
    assert rows <= set(actions), sorted(rows - set(actions))


@pytest.mark.parametrize(("command", "option"), [(c, o) for c, rows in ROWS.items() for o in rows])
def test_a_flag_is_its_row(command: str, option: Option) -> None:
    action = _actions(command)[option.name]
    assert action.option_strings == [flag(option.name)] or flag(option.name) in action.option_strings
    assert action.help == help_text(option)  # the row's description, choices' texts, limits and default
    if option.choices:
        assert tuple(action.choices) == option.choices
    elif option.type is not bool:
        assert action.type is option.type or (option.subtype == "FILE_PATH" and action.type.__name__ == "Path")
    assert action.default in (argparse.SUPPRESS, None, option.default)  # left out, not given, or the row's


def test_the_flags_keep_their_behaviour() -> None:
    """The defaults the commands had before their flags came from rows."""
    bake = build_parser().parse_args(["bake", "--out", "x.png"])
    assert (bake.map, bake.normal_strength, bake.normal_convention, bake.normal_method) == (
        "height", 0.1, "opengl", "auto")  # fmt: skip
    assert bake.loop_radius == loops.DEFAULT_RADIUS
    assert (bake.engine, bake.cell_size, bake.overlap, bake.splat, bake.splat_bits) == (None,) * 5  # not given
    maps = build_parser().parse_args(["maps", "h.png"])
    settings = (maps.cell_size, maps.height_scale, maps.radius, maps.horizon_radius, maps.directions)
    # --cell-size not given: the input's sidecar's, else the row's default (1)
    assert settings == (None, 1.0, 16, 32, 16) and (maps.flow_method, maps.splat_bits) == ("mfd", "8")
    erode = build_parser().parse_args(["erode", "in.png", "--out", "o.png", "--steps", "3"])
    assert erode.cell_size is None and erode.relief is None and erode.steps == 3
    assert not hasattr(erode, "dt")  # the library's default


def test_add_flags_reads_every_kind_of_row() -> None:
    parser = argparse.ArgumentParser()
    rows = (
        Option("on", bool, False, "A switch"),
        Option("at", float, (0.0, 0.0), "Where", size=2),
        Option("how", str, "a", "Which", choices=("a", "b"), choice_text=(("A", "The first"), ("B", "The second"))),
        Option("file", str, "", "A file", subtype="FILE_PATH"),
        Option("count", int, 3, "How many", minimum=1, maximum=9),
    )
    add_flags(parser, rows, unset=ROW)
    args = parser.parse_args(["--no-on", "--at", "1", "2", "--how", "b", "--file", "x.json", "--count", "4"])
    assert (args.on, args.at, args.how, str(args.file), args.count) == (False, [1.0, 2.0], "b", "x.json", 4)
    assert help_text(rows[2]) == "Which: a = The first; b = The second (default 'a')"
    assert help_text(rows[4]) == "How many; between 1 and 9 (default 3)"
    assert help_text(Option("share", float, 0.5, "50% of it", minimum=0.0)) == "50%% of it; >= 0 (default 0.5)"
    with pytest.raises(SystemExit):
        parser.parse_args(["--how", "c"])
