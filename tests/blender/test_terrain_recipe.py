"""One terrain recipe everywhere: the command line's heights for a preset equal, float32 bit for bit, the Blender
terrain made with that preset and what its Export Heightmap writes; erosion applied by an operator to a Noise
Terrain becomes a stage of its recipe, so an export at another resolution keeps it (or is refused, naming it)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from noise_core.cli.main import main

from .conftest import scene_state

pytestmark = pytest.mark.blender

N = 17
"""Samples per side: small, so the tests are cheap."""


def _library(addon):
    """The add-on's own ``noise_core.terrain.recipe`` (its records are that copy's classes)."""
    return addon.noise_core.terrain.recipe


def _z(obj) -> np.ndarray:
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    return flat.reshape(-1, 3)[:, 2]


def _r32(path) -> tuple[np.ndarray, dict]:
    sidecar = json.loads(path.with_name(path.name + ".json").read_text())
    return np.fromfile(path, dtype="<f4").reshape(sidecar["height"], sidecar["width"]), sidecar


@pytest.mark.parametrize("preset", ["alpine_ridges", "river_valleys"])
def test_cli_heights_equal_the_blender_terrain_and_its_export(bpy_empty, addon, tmp_path, capsys, preset):
    bpy = bpy_empty
    library = _library(addon)
    assert main(["terrain", "--preset", preset, "--size", str(N), "--out", str(tmp_path / "cli.r32")]) == 0
    capsys.readouterr()
    obj = addon.api.add_terrain(bpy.context, preset=preset, x_subdivisions=N - 1, y_subdivisions=N - 1)
    heights = library.build_heights(library.read_preset(preset), N)
    assert heights.dtype == np.float32
    np.testing.assert_array_equal(_z(obj), heights.ravel())  # float32, bit for bit
    assert _z(obj).tobytes() == heights.tobytes()
    addon.api.export_heightmap(bpy.context, obj, str(tmp_path / "blender.r32"))  # its own grid
    addon.api.export_heightmap(bpy.context, obj, str(tmp_path / "again.r32"), resolution=N)  # rebuilt at N
    cli, cli_sidecar = _r32(tmp_path / "cli.r32")
    for name in ("blender.r32", "again.r32"):
        values, sidecar = _r32(tmp_path / name)
        assert values.tobytes() == cli.tobytes(), name
        assert sidecar["height_range"] == cli_sidecar["height_range"], name
    size = float(library.read_preset(preset).size)
    assert cli_sidecar["cell_size"] == {"x": size / (N - 1), "y": size / (N - 1)}
    assert tuple(cli_sidecar["height_range"]) == (float(heights.min()), float(heights.max()))


def test_erosion_by_an_operator_is_kept_by_an_export_at_another_resolution(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    library = _library(addon)
    obj = addon.api.add_terrain(bpy.context, preset="alpine_ridges", x_subdivisions=N - 1, y_subdivisions=N - 1)
    before = _z(obj).copy()
    # at 17 samples over 58 km (3.6 km cells) the steepest slope is about 14 degrees
    addon.api.erode(bpy.context, obj, thermal={"talus_angle": 5.0, "iterations": 8})
    assert not np.array_equal(_z(obj), before)
    recalled = addon.terrain_settings.recall(obj)
    assert [stage.kind for stage in recalled.extra] == ["thermal"]
    assert recalled.extra[0].options["talus_angle"] == 5.0
    recipe = addon.terrain_recipe.library_recipe(recalled)
    preset_stages = [stage.kind for stage in library.read_preset("alpine_ridges").stages]
    assert [stage.kind for stage in recipe.stages] == [*preset_stages, "thermal"]  # the preset's, then the applied
    other = 2 * N - 1
    addon.api.export_heightmap(bpy.context, obj, str(tmp_path / "eroded.r32"), resolution=other)
    values, sidecar = _r32(tmp_path / "eroded.r32")
    expected, height_range = addon.noise_core.io.heightmaps.normalize(
        library.build_heights(recipe, other)[::-1].astype(np.float64)
    )
    assert values.tobytes() == expected.tobytes()  # the recipe's build, erosion included
    assert tuple(sidecar["height_range"]) == height_range
    unperturbed = library.build_heights(library.read_preset("alpine_ridges"), other)
    assert not np.array_equal(unperturbed[::-1], expected)  # the erosion is not lost
    addon.api.regenerate_terrain(bpy.context, obj)  # Regenerate replays it too
    assert not np.array_equal(_z(obj), before)


def test_an_edit_a_recipe_cannot_replay_refuses_the_export_naming_it(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = addon.api.add_terrain(bpy.context, preset="alpine_ridges", x_subdivisions=N - 1, y_subdivisions=N - 1)
    group = obj.vertex_groups.new(name="rise")
    group.add(list(range(len(obj.data.vertices))), 0.5, "REPLACE")
    addon.api.erode_fluvial_mesh(bpy.context, obj, steps=2, uplift_group="rise")
    with pytest.raises(addon.api.UserError, match=r"^resolution: .*Erode Terrain \(Rivers\) with uplift_group"):
        addon.api.export_heightmap(bpy.context, obj, str(tmp_path / "lost.r32"), resolution=2 * N - 1)
    assert not (tmp_path / "lost.r32").exists()
    addon.api.export_heightmap(bpy.context, obj, str(tmp_path / "own.r32"))  # its own grid: the mesh as it is
    values, _sidecar = _r32(tmp_path / "own.r32")
    assert values.shape == (N, N)


def test_a_terrain_saves_and_loads_its_recipe(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    library = _library(addon)
    obj = addon.api.add_terrain(bpy.context, preset="stylised_dunes", x_subdivisions=8, y_subdivisions=8, height=0.25)
    addon.api.terrain_water(obj, rain=2.0, surface=False)  # Object > Terrain Water: part of its recipe
    bpy.context.view_layer.objects.active = obj
    path = tmp_path / "mine.json"
    assert bpy.ops.noisewright.save_terrain_recipe(filepath=str(path)) == {"FINISHED"}
    saved = library.read_recipe(path)
    assert saved.height == 0.25 and saved.export["samples"] == 9 and saved.water["rain"] == 2.0
    other = addon.api.add_terrain(bpy.context, preset="stylised_islands", x_subdivisions=4, y_subdivisions=4)
    bpy.context.view_layer.objects.active = other
    assert bpy.ops.noisewright.load_terrain_recipe(filepath=str(path)) == {"FINISHED"}
    assert addon.terrain_settings.recall(other) == addon.terrain_settings.recall(obj)
    assert _z(other).tobytes() == _z(obj).tobytes()
    assert json.loads(other[addon.terrain_water.RECORD])["rain"] == 2.0  # its water is made with it
    assert "water_level" in other.data.attributes
    made = addon.api.add_terrain(bpy.context, recipe=str(path))
    assert _z(made).tobytes() == _z(obj).tobytes()


def test_add_terrain_names_a_bad_preset(bpy_empty, addon):
    with pytest.raises(addon.api.UserError, match=r"^preset: no preset 'alpine'; the presets: alpine_ridges"):
        addon.api.add_terrain(bpy_empty.context, preset="alpine")
    with pytest.raises(addon.api.UserError, match=r"^spec: give a NoiseSpec"):
        addon.api.add_terrain(bpy_empty.context)


def test_displace_on_a_terrain_is_named_when_an_export_would_lose_it(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = addon.api.add_terrain(bpy.context, preset="stylised_dunes", x_subdivisions=8, y_subdivisions=8)
    addon.api.displace(bpy.context, [obj], addon.api.NoiseSpec(), strength=0.1, direction="Z")
    with pytest.raises(addon.api.UserError, match=r"^resolution: 'Noise Terrain' was changed by Displace"):
        addon.api.export_heightmap(bpy.context, obj, str(tmp_path / "lost.r32"), resolution=17)
    bpy.context.view_layer.objects.active = obj
    with pytest.raises(RuntimeError, match=r"changed by Displace, which a recipe cannot hold"):
        bpy.ops.noisewright.save_terrain_recipe(filepath=str(tmp_path / "lost.json"))
    addon.api.regenerate_terrain(bpy.context, obj)  # the mesh is its recipe's again
    addon.api.export_heightmap(bpy.context, obj, str(tmp_path / "kept.r32"), resolution=17)


def test_live_previews_reduce_the_droplet_stages_operators_applied(bpy_empty, addon):
    library = _library(addon)
    shape = {"x_subdivisions": 8, "y_subdivisions": 8, "size": 2.0, "height": 0.5}
    applied = library.Stage.of("droplets", {"droplets": 500})
    recipe = addon.terrain_recipe.TerrainRecipe(
        addon.api.NoiseSpec(), addon.api.Domain(), shape, hydraulic=library.Stage.of("droplets", {}).options,
        extra=(library.Stage.of("thermal", {}), applied),
    )  # fmt: skip
    assert addon.live_preview.droplets(recipe) == round(0.5 * 81) + 500
    fewer = addon.live_preview._fewer(recipe, 0.1)
    assert fewer.hydraulic["droplets"] == 4 and fewer.extra[1].options["droplets"] == 50
    assert fewer.extra[0] == recipe.extra[0]


def _builds(addon, monkeypatch) -> list[tuple[int, int]]:
    """The grids (samples across, down) of the terrains built from here on (``terrain_recipe.build_terrain``,
    which every Noise Terrain's heights go through)."""
    built: list[tuple[int, int]] = []
    build = addon.terrain_recipe.build_terrain

    def counted(recipe, across, down, **keywords):
        built.append((across, down))
        return build(recipe, across, down, **keywords)

    monkeypatch.setattr(addon.terrain_recipe, "build_terrain", counted)
    return built


def _points(obj) -> bytes:
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    return flat.tobytes()


def test_add_terrain_builds_its_preset_once(bpy_empty, addon, monkeypatch):
    """Add > Mesh > Noise Terrain with a preset builds the preset's terrain once, on the preset's grid (not plain
    noise on the operator's grid first, then the preset over it): the command line's heights of the preset."""
    bpy = bpy_empty
    library = _library(addon)
    built = _builds(addon, monkeypatch)
    assert bpy.ops.noisewright.add_terrain(preset="stylised_dunes") == {"FINISHED"}
    assert built == [(257, 257)]
    obj = bpy.context.active_object
    settings = obj.noisewright_terrain
    assert (obj.name, settings.x_subdivisions, settings.y_subdivisions) == ("Noise Terrain", 256, 256)
    assert _z(obj).tobytes() == library.build_heights(library.read_preset("stylised_dunes"), 257).tobytes()


def test_add_terrain_with_a_preset_is_the_preset_applied_with_its_water(bpy_empty, addon, monkeypatch, tmp_path):
    """A preset with water, added in one build: its terrain, settings and water are those of the same preset applied
    to a Noise Terrain (the panel's preset menu), which builds the terrain again."""
    bpy = bpy_empty
    recipe = json.loads((addon.terrain.PRESETS / "stylised_dunes.json").read_text())
    recipe["export"]["samples"] = 65
    recipe["water"] = {}
    (tmp_path / "stylised_dunes.json").write_text(json.dumps(recipe))
    monkeypatch.setattr(addon.terrain, "PRESETS", tmp_path)
    built = _builds(addon, monkeypatch)
    assert bpy.ops.noisewright.add_terrain(preset="stylised_dunes") == {"FINISHED"}
    assert built == [(65, 65)]
    added = bpy.context.active_object
    applied = addon.api.add_terrain(bpy.context, addon.api.NoiseSpec(), x_subdivisions=4, y_subdivisions=4)
    addon.terrain_presets.apply_preset(bpy.context, applied, tmp_path / "stylised_dunes.json")
    assert built == [(65, 65), (5, 5), (65, 65)]
    snapshot, record = addon.terrain_settings.snapshot, addon.terrain_water.RECORD
    assert snapshot(added.noisewright_terrain) == snapshot(applied.noisewright_terrain)
    assert added[record] == applied[record]
    assert _points(added) == _points(applied) and added.data.uv_layers.keys() == applied.data.uv_layers.keys()
    assert sorted(added.data.attributes.keys()) == sorted(applied.data.attributes.keys())
    for suffix in ("Water", "Rivers"):
        mine, theirs = bpy.data.objects[f"{added.name} {suffix}"], bpy.data.objects[f"{applied.name} {suffix}"]
        assert mine.parent == added and theirs.parent == applied
        if suffix == "Water":
            assert len(mine.data.vertices) > 0 and _points(mine) == _points(theirs)
        else:
            assert len(mine.data.splines) == len(theirs.data.splines) > 0


def test_add_terrain_with_a_bad_preset_builds_nothing_and_leaves_the_scene(bpy_empty, addon, monkeypatch, tmp_path):
    bpy = bpy_empty
    recipe = json.loads((addon.terrain.PRESETS / "stylised_dunes.json").read_text())
    (tmp_path / "stylised_dunes.json").write_text(json.dumps(recipe).replace('"height": -0.18', '"height": 1e400'))
    monkeypatch.setattr(addon.terrain, "PRESETS", tmp_path)
    built = _builds(addon, monkeypatch)
    before = scene_state(bpy)
    with pytest.raises(RuntimeError, match=r"filepath: stylised_dunes\.json\.height: must be a finite number"):
        bpy.ops.noisewright.add_terrain(preset="stylised_dunes")
    assert built == [] and scene_state(bpy) == before
