"""Rivers in Blender: ``erode_fluvial.erode_fluvial_mesh`` on grid meshes, ``erode_fluvial_image``, their operators."""

from __future__ import annotations

import types

import numpy as np
import pytest

from .test_erode import _attribute, _positions, _terrain  # a 40 x 30 Noise Terrain

pytestmark = pytest.mark.blender

FEW = {"steps": 10, "dt": 1e4, "uplift": 1e-3, "erodibility": 5e-5}


def test_rivers_on_a_terrain_as_noise_core_carves_them(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = _positions(obj)
    addon.api.erode_fluvial_mesh(bpy.context, obj, keep_relief=False, **FEW)
    after = _positions(obj)
    cell = addon.erosion_io.grid_layout("Noise Terrain", before).cell_size
    heights = before[:, 2].reshape(41, 41).astype(np.float64)
    expected = addon.noise_core.erode_fluvial(heights / cell, **FEW)
    np.testing.assert_allclose(after[:, 2], expected.heights.ravel() * cell, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(after[:, :2], before[:, :2])
    np.testing.assert_array_equal(_attribute(obj, "river"), expected.rivers.ravel().astype(np.float32))
    np.testing.assert_allclose(_attribute(obj, "drainage_area"), expected.drainage_area.ravel())
    assert _attribute(obj, "erosion").max() > 0


def test_operator_keeps_the_relief_and_reads_vertex_groups(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = _positions(obj)
    group = obj.vertex_groups.new(name="Rain")
    group.add(list(range(len(obj.data.vertices) // 2)), 1.0, "REPLACE")
    assert bpy.ops.noisewright.erode_fluvial(steps=5, precipitation_group="Rain") == {"FINISHED"}
    after = _positions(obj)
    assert after[:, 2].min() == pytest.approx(before[:, 2].min(), abs=1e-5)
    assert after[:, 2].max() == pytest.approx(before[:, 2].max(), abs=1e-5)
    # rain falls on the group's vertices only (weight 1: one cell of water each), and all of it leaves the map
    # through the edge vertices (base level)
    layout = addon.erosion_io.grid_layout(obj.name, after)
    area = _attribute(obj, "drainage_area")[layout.order].reshape(layout.rows, layout.columns)
    edges = np.concatenate([area[0], area[-1], area[1:-1, 0], area[1:-1, -1]])
    assert edges.sum() == pytest.approx(len(obj.data.vertices) // 2)
    assert area.min() == 0.0


def test_operator_errors_change_nothing(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    before = _positions(obj)
    with pytest.raises(RuntimeError, match="uplift_group: 'Noise Terrain' has no vertex group 'Nope'"):
        bpy.ops.noisewright.erode_fluvial(steps=2, uplift_group="Nope")
    np.testing.assert_array_equal(_positions(obj), before)
    assert "river" not in obj.data.attributes


def _height_image(bpy, addon):
    """``(image, heights)``: a baked 48 x 40 height image and its red channel (float64)."""
    image = addon.api.bake(bpy.context, addon.api.NoiseSpec(octaves=4), image="Height", width=48, height=40)
    pixels = np.empty(48 * 40 * 4, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    return image, pixels.reshape(-1, 4)[:, 0].reshape(40, 48).astype(np.float64)


def _grey(image) -> np.ndarray:
    pixels = np.empty(len(image.pixels), dtype=np.float32)
    image.pixels.foreach_get(pixels)
    return pixels.reshape(-1, 4)[:, 1].reshape(image.size[1], image.size[0])


def test_rivers_in_a_height_image(bpy_empty, addon):
    bpy = bpy_empty
    image, heights = _height_image(bpy, addon)
    module = addon.erode_fluvial
    drainage, rivers = module.erode_fluvial_image(bpy.context, image, relief=32.0, keep_relief=False, **FEW)
    expected = addon.noise_core.erode_fluvial(heights * 32.0, **FEW)
    np.testing.assert_allclose(_grey(image), expected.heights / 32.0, rtol=1e-6)
    assert (drainage.name, rivers.name) == ("Height Drainage", "Height Rivers")
    np.testing.assert_array_equal(_grey(rivers), expected.rivers.astype(np.float32))
    with pytest.raises(addon.api.UserError, match=r"^relief: must be > 0 pixels"):
        module.erode_fluvial_image(bpy.context, image, relief=0.0, **FEW)


def test_image_operator_in_the_image_editor(bpy_empty, addon):
    """``bpy.ops.noisewright.erode_fluvial_image`` on the Image Editor's image: the function's result, flow maps
    included; without an image in the editor it is unavailable."""
    bpy = bpy_empty
    image, heights = _height_image(bpy, addon)
    window = bpy.context.window_manager.windows[0]
    area = window.screen.areas[0]
    area.type = "IMAGE_EDITOR"
    space = area.spaces.active
    with bpy.context.temp_override(window=window, area=area, space_data=space):
        assert not bpy.ops.noisewright.erode_fluvial_image.poll()
        space.image = image
        assert bpy.ops.noisewright.erode_fluvial_image(relief=32.0, keep_relief=False, **FEW) == {"FINISHED"}
    expected = addon.noise_core.erode_fluvial(heights * 32.0, **FEW)
    np.testing.assert_allclose(_grey(image), expected.heights / 32.0, rtol=1e-6)
    rivers = bpy.data.images["Height Rivers"]
    np.testing.assert_array_equal(_grey(rivers), expected.rivers.astype(np.float32))
    drainage = _grey(bpy.data.images["Height Drainage"])
    assert drainage.min() >= 0.0 and drainage.max() == 1.0


def _plain_terrain_heights(bpy, addon) -> np.ndarray:
    """The uneroded heights of ``_terrain`` (as (rows, columns), float64)."""
    plain = _terrain(bpy, addon)
    heights = _positions(plain)[:, 2].astype(np.float64).reshape(41, 41)
    bpy.data.objects.remove(plain)
    return heights


def test_a_terrain_carves_rivers_first_then_droplets_and_keeps_the_stages(bpy_empty, addon):
    """The stages run in order (rivers, then hydraulic droplets), masks over both, flow maps from the rivers;
    the terrain keeps them (``recall``) and Regenerate rebuilds it bit for bit, then without them when off."""
    bpy = bpy_empty
    before = _plain_terrain_heights(bpy, addon)
    droplets = {"droplets": 2000, "seed": 3}
    obj = _terrain(bpy, addon, fluvial=FEW, hydraulic=droplets)
    cell = 2.0 / 40  # a terrain's cell size: size / subdivisions (erosion needs square cells)
    cells = before / cell
    carved = addon.noise_core.erode_fluvial(cells, **FEW)
    kept = cells.min() + (carved.heights - carved.heights.min()) * (np.ptp(cells) / np.ptp(carved.heights))
    eroded = addon.erosion_io.erode_heights(kept * cell, cell, addon.terrain_recipe.as_stored(droplets), None)
    after = _positions(obj)
    np.testing.assert_allclose(after[:, 2], eroded.heights.ravel(), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(_attribute(obj, "river"), carved.rivers.ravel().astype(np.float32))
    np.testing.assert_allclose(_attribute(obj, "drainage_area"), carved.drainage_area.ravel())
    change = after[:, 2].astype(np.float64) - before.astype(np.float32).ravel()
    np.testing.assert_allclose(_attribute(obj, "erosion"), np.maximum(-change, 0.0), atol=1e-6)
    recipe = addon.terrain_settings.recall(obj)
    hydraulic, thermal, fluvial = recipe.hydraulic, recipe.thermal, recipe.fluvial
    assert thermal is None and hydraulic["droplets"] == 2000
    defaults = {option.name: option.default for option in addon.noise_core.terrain.recipe.RIVER_OPTIONS}
    assert fluvial == pytest.approx({**defaults, **addon.terrain_recipe.as_stored(FEW)})  # every row, FEW's set
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj), after)
    obj.noisewright_terrain.fluvial.fluvial = False
    obj.noisewright_terrain.erosion.hydraulic = False
    addon.api.regenerate_terrain(bpy.context, obj)
    np.testing.assert_array_equal(_positions(obj)[:, 2], before.ravel().astype(np.float32))
    assert not {"river", "drainage_area", "erosion"} & set(obj.data.attributes.keys())


def test_a_terrain_stage_can_lift_ranges_where_the_noise_is_high(bpy_empty, addon):
    bpy = bpy_empty
    before = _plain_terrain_heights(bpy, addon)
    obj = _terrain(bpy, addon, fluvial={**FEW, "noise_uplift": True, "keep_relief": False})
    cell = 2.0 / 40
    uplift = addon.terrain_recipe.as_stored(FEW["uplift"]) * (before - before.min()) / np.ptp(before)
    expected = addon.noise_core.erode_fluvial(before / cell, **{**FEW, "uplift": uplift})
    np.testing.assert_allclose(_positions(obj)[:, 2], expected.heights.ravel() * cell, rtol=1e-5, atol=1e-6)


def test_a_bad_terrain_stage_adds_nothing(bpy_empty, addon):
    bpy = bpy_empty
    with pytest.raises(addon.api.UserError, match=r"^fluvial\.stepz: not an option of stage 'rivers'"):
        _terrain(bpy, addon, fluvial={"stepz": 3})
    with pytest.raises(addon.api.UserError, match=r"^steps: "):
        _terrain(bpy, addon, fluvial={"steps": -1})
    assert len(bpy.data.objects) == 0 and len(bpy.data.meshes) == 0


class _Layout:
    """Records the properties a draw function shows (headless Blender has no UI to draw into); any other
    layout call is accepted and returns the layout."""

    def __init__(self, drawn: list):
        self.drawn = drawn

    def prop(self, owner, name, **_options):
        assert hasattr(owner, name), name
        self.drawn.append(name)

    def operator(self, *_args, **_options):
        return types.SimpleNamespace()

    def __getattr__(self, _name):
        return lambda *_args, **_options: self


def test_the_terrain_panel_shows_the_river_stage_before_the_droplets(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    panel = addon.panels.VIEW3D_PT_noisewright_terrain
    drawn: list = []
    panel.draw(types.SimpleNamespace(layout=_Layout(drawn)), bpy.context)
    assert drawn.index("fluvial") < drawn.index("hydraulic") < drawn.index("thermal")
    assert "erodibility" not in drawn  # a stage's options only when it is on
    obj.noisewright_terrain.fluvial.fluvial = True
    drawn.clear()
    panel.draw(types.SimpleNamespace(layout=_Layout(drawn)), bpy.context)
    stage = drawn[drawn.index("fluvial") : drawn.index("hydraulic")]
    assert stage == ["fluvial", *(option.name for option in addon.erode_fluvial.TERRAIN_OPTIONS[1:])]
