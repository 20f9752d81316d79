"""Register/unregister symmetry and the settings <-> NoiseSpec mirror, in the real Blender."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

pytestmark = pytest.mark.blender

OPERATORS = ("displace", "add_terrain", "bake_texture")


def _menu_draw_functions(menu) -> list:
    return list(getattr(menu.draw, "_draw_funcs", []))


def _registered_state(bpy, addon) -> dict:
    return {
        "scene_property": hasattr(bpy.types.Scene, "noisewright"),
        "operators": [hasattr(bpy.types, f"NOISEWRIGHT_OT_{name}") for name in OPERATORS],
        "classes": [cls.is_registered for cls in addon.CLASSES],
        "add_menu": addon.terrain.menu_entry in _menu_draw_functions(bpy.types.VIEW3D_MT_mesh_add),
        "image_menu": addon.bake.menu_entry in _menu_draw_functions(bpy.types.IMAGE_MT_image),
        "preview_collection": addon.preview._state.collection is not None,
    }


def test_unregister_and_register_twice_without_computing_noise(bpy_empty, addon, monkeypatch):
    bpy = bpy_empty

    def no_noise(*_args, **_kwargs):
        raise AssertionError("register/unregister must not evaluate (and so compile) any noise")

    monkeypatch.setattr(addon.mapping, "evaluate", no_noise)
    enabled = _registered_state(bpy, addon)
    assert enabled["scene_property"] and enabled["add_menu"] and enabled["image_menu"]
    assert all(enabled["classes"]) and enabled["preview_collection"]
    try:
        for _ in range(2):
            addon.unregister()
            disabled = _registered_state(bpy, addon)
            assert not disabled["scene_property"] and not disabled["add_menu"] and not disabled["image_menu"]
            assert not any(disabled["classes"]) and not disabled["preview_collection"]
            assert not any(disabled["operators"])
            addon.register()
            assert _registered_state(bpy, addon) == enabled
    finally:
        if not addon.properties.NoiseSettings.is_registered:
            addon.register()
    assert not bpy.app.timers.is_registered(addon.preview.tick)


def test_settings_mirror_every_noise_spec_field(bpy_empty, addon):
    """Every ``NoiseSpec`` field has its property, named as the registry says (``offset`` and ``gain`` of the
    fractal modes are ``fractal_offset``/``fractal_gain``: ``offset`` is the noise space's translation)."""
    properties = addon.properties.NoiseSettings.bl_rna.properties
    options = addon.noise_core.registry.options_by_name()
    for field in dataclasses.fields(addon.noise_core.NoiseSpec):
        name = addon.properties.property_name(options[field.name])
        assert name in properties.keys(), field.name  # noqa: SIM118 (bl_rna collections are not dicts)
        assert properties[name].type in ("BOOLEAN", "INT", "FLOAT", "ENUM", "STRING"), field.name
        assert not getattr(properties[name], "is_array", False), field.name


@pytest.mark.parametrize("kind", ["value", "perlin", "voronoi", "cellular", "hill", "white", "gabor"])
def test_fresh_settings_map_to_the_kinds_default_spec(bpy_empty, addon, kind):
    if kind not in addon.noise_core.kind_names():
        pytest.skip(f"kind {kind!r} is not in noise_core yet")
    settings = bpy_empty.context.scene.noisewright
    settings.kind = kind
    assert addon.mapping.to_spec(settings) == addon.noise_core.NoiseSpec(kind=kind)
    assert int(settings.dimensions) in addon.noise_core.registry.KINDS[kind].dims


def test_kind_options_follow_the_kinds_table(bpy_empty, addon):
    settings = bpy_empty.context.scene.noisewright
    for kind, info in addon.noise_core.registry.KINDS.items():
        settings.kind = kind
        enum = [item.identifier for item in settings.bl_rna.properties["kind"].enum_items]
        assert kind in enum
        options = addon.mapping.applicable_options(settings)
        assert set(options) <= set(info.option_names())
        for field in ("distance", "function"):
            if info.option(field) is not None:
                assert getattr(settings, field) == addon.properties.choices(kind, field)[0]


def test_foreign_options_are_not_passed(bpy_empty, addon):
    settings = bpy_empty.context.scene.noisewright
    settings.kind = "perlin"
    settings.jitter = 0.25
    settings.density = 2.0
    settings.sizes = "1, 2"
    assert addon.mapping.to_spec(settings) == addon.noise_core.NoiseSpec(kind="perlin")


def test_invalid_settings_give_the_specs_message(bpy_empty, addon):
    settings = bpy_empty.context.scene.noisewright
    settings.tiling = True
    settings.frequency = 2.5
    with pytest.raises(addon.errors.UserError, match=r"^frequency: tiling needs a whole-number frequency"):
        addon.mapping.to_spec(settings)
    assert addon.ui.settings_error(settings).startswith("frequency:")


def test_blender_texture_options_reach_the_spec(bpy_empty, addon):
    """Voronoi's smooth F1 and Minkowski settings and Gabor's (its 3D orientation typed as numbers) become the
    spec's fields; the options that do not apply stay out."""
    properties = addon.properties.NoiseSettings.bl_rna.properties
    assert (properties["smoothing"].name, properties["gabor_frequency"].name) == ("Smoothness", "Frequency")
    assert properties["orientation"].subtype == "ANGLE"  # radians, shown in degrees as Blender's node
    settings = bpy_empty.context.scene.noisewright
    settings.kind = "voronoi"
    settings.function = "smooth_f1"
    settings.smoothing = 0.25
    settings.distance = "minkowski"
    settings.exponent = 3.0
    expected = {"function": "smooth_f1", "smoothing": 0.25, "distance": "minkowski", "exponent": 3.0}
    assert addon.mapping.to_spec(settings) == addon.noise_core.NoiseSpec(kind="voronoi", **expected)
    settings.kind = "gabor"
    assert set(addon.mapping.applicable_options(settings)) == {
        "gabor_frequency", "anisotropy", "orientation", "orientation_3d", "output",
    }  # fmt: skip
    settings.gabor_frequency = 3.0
    settings.anisotropy = 0.5
    settings.orientation_3d = "0, 0.5, 1"
    settings.output = "phase"
    spec = addon.mapping.to_spec(settings)
    assert spec == addon.noise_core.NoiseSpec(
        kind="gabor", gabor_frequency=3.0, anisotropy=0.5, orientation_3d=(0.0, 0.5, 1.0), output="phase"
    )
    settings.orientation_3d = "0 0 0"
    with pytest.raises(addon.errors.UserError, match=r"^orientation_3d: the direction must have"):
        addon.mapping.to_spec(settings)
    addon.mapping.from_spec(settings, spec)
    assert settings.orientation_3d == "0.0, 0.5, 1.0"


def test_sizes_text_must_be_numbers(bpy_empty, addon):
    assert addon.mapping.parse_sizes(" 1, 0.5 0.25 ") == (1.0, 0.5, 0.25)
    assert addon.mapping.parse_sizes("  ") is None
    with pytest.raises(addon.errors.UserError, match=r"^sizes: expected numbers"):
        addon.mapping.parse_sizes("1, big")


def test_weibull_tooltips_name_alpha_the_scale_and_beta_the_shape(bpy_empty, addon):
    properties = addon.properties.NoiseSettings.bl_rna.properties
    assert properties["alpha"].description == "Weibull scale"  # hill.py: alpha * (-ln(1 - U)) ** (1 / beta)
    assert properties["beta"].description == "Weibull shape"


def test_tiling_on_a_kind_that_cannot_tile_is_an_error_and_the_panel_lets_it_be_turned_off(bpy_empty, addon):
    settings = bpy_empty.context.scene.noisewright
    settings.tiling = True
    settings.kind = "simplex"
    assert not settings.tiling and not addon.ui.shows_tiling(settings)  # cleared and hidden on the kind change
    assert addon.mapping.to_spec(settings) == addon.noise_core.NoiseSpec(kind="simplex")
    settings.tiling = True  # set some other way (Python, an old file): refused, and the checkbox is shown again
    with pytest.raises(addon.errors.UserError, match=r"^tiling: kind 'simplex' cannot tile; tileable kinds: "):
        addon.mapping.to_spec(settings)
    assert addon.ui.shows_tiling(settings) and addon.ui.settings_error(settings).startswith("tiling:")


def test_warp_settings_reach_the_spec_and_the_bake(bpy_empty, addon):
    """The Warp menu shows its fields only with a warp; the settings become the spec's warp, and a bake of the
    panel's settings is that spec's ``evaluate_grid``."""
    bpy = bpy_empty
    settings = bpy.context.scene.noisewright
    settings.warp_octaves = 3  # not applied while warp is "none"
    assert addon.mapping.to_spec(settings) == addon.noise_core.NoiseSpec()
    settings.warp = "progressive"
    settings.warp_kind = "value"
    settings.warp_amplitude = 0.25
    spec = addon.mapping.to_spec(settings)
    expected = addon.noise_core.NoiseSpec(
        warp="progressive", warp_kind="value", warp_amplitude=0.25, warp_octaves=3, warp_frequency=2.0
    )
    assert spec == expected
    assert bpy.ops.noisewright.bake_texture(width=16, height=16, image_name="Warped") == {"FINISHED"}
    image = bpy.data.images["Warped"]
    pixels = np.empty(len(image.pixels), dtype=np.float32)
    image.pixels.foreach_get(pixels)
    grey = pixels.reshape(16, 16, 4)[:, :, 0]
    unit = addon.noise_core.ranges.to_unit(spec, addon.noise_core.evaluate_grid(spec, (16, 16)))
    np.testing.assert_allclose(grey, unit, atol=1e-6)
    settings.tiling = True
    settings.warp_kind = "simplex"
    assert addon.ui.settings_error(settings).startswith("warp_kind: 'simplex' cannot tile")
