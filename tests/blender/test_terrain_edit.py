"""Re-editable Noise Terrains (``api.regenerate_terrain``, the object's settings) and terrain presets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from .conftest import scene_state

pytestmark = pytest.mark.blender


def _positions(obj) -> np.ndarray:
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    return flat.reshape(-1, 3)


def _terrain(bpy, addon, **shape):
    spec = addon.api.NoiseSpec(kind="perlin", octaves=3, seed=4)
    arguments = {"x_subdivisions": 12, "y_subdivisions": 8, "size": 3.0, "height": 0.75, **shape}
    return addon.api.add_terrain(bpy.context, spec, addon.api.Domain(offset=(0.125, 0.25, 0.375)), **arguments)


def test_a_terrain_remembers_what_it_was_built_from(bpy_empty, addon):
    obj = _terrain(bpy_empty, addon, falloff="RADIAL", offset=(0.25, -1.0))
    recipe = addon.terrain_settings.recall(obj)
    assert isinstance(recipe, addon.terrain_recipe.TerrainRecipe)
    spec, domain, shape = recipe.spec, recipe.domain, recipe.shape
    assert recipe.hydraulic is None and recipe.thermal is None and recipe.fluvial is None
    assert spec == addon.api.NoiseSpec(kind="perlin", octaves=3, seed=4)
    assert domain == addon.api.Domain(offset=(0.125, 0.25, 0.375))
    assert shape == {
        "x_subdivisions": 12,
        "y_subdivisions": 8,
        "size": 3.0,
        "height": 0.75,
        "offset": (0.25, -1.0),
        "falloff": "RADIAL",
        "falloff_width": pytest.approx(0.3),
        **{"base_blend": "NONE", "base_file": "", "base_low": 0.0, "base_high": 1.0},  # no base heightmap
    }
    assert addon.api.is_terrain(obj)


def test_every_spec_field_round_trips_through_the_settings(bpy_empty, addon):
    settings = bpy_empty.context.scene.noisewright
    NoiseSpec = addon.api.NoiseSpec
    for spec in (
        NoiseSpec(kind="hill", sizes=(1.0, 0.3333333333333333), distribution="weibull", alpha=2.0, beta=0.5),
        NoiseSpec(kind="voronoi", distance="manhattan", function="f2", jitter=0.5, tiling=True, frequency=3.0),
        NoiseSpec(kind="cellular", density=2.5, octaves=4, fractal="ridged", offset=1.0, gain=2.0),
        NoiseSpec(warp="progressive", warp_kind="value", warp_amplitude=0.375, warp_octaves=2, turbulence=True),
    ):
        addon.mapping.from_spec(settings, spec)
        assert addon.mapping.to_spec(settings) == spec


def test_regenerate_keeps_the_object_and_matches_a_fresh_terrain(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    obj.location = (1.0, 2.0, 3.0)
    obj.modifiers.new("Smooth", "SMOOTH")
    material = bpy.data.materials.new("Rock")
    obj.data.materials.append(material)
    obj.noisewright_terrain.noise.octaves = 5
    obj.noisewright_terrain.height = 1.5
    assert addon.api.regenerate_terrain(bpy.context, obj) is obj
    fresh = addon.api.add_terrain(
        bpy.context,
        addon.api.NoiseSpec(kind="perlin", octaves=5, seed=4),
        addon.api.Domain(offset=(0.125, 0.25, 0.375)),
        x_subdivisions=12,
        y_subdivisions=8,
        size=3.0,
        height=1.5,
    )
    np.testing.assert_array_equal(_positions(obj), _positions(fresh))
    assert tuple(obj.location) == (1.0, 2.0, 3.0)
    assert [m.name for m in obj.modifiers] == ["Smooth"] and list(obj.data.materials) == [material]


def test_regenerate_with_new_subdivisions_rebuilds_the_grid(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    material = bpy.data.materials.new("Rock")
    obj.data.materials.append(material)
    obj.noisewright_terrain.x_subdivisions = 20
    addon.api.regenerate_terrain(bpy.context, bpy.data.objects[obj.name])
    assert len(obj.data.vertices) == 21 * 9 and len(obj.data.polygons) == 20 * 8
    assert list(obj.data.materials) == [material] and obj.data.uv_layers.active.name == "UVMap"


def test_the_operator_regenerates_the_active_terrain(bpy_empty, addon):
    bpy = bpy_empty
    assert bpy.ops.noisewright.add_terrain(x_subdivisions=6, y_subdivisions=6) == {"FINISHED"}
    obj = bpy.context.active_object
    before = _positions(obj)
    obj.noisewright_terrain.noise.seed = 99
    assert bpy.ops.noisewright.regenerate_terrain() == {"FINISHED"}
    assert not np.array_equal(_positions(obj), before)


def test_regenerate_refuses_what_it_cannot_rebuild_and_changes_nothing(bpy_empty, addon):
    bpy = bpy_empty
    UserError = addon.api.UserError
    bpy.ops.mesh.primitive_cube_add()
    with pytest.raises(UserError, match=r"^object: 'Cube' is not a Noise Terrain"):
        addon.api.regenerate_terrain(bpy.context, bpy.context.active_object)
    obj = _terrain(bpy, addon)
    obj.noisewright_terrain.noise.tiling = True
    obj.noisewright_terrain.noise.frequency = 2.5
    before = scene_state(bpy)
    with pytest.raises(UserError, match=r"^frequency: tiling needs a whole-number frequency"):
        addon.api.regenerate_terrain(bpy.context, obj)
    assert scene_state(bpy) == before
    obj.noisewright_terrain.noise.tiling = False
    obj.shape_key_add(name="Basis")
    obj.noisewright_terrain.y_subdivisions = 3
    with pytest.raises(UserError, match=r"the mesh has shape keys, which a new vertex count would lose"):
        addon.api.regenerate_terrain(bpy.context, obj)
    assert len(obj.data.vertices) == 13 * 9
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    with pytest.raises(UserError, match=r"leave Edit Mode to regenerate"):
        addon.api.regenerate_terrain(bpy.context, obj)
    bpy.ops.object.mode_set(mode="OBJECT")


SHIPPED = (
    "alpine_ridges",
    "badlands",
    "eroded_canyon",
    "river_valleys",
    "rolling_hills",
    "stylised_cratered_cells",
    "stylised_dunes",
    "stylised_islands",
    "uplifted_range",
)
RIVERS = {"alpine_ridges", "badlands", "eroded_canyon", "river_valleys", "rolling_hills", "uplifted_range"}
"""The presets whose terrain carves rivers (its erosion's first stage)."""


def test_nine_presets_are_shipped_and_each_builds_a_terrain(bpy_empty, addon):
    bpy = bpy_empty
    shipped = sorted(path.stem for path in addon.terrain_presets.SHIPPED.glob("*.json"))
    assert shipped == list(SHIPPED)
    obj = _terrain(bpy, addon)
    heights = {}
    # the six natural presets (58 km landscapes, ~15 s of CPU each) are built, checked for rivers and held
    # against real tiles in test_terrain_realism.py; here the stylised ones
    for name in (name for name in SHIPPED if name not in RIVERS):
        addon.terrain_presets.apply_preset(bpy.context, obj, addon.terrain_presets.SHIPPED / f"{name}.json")
        settings = obj.noisewright_terrain
        z = _positions(obj)[:, 2]
        assert len(z) == (settings.x_subdivisions + 1) * (settings.y_subdivisions + 1)
        assert np.isfinite(z).all() and np.ptp(z) > 0.05 * abs(settings.height), name
        assert settings.fluvial.fluvial == (name in RIVERS) == ("river" in obj.data.attributes), name
        heights[name] = z
    assert len({h.tobytes() for h in heights.values()}) == len(SHIPPED) - len(RIVERS)


def test_a_failing_preset_puts_the_settings_back(bpy_empty, addon, tmp_path: Path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = scene_state(bpy), addon.terrain_settings.snapshot(obj.noisewright_terrain)
    broken = tmp_path / "broken.py"
    broken.write_text("terrain.noise.octaves = 7\nterrain.noise.tiling = True\nterrain.noise.frequency = 2.5\n")
    with pytest.raises(addon.api.UserError, match=r"^frequency: tiling needs"):
        addon.terrain_presets.apply_preset(bpy.context, obj, broken)
    assert (scene_state(bpy), addon.terrain_settings.snapshot(obj.noisewright_terrain)) == before
    broken.write_text("terrain.noise.octaves = 7\nraise KeyError('oops')\n")
    with pytest.raises(addon.api.UserError, match=r"^filepath: the preset 'broken.py' failed: KeyError"):
        addon.terrain_presets.apply_preset(bpy.context, obj, broken)
    assert (scene_state(bpy), addon.terrain_settings.snapshot(obj.noisewright_terrain)) == before
    with pytest.raises(addon.api.UserError, match=r"^filepath: cannot read the preset"):
        addon.terrain_presets.apply_preset(bpy.context, obj, tmp_path / "missing.py")


def test_a_saved_preset_restores_the_terrain_s_recipe(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon, falloff="X", y_subdivisions=12)
    settings = obj.noisewright_terrain
    settings.noise.kind = "voronoi"
    settings.noise.function = "f2_minus_f1"
    settings.noise.warp = "independent"
    settings.size = 5.0
    saved = addon.terrain_settings.recall(obj)
    assert bpy.ops.noisewright.terrain_preset_add(name="My Terrain") == {"FINISHED"}
    folder = bpy.utils.user_resource("SCRIPTS", path=f"presets/{addon.terrain_presets.PRESET_SUBDIR}")
    path = Path(folder) / "My_Terrain.json"  # as Blender's presets: spaces become underscores
    assert path.is_file()
    assert addon.noise_core.terrain.recipe.read_recipe(path) == addon.terrain_recipe.library_recipe(saved)
    addon.terrain_presets.apply_preset(bpy.context, obj, addon.terrain_presets.SHIPPED / "stylised_dunes.json")
    assert addon.terrain_settings.recall(obj) != saved
    assert bpy.ops.noisewright.apply_terrain_preset(filepath=str(path)) == {"FINISHED"}
    assert addon.terrain_settings.recall(obj) == saved
    bpy.types.NOISEWRIGHT_MT_terrain_presets.bl_label = "My Terrain"
    assert bpy.ops.noisewright.terrain_preset_add(remove_active=True) == {"FINISHED"}
    assert not path.exists()


def _edge_lengths(obj) -> np.ndarray:
    positions = _positions(obj).astype(np.float64)
    edges = np.empty(len(obj.data.edges) * 2, dtype=np.int32)
    obj.data.edges.foreach_get("vertices", edges)
    pairs = edges.reshape(-1, 2)
    return np.linalg.norm(positions[pairs[:, 0], :2] - positions[pairs[:, 1], :2], axis=1)


@pytest.mark.parametrize("elements", [{"VERT"}, {"FACE"}, {"VERT", "FACE"}])
def test_regenerate_after_sorting_the_elements_rebuilds_a_true_grid(bpy_empty, addon, elements):
    """Mesh > Sort Elements > Randomize keeps the counts; Regenerate must not write positions by a stale index."""
    bpy = bpy_empty
    obj = _terrain(bpy, addon)  # 12 x 8 cells of 0.25 x 0.375
    bpy.context.view_layer.objects.active = obj
    bpy.ops.object.mode_set(mode="EDIT")
    bpy.ops.mesh.select_all(action="SELECT")
    bpy.ops.mesh.sort_elements(type="RANDOMIZE", elements=elements, seed=3)
    bpy.ops.object.mode_set(mode="OBJECT")
    obj.noisewright_terrain.noise.seed = 5
    addon.api.regenerate_terrain(bpy.context, obj)
    lengths = _edge_lengths(obj)
    assert len(lengths) == 12 * 9 + 8 * 13
    np.testing.assert_allclose(np.sort(lengths), np.sort([0.25] * (12 * 9) + [0.375] * (8 * 13)), rtol=1e-5)
    fresh = addon.api.add_terrain(bpy.context, addon.api.NoiseSpec(kind="perlin", octaves=3, seed=5),
                                  addon.api.Domain(offset=(0.125, 0.25, 0.375)), x_subdivisions=12, y_subdivisions=8,
                                  size=3.0, height=0.75)  # fmt: skip
    np.testing.assert_array_equal(_positions(obj), _positions(fresh))


def test_is_grid_accepts_only_the_grids_own_faces_in_order(bpy_empty, addon):
    """``mesh_io.is_grid``, which lets Regenerate write positions only: the grid's counts and each face's corners
    as ``terrain.grid_quads`` makes them, in order; the same counts with other corners are another mesh."""
    positions, quads, uvs = addon.terrain_grid.grid(5, 3, 2.0)

    def is_grid(faces, columns=6, rows=4) -> bool:
        mesh = bpy_empty.data.meshes.new("grid")
        addon.mesh_io.build_grid(mesh, positions, faces, uvs)
        return addon.mesh_io.is_grid(mesh, columns, rows)

    assert is_grid(quads)
    assert not is_grid(quads, 4, 6)  # as many vertices and faces, the other shape
    assert not is_grid(quads, 7, 4)
    rolled, flipped = quads.copy(), quads.copy()
    rolled[7] = np.roll(rolled[7], 1)  # a face starting at another corner
    flipped[14] = flipped[14, ::-1]  # the last face turned over
    assert not is_grid(rolled) and not is_grid(flipped)
    assert not is_grid(quads[[1, 0, *range(2, len(quads))]])  # two faces in the other order


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "terrain.noise.octaves = 99",
            r"^octaves: the preset sets 99, which this setting cannot hold \(allowed: 1 to 16\)",
        ),
        ("terrain.falloff_width = 3.5", r"^falloff_width: the preset sets 3.5, .*allowed: 0 to 1"),
        ("terrain.x_subdivisions = 0", r"^x_subdivisions: the preset sets 0"),
        ("terrain.erosion.talus_angle = 120.0", r"^talus_angle: the preset sets 120.0"),
        ("terrain.size = -2.0", r"^size: the preset sets -2.0"),
    ],
)
def test_a_preset_out_of_range_is_refused_and_undone(bpy_empty, addon, tmp_path: Path, line: str, message: str):
    """Blender clamps out-of-range values as they are set; the preset is refused, naming the setting."""
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = scene_state(bpy), addon.terrain_settings.snapshot(obj.noisewright_terrain)
    preset = tmp_path / "clamped.py"
    preset.write_text(
        f"import bpy\nterrain = bpy.context.active_object.noisewright_terrain\nterrain.height = 0.5\n{line}\n"
    )
    with pytest.raises(addon.api.UserError, match=message):
        addon.terrain_presets.apply_preset(bpy.context, obj, preset)
    assert (scene_state(bpy), addon.terrain_settings.snapshot(obj.noisewright_terrain)) == before


def test_a_preset_of_the_wrong_type_names_the_setting(bpy_empty, addon, tmp_path: Path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = scene_state(bpy), addon.terrain_settings.snapshot(obj.noisewright_terrain)
    preset = tmp_path / "typo.py"
    preset.write_text("terrain.noise.octaves = 5\nterrain.noise.persistence = 'high'\n")
    with pytest.raises(addon.api.UserError, match=r"^persistence: the preset 'typo.py' failed: TypeError"):
        addon.terrain_presets.apply_preset(bpy.context, obj, preset)
    assert (scene_state(bpy), addon.terrain_settings.snapshot(obj.noisewright_terrain)) == before
