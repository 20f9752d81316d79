"""Terrain recipes (``noise_core.terrain.recipe``): files that round-trip, refuse unknown keys and bad values by
their path, check their version; ``build_terrain``; ``python -m noise_core terrain`` end to end at small sizes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noise_core as nc
from noise_core.api import evaluate_lattice
from noise_core.cli import main
from noise_core.domain import Domain
from noise_core.io import heightmaps
from noise_core.ranges import to_unit
from noise_core.terrain import recipe as rc

FLOAT32 = st.floats(-1e4, 1e4, allow_nan=False, width=32)


def _option_value(option):
    """A strategy of values the ``schema.Option`` row ``option`` accepts."""
    if option.type is bool:
        return st.booleans()
    if option.choices:
        return st.sampled_from(option.choices)
    low = option.minimum if option.minimum is not None else -1e4
    high = option.maximum if option.maximum is not None else 1e4
    if option.type is int:
        return st.integers(math.ceil(low) + option.above, int(min(high, low + 1000)))
    return st.floats(low, min(high, 1e6), allow_nan=False).map(_f32).filter(lambda value: _accepts(option, value))


def _f32(value: float) -> float:
    return float(np.float32(value))


def _accepts(option, value) -> bool:
    try:
        option.check(value)
    except ValueError:
        return False
    return True


stages = st.sampled_from(sorted(rc.STAGES)).flatmap(
    lambda kind: st.fixed_dictionaries(
        {option.name: _option_value(option) for option in rc.STAGES[kind].options[:4]}
    ).map(lambda options, kind=kind: rc.Stage.of(kind, options))
)
recipes = st.builds(
    rc.recipe,
    noise=st.builds(
        nc.NoiseSpec,
        kind=st.sampled_from(["perlin", "value", "simplex", "voronoi"]),
        seed=st.integers(-(2**31), 2**31 - 1),
        frequency=st.floats(0.01, 100.0).map(_f32),
        octaves=st.integers(1, 8),
    ),
    domain=st.builds(Domain, offset=st.tuples(FLOAT32, FLOAT32, FLOAT32), dimensions=st.sampled_from([2, 3])),
    size=st.floats(0.01, 1e5).map(_f32),
    height=FLOAT32,
    offset=st.tuples(FLOAT32, FLOAT32),
    falloff=st.sampled_from(["NONE", "X", "Y", "RADIAL"]),
    stages=st.lists(stages, max_size=3),
    maps=st.lists(st.sampled_from(["slope", "aspect", "flow"]), max_size=2, unique=True),
    water=st.none() | st.fixed_dictionaries({"rain": st.floats(0.0, 100.0).map(_f32), "flow_blur": st.integers(0, 8)}),
)


@settings(max_examples=40, deadline=None)
@given(recipes)
def test_a_recipe_round_trips_through_its_file(tmp_path_factory, recipe: rc.Recipe) -> None:
    assert rc.from_dict(json.loads(json.dumps(rc.to_dict(recipe)))) == recipe
    path = tmp_path_factory.mktemp("recipe") / "r.json"
    rc.write_recipe(recipe, path)
    assert rc.read_recipe(path) == recipe
    assert json.loads(path.read_text())["version"] == rc.VERSION


def test_the_export_engine_is_read_in_any_case() -> None:
    assert rc.from_dict({"version": 1, "export": {"engine": "Unreal"}}).export["engine"] == "unreal"


def test_numbers_are_kept_as_float32() -> None:
    made = rc.recipe(height=0.45, stages=[{"stage": "thermal", "rate": 0.1}])
    assert made.height == float(np.float32(0.45)) != 0.45
    assert made.stages[0].options["rate"] == float(np.float32(0.1))
    assert rc.to_dict(made)["height"] == 0.45  # written as the shortest text float32 reads back the same


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"heigth": 1.0}, r"^recipe\.heigth: unknown key; the keys: version, size, height"),
        ({"noise": {"kind": "perlin", "octavs": 3}}, r"^recipe\.noise\.octavs: unknown key"),
        ({"noise": {"domain": {"scales": [1, 1, 1]}}}, r"^recipe\.noise\.domain\.scales: unknown key"),
        ({"stages": [{"stage": "thermal", "talus": 30}]}, r"^recipe\.stages\[0\]\.talus: not an option of stage"),
        ({"stages": [{"stage": "thermal"}, {"stage": "landslide"}]}, r"^recipe\.stages\[1\]: no stage 'landslide'"),
        ({"stages": [{"stage": "thermal", "talus_angle": 120}]}, r"^recipe\.stages\[0\]\.talus_angle: must be"),
        ({"stages": [{"stage": "rivers", "boundary": "open"}]}, r"^recipe\.stages\[0\]\.boundary: 'open'"),
        ({"stages": [{"stage": "rivers", "valley_floor": 9}]}, r"^recipe\.stages\[0\]\.valley_floor: must be"),
        ({"stages": [{"stage": "rivers", "valley_floor_area": 0}]}, r"^recipe\.stages\[0\]\.valley_floor_area: must"),
        ({"stages": [{"stage": "rivers", "trunk_fill": 11}]}, r"^recipe\.stages\[0\]\.trunk_fill: must be"),
        ({"stages": [{"stage": "rivers", "trunk_fill_area": 0}]}, r"^recipe\.stages\[0\]\.trunk_fill_area: must"),
        ({"stages": [{"stage": "rivers", "glacier_depth": -1}]}, r"^recipe\.stages\[0\]\.glacier_depth: must be"),
        ({"stages": [{"stage": "rivers", "glacier_area": 0}]}, r"^recipe\.stages\[0\]\.glacier_area: must"),
        ({"export": {"engine": "cryengine"}}, r"^recipe\.export\.engine: 'cryengine'"),
        ({"export": {"sample": 9}}, r"^recipe\.export\.sample: unknown key"),
        ({"size": -2.0}, r"^recipe\.size: must be > 0"),
        ({"falloff": "SQUARE"}, r"^recipe\.falloff: 'SQUARE'"),
        ({"noise": {"octaves": 99}}, r"^recipe\.noise\.octaves"),
        ({"base": {"blend": "ADD", "files": "x.png"}}, r"^recipe\.base\.files: unknown key"),
        ({"maps": ["slope", "steepness"]}, r"^recipe\.maps: expected a list of map names"),
        ({"splat": [{"name": "rock", "colour": 1}]}, r"^recipe\.splat: layers\[0\]\.colour"),
        ({"water": {"rain": -1.0}}, r"^recipe\.water\.rain: must be between 0"),
        ({"water": {"snow": 1.0}}, r"^recipe\.water\.snow: unknown key"),
    ],
)
def test_unknown_keys_and_bad_values_are_refused_by_their_path(change: dict, message: str) -> None:
    record = {**rc.to_dict(rc.Recipe()), **change}
    with pytest.raises((ValueError, TypeError), match=message):
        rc.from_dict(record)


@pytest.mark.parametrize(("version", "message"), [(None, "missing"), (2, "2 is not 1"), ("1", "'1' is not 1")])
def test_the_version_is_checked(version, message: str) -> None:
    record = rc.to_dict(rc.Recipe())
    if version is None:
        del record["version"]
    else:
        record["version"] = version
    with pytest.raises(ValueError, match=rf"^recipe\.version: {message}"):
        rc.from_dict(record)


def test_a_bad_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{ nope")
    with pytest.raises(ValueError, match=r"^path: .*bad\.json' is not JSON"):
        rc.read_recipe(tmp_path / "bad.json")
    (tmp_path / "keys.json").write_text(json.dumps({"version": 1, "colour": 3}))
    with pytest.raises(ValueError, match=r"^keys\.json\.colour: unknown key"):
        rc.read_recipe(tmp_path / "keys.json")
    with pytest.raises(ValueError, match=r"^preset: no preset 'alpine'; the presets: alpine_ridges, "):
        rc.read_preset("alpine")


def test_every_shipped_preset_is_a_valid_recipe() -> None:
    names = rc.preset_names()
    assert len(names) >= 9 and "alpine_ridges" in names
    for name in names:
        recipe = rc.read_preset(name)
        assert rc.from_dict(rc.to_dict(recipe)) == recipe
        assert recipe.export["samples"] >= 2


def test_the_heights_are_the_noise_times_height_with_falloff() -> None:
    spec = nc.NoiseSpec(kind="perlin", octaves=3, seed=7)
    made = rc.recipe(spec, Domain(offset=(0.5, 0.25, 0.0), dimensions=2), size=4.0, height=3.0, falloff="X")
    heights = rc.build_terrain(made, 9).heights
    xs = np.linspace(-2.0, 2.0, 9)
    noise = evaluate_lattice(made.noise, xs + 0.5, xs + 0.25)
    factor = rc.edge_factor(xs[None, :], xs[:, None], 4.0, "X", made.falloff_width)
    np.testing.assert_array_equal(heights, to_unit(made.noise, noise) * made.height * factor)
    assert factor[:, 0].max() == 0.0 and heights[:, 0].max() == 0.0  # the X edges come down to 0


def test_stages_run_in_order_and_report_progress() -> None:
    made = rc.recipe(nc.NoiseSpec(octaves=2), Domain(dimensions=2),
                     stages=[{"stage": "thermal", "talus_angle": 10.0, "iterations": 3}])  # fmt: skip
    seen = []
    built = rc.build_terrain(made, 17, progress=lambda stage, done, total: seen.append((stage, done, total)))
    plain = rc.build_terrain(rc.recipe(made.noise, made.domain), 17).heights
    assert seen[0] == ("noise", 0, 17 * 17) and seen[-1] == ("thermal", 1, 1)
    assert not np.array_equal(built.heights, plain)
    assert built.erosion is not None and built.erosion.max() > 0
    np.testing.assert_allclose(built.heights.sum(), plain.sum(), rtol=1e-5)  # thermal erosion moves material

    def cancel(stage, done, total):
        if stage == "thermal":
            raise rc.Cancelled

    with pytest.raises(rc.Cancelled):
        rc.build_terrain(made, 17, progress=cancel)


def _sidecar(path: Path) -> dict:
    return json.loads(heightmaps.sidecar_path(path).read_text())


@pytest.mark.parametrize("suffix", [".r16", ".raw", ".r32", ".png", ".exr", ".tif"])
def test_cli_writes_every_heightmap_format_with_its_sidecar(tmp_path: Path, capsys, suffix: str) -> None:
    out = tmp_path / "new" / f"land{suffix}"  # the folder is made
    assert main(["terrain", "--preset", "stylised_dunes", "--size", "17", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    assert "terrain: noise 100%" in printed.err
    heights = rc.build_heights(rc.read_preset("stylised_dunes"), 17)[::-1]
    sidecar = _sidecar(out)
    low, high = sidecar["height_range"]
    assert (low, high) == (float(heights.min()), float(heights.max())) and sidecar["height_unit"] == "m"
    assert sidecar["cell_size"] == {"x": 2.0 / 16, "y": 2.0 / 16}
    assert rc.from_dict(sidecar["settings"]) == rc.read_preset("stylised_dunes")
    values = heightmaps.read_heightmap(out).values
    exact = suffix in (".r32", ".exr", ".tif")
    tolerance = 1e-7 if exact else 0.5 / 65535 + 1e-7
    np.testing.assert_allclose(values, (heights - low) / (high - low), atol=tolerance)


@pytest.mark.parametrize(
    ("engine", "size", "tile", "tiles"), [("Unreal", 127, 63, 4), ("UNITY", 65, 32, 4), ("godot", 128, 64, 4)]
)
def test_cli_engine_tiles(tmp_path: Path, capsys, engine: str, size: int, tile: int, tiles: int) -> None:
    out = tmp_path / "land.r16"
    arguments = ["terrain", "--preset", "stylised_dunes", "--size", str(size), "--engine", engine, "--tile", str(tile)]
    assert main([*arguments, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {tiles} tiles" in printed
    assert len(list(tmp_path.glob("land*.r16"))) == tiles
    if engine == "Unreal":
        assert "Z scale: " in printed
    assert heightmaps.read_heightmap(out).values.shape == (size, size)


def test_cli_names_a_bad_recipe_file(tmp_path: Path, capsys) -> None:
    (tmp_path / "typo.json").write_text(json.dumps({"version": 1, "heigth": 3}))
    for name, message in (("missing.json", "cannot read the recipe"), ("typo.json", "typo.json.heigth: unknown key")):
        with pytest.raises(SystemExit):
            main(["terrain", "--recipe", str(tmp_path / name), "--out", str(tmp_path / "a.r16")])
        assert f"error: --recipe: {message}" in capsys.readouterr().err.replace(str(tmp_path / name), name)


def test_cli_unreal_size_is_checked_before_any_work(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        main(
            [
                "terrain",
                "--preset",
                "stylised_dunes",
                "--size",
                "100",
                "--engine",
                "unreal",
                "--out",
                str(tmp_path / "a.r16"),
            ]
        )
    assert "Unreal Engine does not take 100x100" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_cli_recipe_file_maps_and_saved_recipe(tmp_path: Path, capsys) -> None:
    recipe = tmp_path / "mine.json"
    rc.write_recipe(rc.recipe(nc.NoiseSpec(octaves=3), Domain(dimensions=2), size=100.0, height=20.0), recipe)
    out = tmp_path / "mine.r32"
    assert main(["terrain", "--recipe", str(recipe), "--size", "9", "--out", str(out), "--maps", "slope,aspect",
                 "--save-recipe", str(tmp_path / "used.json")]) == 0  # fmt: skip
    capsys.readouterr()
    assert (tmp_path / "mine_slope.png").is_file() and (tmp_path / "mine_aspect.png").is_file()
    assert rc.read_recipe(tmp_path / "used.json") == rc.read_recipe(recipe)
    assert _sidecar(out)["cell_size"] == {"x": 12.5, "y": 12.5}


def test_cli_writes_the_recipe_s_water(tmp_path: Path, capsys) -> None:
    recipe = tmp_path / "wet.json"
    dunes = rc.read_preset("stylised_dunes")
    rc.write_recipe(rc.recipe(dunes.noise, dunes.domain, water={"rain": 2.0}), recipe)
    out = tmp_path / "wet.r32"
    assert main(["terrain", "--recipe", str(recipe), "--size", "17", "--out", str(out)]) == 0
    capsys.readouterr()
    level = heightmaps.read_heightmap(tmp_path / "wet_water.r32")
    heights = heightmaps.read_heightmap(out)
    assert level.sidecar["height_range"] == heights.sidecar["height_range"]
    assert (level.values >= heights.values).all()  # the water level is never below the ground
    assert (tmp_path / "wet_flow.png").is_file()
