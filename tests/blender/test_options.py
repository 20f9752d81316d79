"""Options declared once (``addon/options.py``): the rows give the operators' properties, the functions'
defaults and checks; ``checked`` itself."""

from __future__ import annotations

import inspect

import pytest

pytestmark = pytest.mark.blender

FEATURES = [  # module, function, operator, rows the function takes
    ("displace", "displace", "displace", "OPTIONS"),
    ("terrain", "add_terrain", "add_terrain", "SHAPE_OPTIONS"),
    ("erode", "erode_image", "erode_image", "RELIEF"),
    ("bake", "bake", "bake_texture", "OPTIONS"),
    ("bake_uv", "bake_uv", "bake_uv", "OPTIONS"),
    ("heightmap_export", "export_heightmap", "export_heightmap", "EXPORT_OPTIONS"),
    ("heightmap_import", "import_heightmap", "import_heightmap", "IMPORT_OPTIONS"),
]


def _rows(addon, module: str, name: str) -> tuple:
    rows = getattr(getattr(addon, module), name)
    return rows if isinstance(rows, tuple) else (rows,)


def _default(prop):
    if prop.type == "ENUM":
        return prop.default
    return tuple(prop.default_array) if getattr(prop, "array_length", 0) else prop.default


@pytest.mark.parametrize(("module", "function", "operator", "rows"), FEATURES)
def test_the_rows_are_the_functions_defaults_and_the_operators_properties(
    bpy_empty, addon, module, function, operator, rows
):
    signature = inspect.signature(getattr(getattr(addon, module), function))
    properties = getattr(bpy_empty.ops.noisewright, operator).get_rna_type().properties
    for row in _rows(addon, module, rows):
        parameter = signature.parameters[row.name]
        assert parameter.default in (row.default, None), row.name  # None: "from the context" (frame_start)
        name = "image_name" if (module, row.name) == ("bake_uv", "image") else row.name
        if row.name == "use_float" and module == "bake_uv":
            continue  # the UV bake's operator always makes float images
        prop = properties[name]
        assert prop.name == row.label and prop.description == row.description, row.name
        default = _default(prop)
        if isinstance(row.default, tuple):
            assert default == pytest.approx(row.default, abs=1e-7), row.name
        else:
            assert default == pytest.approx(row.default) if row.type is float else default == row.default, row.name


def test_api_signatures_show_the_defaults(addon):
    bake = inspect.signature(addon.api.bake).parameters
    assert (bake["width"].default, bake["save_format"].default, bake["image"].default) == (1024, "NONE", "Noise")
    terrain = inspect.signature(addon.api.add_terrain).parameters
    shape = [name for name in terrain if terrain[name].kind is inspect.Parameter.KEYWORD_ONLY]
    rows = [*addon.terrain_recipe.SHAPE_FIELDS, *addon.terrain_recipe.BASE_FIELDS]
    assert shape[-len(rows) :] == rows  # the rows arrive in **shape, listed for help()
    assert terrain["falloff"].default == "NONE" and terrain["offset"].default == (0.0, 0.0)


def test_a_bad_value_is_a_user_error_naming_it_and_unknown_names_a_type_error(bpy_empty, addon):
    spec = addon.api.NoiseSpec()
    with pytest.raises(addon.api.UserError, match=r"^width: expected an integer, got str 'wide'"):
        addon.api.bake(bpy_empty.context, spec, width="wide")
    with pytest.raises(addon.api.UserError, match=r"^falloff_width: must be between 0 and 1, got -1"):
        addon.api.add_terrain(bpy_empty.context, spec, falloff_width=-1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'heigth'"):
        addon.api.add_terrain(bpy_empty.context, spec, heigth=1.0)
    assert len(bpy_empty.data.images) == len(bpy_empty.data.meshes) == 0


def test_checked_needs_a_parameter_for_every_row(addon):
    row = addon.noise_core.schema.Option("strength", float, 1.0, "How strong")

    def no_room(context, *, other: int = 0):
        return other

    with pytest.raises(TypeError, match=r"no_room: no parameter for the options strength"):
        addon.options.checked(row)(no_room)

    def takes(context, *, strength: float, given: float | None = None):
        return strength, given

    checked = addon.options.checked(row, addon.noise_core.schema.Option("given", float, 2.0, "x"))(takes)
    assert checked(None) == (1.0, None)  # a None default stays None: "from the context", not checked
    assert checked(None, strength=3, given=4) == (3.0, 4.0)
    with pytest.raises(addon.api.UserError, match=r"^given: expected a number"):
        checked(None, given="x")


def _library_rows(addon) -> dict:
    """The groups of properties that are ``noise_core`` rows, by operator or property group: the rows as the add-on
    spells them (``options.blender_option``: its name, its menu identifiers in capitals) or as they are."""
    core, spelled = addon.noise_core, addon.options.blender_option
    heightmaps = core.io.heightmaps
    maps = core.terrain.maps
    return {
        "bake_texture": [*map(spelled, core.normal_maps.OPTIONS), core.loops.RADIUS],
        "displace": [core.loops.RADIUS],
        "export_heightmap": [
            heightmaps.FILE_FORMAT,
            *map(spelled, (heightmaps.ENGINE, heightmaps.SPLAT, heightmaps.SPLAT_BITS)),
        ],
        "terrain_maps": [core.terrain.heightfield.CELL_SIZE, maps.HEIGHT_SCALE, *maps.MAP_OPTIONS],
        "terrain_layers": list(core.terrain.layers.LAYER_OPTIONS),
        "ErosionSettings": [*core.terrain.erosion.HYDRAULIC_OPTIONS, *core.terrain.erosion.THERMAL_OPTIONS],
        "FluvialSettings": list(core.terrain.fluvial.FLUVIAL_OPTIONS),
    }


def _properties(bpy, addon, owner: str):
    if owner[0].isupper():
        group = getattr(addon.properties, owner, None) or getattr(addon.erode_fluvial, owner)
        return group.bl_rna.properties
    return getattr(bpy.ops.noisewright, owner).get_rna_type().properties


def test_every_property_of_a_library_option_is_its_noise_core_row(bpy_empty, addon):
    """The add-on's property of each of these options is made from the row the library checks with and the
    command line's flag is made from (``tests/test_cli_options.py``): label, description, default, limits, menu."""
    for owner, rows in _library_rows(addon).items():
        properties = _properties(bpy_empty, addon, owner)
        for row in rows:
            prop = properties[row.name]
            assert (prop.name, prop.description) == (row.label, row.description), (owner, row.name)
            default = _default(prop)
            assert default == pytest.approx(row.default) if row.type is float else default == row.default, row.name
            if prop.type == "ENUM":
                items = [(item.identifier, item.name, item.description) for item in prop.enum_items]
                texts = row.choice_text or [(value.replace("_", " ").title(), row.description) for value in row.choices]
                assert items == [(value, *text) for value, text in zip(row.choices, texts, strict=True)], row.name
            elif prop.type in ("INT", "FLOAT") and not getattr(prop, "array_length", 0):
                low = row.ui_minimum if row.above else row.minimum
                assert low is None or prop.hard_min == pytest.approx(low), row.name
                assert row.maximum is None or prop.hard_max == pytest.approx(row.maximum), row.name


def test_a_menu_in_capitals_means_the_library_s_value(bpy_empty, addon):
    """``blender_option``: the library's lowercase choices as Blender's capital identifiers, the rest kept."""
    spelled = addon.options.blender_option(addon.noise_core.normal_maps.MAP)
    assert (spelled.name, spelled.choices, spelled.default) == ("map_type", ("HEIGHT", "NORMAL"), "HEIGHT")
    assert spelled.description == addon.noise_core.normal_maps.MAP.description and spelled.label == "Map"
    image = addon.api.bake(bpy_empty.context, addon.api.NoiseSpec(), width=8, height=8, map_type="NORMAL",
                           normal_convention="DIRECTX", normal_method="DIFFERENCES")  # fmt: skip
    assert image.colorspace_settings.name == "Non-Color"
