"""Convert Blender preset files (``terrain.<setting> = <literal>`` lines, as Blender's ``AddPresetBase`` writes
them for a Noise Terrain) into terrain recipe files (``noise_core.terrain.recipe``), one ``NAME.json`` per
``NAME.py``. Re-runnable: each run rewrites the recipes from the preset files it is given.

    python -m scripts.presets_to_recipes my_presets/*.py --out noise_core/terrain/presets

The grid's subdivisions become ``export.samples`` (subdivisions + 1; both must be equal), the noise properties
the ``noise`` section (only the options that apply to the kind, as the add-on's ``to_spec`` reads them), the
noise-space properties ``noise.domain``, and the switched-on erosion stages ``stages`` in the add-on's order:
rivers (``terrain.fluvial``), droplets and thermal (``terrain.erosion``).
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path
from types import SimpleNamespace

from noise_core.registry import COMMON_OPTIONS, kind_info, options_by_name
from noise_core.terrain.recipe import DOMAIN_OPTIONS, STAGES, TERRAIN_OPTIONS, from_dict, write_recipe

STAGE_SWITCHES = (
    ("fluvial", "fluvial", "rivers"),
    ("erosion", "hydraulic", "droplets"),
    ("erosion", "thermal", "thermal"),
)
"""(settings group, switch property, recipe stage), in the order the add-on runs them."""


def assignments(path: Path) -> dict[tuple[str, ...], object]:
    """``{("noise", "seed"): 11, ("size",): 2.0, ...}``: each ``terrain.<path> = <literal>`` of the file."""
    found: dict[tuple[str, ...], object] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        names: list[str] = []
        target = node.targets[0]
        while isinstance(target, ast.Attribute):
            names.insert(0, target.attr)
            target = target.value
        if isinstance(target, ast.Name) and target.id == "terrain" and names:
            found[tuple(names)] = ast.literal_eval(node.value)
    return found


def record_of(values: dict[tuple[str, ...], object], name: str) -> dict:
    """The recipe record (``recipe.from_dict``'s input) of one preset's assignments."""
    across, down = values[("x_subdivisions",)], values[("y_subdivisions",)]
    if across != down:
        raise ValueError(f"{name}: x_subdivisions {across} and y_subdivisions {down} differ; a recipe is square")
    record: dict = {"version": 1}
    record.update({option.name: values[(option.name,)] for option in TERRAIN_OPTIONS if (option.name,) in values})
    noise_props = {key[1]: value for key, value in values.items() if len(key) == 2 and key[0] == "noise"}
    settings = SimpleNamespace(**noise_props)
    noise: dict = {}
    for option in (*COMMON_OPTIONS, *kind_info(str(noise_props["kind"])).options):
        prop = option.addon_name or option.name
        if prop not in noise_props or (option.requires is not None and not option.requires.holds(settings)):
            continue
        value = noise_props[prop]
        if option.type is tuple:  # a text property of numbers: blank is unset
            words = str(value).replace(",", " ").split()
            if not words:
                continue
            value = [float(word) for word in words]
        noise[option.name] = value
    domain = {option.name: noise_props[option.name] for option in DOMAIN_OPTIONS if option.name in noise_props}
    if "dimensions" in domain:
        domain["dimensions"] = int(str(domain["dimensions"]))
    record["noise"] = {**noise, "domain": domain}
    stages = []
    for group, switch, stage in STAGE_SWITCHES:
        if values.get((group, switch)):
            options = {option.name: values[(group, option.name)] for option in STAGES[stage].options
                       if (group, option.name) in values}  # fmt: skip
            stages.append({"stage": stage, **options})
    record["stages"] = stages
    record["export"] = {"samples": int(across) + 1}
    _refuse_unknown(values, name)
    return record


def _refuse_unknown(values: dict[tuple[str, ...], object], name: str) -> None:
    """``ValueError`` naming the first setting of the preset no part of a recipe holds: nothing is dropped
    silently (a noise option that does not apply to the kind is left out, as the add-on's ``to_spec`` does)."""
    known = {("x_subdivisions",), ("y_subdivisions",), *((option.name,) for option in TERRAIN_OPTIONS)}
    known |= {("noise", option.addon_name or option.name) for option in options_by_name().values()}
    known |= {("noise", option.name) for option in DOMAIN_OPTIONS}
    for group, switch, stage in STAGE_SWITCHES:
        known |= {(group, switch), *((group, option.name) for option in STAGES[stage].options)}
    for key in values:
        if key not in known:
            raise ValueError(f"{name}: terrain.{'.'.join(key)} is no setting a recipe holds; add it to a stage's rows")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("presets", type=Path, nargs="+", help="Blender preset files (NAME.py)")
    parser.add_argument("--out", type=Path, required=True, help="folder of the recipe files (NAME.json)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for path in args.presets:
        recipe = from_dict(record_of(assignments(path), path.name), path.name)
        target = write_recipe(recipe, args.out / f"{path.stem}.json")
        print(f"{path} -> {target} ({len(recipe.stages)} stages)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
