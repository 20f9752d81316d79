r"""Generate a noise terrain, or displace existing meshes, with the Noisewright add-on and save a .blend, headless.

    blender --background --python scripts/make_terrain.py -- \
        --out terrain.blend --subdivisions 512 --octaves 6
    python scripts/make_terrain.py --out terrain.blend --falloff radial --kind simplex --frequency 3
    python scripts/make_terrain.py --out canyon.blend --preset eroded_canyon --subdivisions 128
    python scripts/make_terrain.py --out mine.blend --recipe mine.json
    python scripts/make_terrain.py --open scene.blend --objects Plane Rock --strength 0.1 --out displaced.blend

Without ``--objects`` a terrain grid is added (``noisewright.add_terrain``) to the file given with
``--open``, to the file Blender was started with, or to an empty scene: of the noise options, or of a shipped
preset (``--preset NAME``) or a recipe file (``--recipe FILE``, ``noise_core.terrain.recipe``) with its erosion
stages, the grid options given replacing the recipe's. With ``--objects`` those meshes
are displaced instead (``noisewright.displace``), optionally into a new shape key. The .blend is written
whole or not at all; bad options exit with status 2 (``error: --option: ...``), a failed run with 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path

import bpy

if "_blender_addon" not in sys.modules:  # by its path: ``blender --python`` leaves scripts/ off sys.path (docs/cli.md)
    _spec = spec_from_file_location("_blender_addon", Path(__file__).resolve().with_name("_blender_addon.py"))
    _spec.loader.exec_module(_module := module_from_spec(_spec))
    sys.modules["_blender_addon"] = _module
addon = sys.modules["_blender_addon"]

MIN_SIZE = 1e-4
"""The terrain operator's smallest size."""


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    number = addon.number
    parser.add_argument("--out", type=Path, required=True, help=".blend file to save")
    parser.add_argument("--open", type=Path, help=".blend file to open first")
    terrain = parser.add_argument_group("terrain (without --objects)")
    source = terrain.add_mutually_exclusive_group()
    source.add_argument("--preset", help="a shipped terrain preset (noise_core/terrain/presets/NAME.json)")
    source.add_argument("--recipe", type=Path, help="a terrain recipe file (JSON; docs/cli.md#terrain-recipes)")
    terrain.add_argument(
        "--subdivisions", type=addon.integer(1, 16384), help="faces along X and Y (default 256, or the recipe's)"
    )
    terrain.add_argument("--size", type=number(MIN_SIZE), help="width and depth of the grid (default 2)")
    terrain.add_argument("--height", type=number(), help="height of noise value 1 (default 0.5)")
    terrain.add_argument("--falloff", choices=("none", "x", "y", "radial"), help="edge falloff (default none)")
    terrain.add_argument("--falloff-width", type=number(0.0, 1.0), help="fraction of the half-size it eases over")
    displace = parser.add_argument_group("displace (with --objects)")
    displace.add_argument("--objects", nargs="+", metavar="NAME", help="mesh objects to displace instead")
    displace.add_argument("--strength", type=number(), default=0.2, help="displacement of noise01 - midlevel = 1")
    displace.add_argument("--midlevel", type=number(), default=0.5, help="noise value (0..1) that stays in place")
    displace.add_argument("--direction", choices=("normal", "x", "y", "z"), default="normal", help="move along")
    displace.add_argument("--space", choices=("local", "world"), default="local", help="coordinates noise is read in")
    displace.add_argument("--vertex-group", default="", help="scale by this vertex group's weights")
    displace.add_argument("--shape-key", metavar="NAME", help="write into a new shape key instead of the mesh")


def _open_scene(parser: argparse.ArgumentParser, path: Path | None) -> None:
    if path is not None:
        if not path.is_file():
            parser.error(f"--open: no such file {str(path)!r}")
        try:
            bpy.ops.wm.open_mainfile(filepath=str(path.resolve()))
        except RuntimeError as error:
            parser.error(f"--open: Blender cannot open {str(path)!r} as a .blend file ({str(error).strip()})")
    elif not bpy.data.filepath:
        bpy.ops.wm.read_homefile(use_empty=True)


def _select_only(parser: argparse.ArgumentParser, names: Sequence[str]) -> None:
    missing = [name for name in names if name not in bpy.data.objects]
    if missing:
        parser.error(f"--objects: no object named {', '.join(map(repr, missing))} in the scene")
    view_layer = bpy.context.view_layer
    for obj in view_layer.objects:
        obj.select_set(obj.name in names)
    view_layer.objects.active = bpy.data.objects[names[0]]


TERRAIN_DEFAULTS = {"subdivisions": 256, "size": 2.0, "height": 0.5, "falloff": "none", "falloff_width": 0.3}
"""The terrain options' values when neither they nor a recipe give them."""


def _shape(args: argparse.Namespace, defaults: dict) -> dict:
    """``add_terrain``'s grid arguments from the options given (``defaults`` for those not given)."""
    values = {name: getattr(args, name) for name in TERRAIN_DEFAULTS if getattr(args, name) is not None}
    values = {**defaults, **values}
    shape = {key: value for key, value in values.items() if key != "subdivisions"}
    if "falloff" in shape:
        shape["falloff"] = shape["falloff"].upper()
    if "subdivisions" in values:
        shape["x_subdivisions"] = shape["y_subdivisions"] = values["subdivisions"]
    return shape


def _add_recipe_terrain(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Add the terrain of ``--preset`` or ``--recipe``, the grid options given replacing the recipe's; a noise
    option given too is refused (the recipe holds the noise: edit the recipe)."""
    noise = [prop.identifier for prop in addon._noise_properties() if hasattr(args, prop.identifier)]
    if noise:
        flag = "--" + noise[0].replace("_", "-")
        parser.error(f"{flag}: the noise comes from --preset/--recipe; edit the recipe instead")
    if args.recipe is not None and not args.recipe.is_file():
        parser.error(f"--recipe: no such file {str(args.recipe)!r}")
    package = addon.addon_package()
    source = {"preset": args.preset} if args.preset is not None else {"recipe": str(args.recipe.resolve())}
    with addon.step(f"adding the terrain of {args.preset or args.recipe}"):
        try:
            package.api.add_terrain(bpy.context, **source, **_shape(args, {}))
        except package.errors.UserError as error:
            message = str(error)
            if message.startswith(("preset:", "recipe:")):
                parser.error(f"--{message}")
            raise addon.AddonError(f"add_terrain: {message}") from None


def make(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Build or displace the meshes described by ``args`` and save the .blend."""
    out = addon.output_file(parser, "--out", args.out, (".blend",))
    _open_scene(parser, args.open)
    if args.preset is None and args.recipe is None:
        addon.apply_noise_arguments(parser, args)
    if args.objects and (args.preset is not None or args.recipe is not None):
        parser.error("--preset: a preset or recipe adds a terrain; it is not used with --objects")
    if args.objects:
        _select_only(parser, args.objects)
        with addon.step(f"displacing {', '.join(args.objects)}"):
            addon.run_api(
                "displace",
                objects=[bpy.data.objects[name] for name in args.objects],
                strength=args.strength,
                midlevel=args.midlevel,
                direction=args.direction.upper(),
                space=args.space.upper(),
                vertex_group=args.vertex_group,
                shape_key=args.shape_key,
            )
    elif args.preset is not None or args.recipe is not None:
        _add_recipe_terrain(parser, args)
    else:
        subdivisions = TERRAIN_DEFAULTS["subdivisions"] if args.subdivisions is None else args.subdivisions
        with addon.step(f"adding a {subdivisions}x{subdivisions} terrain"):
            addon.run_api("add_terrain", **_shape(args, TERRAIN_DEFAULTS))
    addon.save_blend(out)
    print(f"saved {out}")


def main(argv: Sequence[str] | None = None) -> int:
    parser, args = addon.parse_arguments(__doc__.split("\n\n")[0], _add_arguments, argv)
    try:
        make(parser, args)
    except addon.AddonError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
