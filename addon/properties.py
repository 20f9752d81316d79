"""``NoiseSettings``: the noise and noise-space settings, one property per ``NoiseSpec`` field plus the domain.

The scene holds one (``scene.noisewright``) that the panels edit; each operator holds its own copy
(``noise``), filled from the scene when the caller does not pass one, so Adjust Last Operation re-runs
with the values of that run. Every noise property is made from its registry row
(``noise_core.registry``: name, description, default, limits, slider range, menu choices), so the
add-on shows exactly what ``NoiseSpec`` accepts; a new registry option gets its property here without a
line of its own. The noise space (``DOMAIN_OPTIONS``) and the erosion switches are rows too.
"""

import math
from typing import TYPE_CHECKING, Any

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty, IntProperty, StringProperty

from .errors import UserError
from .noise_core.registry import COMMON_OPTIONS, KINDS, kind_info, options_by_name
from .noise_core.schema import Option
from .noise_core.terrain.erosion import HYDRAULIC_OPTIONS, THERMAL_OPTIONS

DEFAULT_OFFSET = (0.0, 0.0, 0.13)
"""The noise space's default offset. Meshes on whole-number coordinates (Blender's default cube has its
corners at +-1) sit on lattice points at whole-number frequencies, where Perlin noise is 0: with no offset
the default Displace on the default cube would not move a vertex. Z is shifted by 0.13 (0.13 x frequency
is a whole number for no frequency below 100); X and Y stay 0, so the default bake (2D noise on the XY
plane) is still exactly ``evaluate_grid``."""

KIND_ITEMS = [(info.name, info.name.replace("_", " ").title(), info.description) for info in KINDS.values()]
DOMAIN_OPTIONS = (
    Option(
        "offset",
        float,
        DEFAULT_OFFSET,
        "Translation of the noise space (added last); Z starts off the lattice, see DEFAULT_OFFSET",
        size=3,
        subtype="TRANSLATION",
    ),
    Option("rotation", float, (0.0, 0.0, 0.0), "XYZ Euler rotation of the noise space", size=3, subtype="EULER"),
    Option(
        "scale",
        float,
        (1.0, 1.0, 1.0),
        "Scale of the positions before rotation (larger = smaller features)",
        size=3,
        soft_minimum=-100.0,
        soft_maximum=100.0,
        subtype="XYZ",
    ),
    Option(
        "dimensions",
        str,
        "3",
        "Dimension of the noise",
        choices=("1", "2", "3", "4"),
        choice_text=(
            ("1D", "Line noise along one axis of the noise space"),
            ("2D", "Plane noise on two axes of the noise space"),
            ("3D", "Volume noise in the whole noise space"),
            ("4D", "Volume noise with a fourth coordinate W: keyframe W, or animate the noise, to move through it"),
        ),
    ),
    Option(
        "plane",
        str,
        "XY",
        "Axes 2D noise reads; the plane images are baked on",
        choices=("XY", "XZ", "YZ"),
        choice_text=tuple(
            (plane, f"2D noise reads the {plane[0]} and {plane[1]} axes (images are baked on the {plane} plane)")
            for plane in ("XY", "XZ", "YZ")
        ),
    ),
    Option(
        "axis",
        str,
        "X",
        "Axis 1D noise reads",
        choices=("X", "Y", "Z"),
        choice_text=tuple((axis, f"1D noise reads the {axis} axis") for axis in "XYZ"),
    ),
    Option(
        "w",
        float,
        0.0,
        "Fourth coordinate of 4D noise, as W of Blender's Noise Texture (moving it evolves the noise)",
        soft_minimum=-100.0,
        soft_maximum=100.0,
    ),
)
"""The noise space (``mapping.Domain``): where the noise is read."""
EROSION_SWITCHES = (
    Option("hydraulic", bool, False, "Droplets carve channels and deposit sediment"),
    Option("thermal", bool, False, "Material slides off slopes steeper than the talus"),
)
"""Which erosions run (each with its ``noise_core.terrain.erosion`` options)."""


def choices(kind: str, field: str) -> tuple[str, ...]:
    """The values the choice option ``field`` (distance, function, distribution) may take for ``kind``,
    default first (the registry row's ``choices``); empty if ``kind`` has no such option."""
    option = kind_info(kind).option(field)
    return option.choices if option is not None else ()


def all_choices(field: str) -> tuple[str, ...]:
    """Every value ``field`` takes for some kind, in a fixed order (their enum numbers)."""
    seen: dict[str, None] = {}
    for kind in KINDS:
        seen.update(dict.fromkeys(choices(kind, field)))
    return tuple(seen)


def property_name(option: Option) -> str:
    """The add-on's property for a registry option: its own name unless it has an ``addon_name`` (the fractal
    ``offset`` and ``gain`` are ``fractal_offset``/``fractal_gain``: ``offset`` moves the noise space)."""
    return option.addon_name or option.name


def check_finite(owner) -> None:
    """``UserError`` naming the first float property of ``owner`` that holds NaN or an infinity.

    ``owner`` is an operator or a property group; float properties (scalars and vectors) are checked,
    and property groups it points to (an operator's ``noise`` settings) recursively. Blender stores NaN
    and infinities in float properties as given, and no noise, size or colour option allows them.
    """
    if isinstance(owner, bpy.types.Operator):
        owner = owner.properties  # the operator's own properties (its type's RNA lists none)
    for prop in owner.bl_rna.properties:
        name = prop.identifier
        if prop.type == "POINTER" and name != "rna_type":
            group = getattr(owner, name)
            if isinstance(group, bpy.types.PropertyGroup):
                check_finite(group)
        elif prop.type == "FLOAT":
            value = getattr(owner, name)
            values = tuple(value) if prop.array_length else (value,)
            if not all(math.isfinite(number) for number in values):
                shown = ", ".join(f"{number:g}" for number in values)
                raise UserError(f"{name}: must be a finite number, got {shown}")


_choice_items: dict[tuple[str, str], list[tuple[str, str, str, int]]] = {}


def _items_for(field: str, description: str):
    """A dynamic enum items callback: the values of ``field`` allowed for the settings' kind.

    Every value keeps one number across kinds (its index in ``all_choices``); the lists are cached
    because Blender keeps pointers to the strings.
    """
    numbers = {value: number for number, value in enumerate(all_choices(field))}

    def items(settings, _context):
        key = (settings.kind, field)
        if key not in _choice_items:
            values = choices(settings.kind, field) or all_choices(field)
            _choice_items[key] = [(v, v.replace("_", " ").title(), description, numbers[v]) for v in values]
        return _choice_items[key]

    return items


def option_property(name: str, **extra: Any):
    """The Blender property of the registry option ``name`` (``schema_property``); menus of kind options
    list the choices of the settings' kind. ``extra`` adds keywords (the kind menu's ``items`` and ``update``).
    """
    return schema_property(options_by_name()[name], **extra)


PATH_OPTIONS = {"PATH_SUPPORTS_BLEND_RELATIVE"} if bpy.app.version >= (4, 5, 0) else set()
"""File paths may start with ``//`` (Blender 4.5+ asks properties to declare it)."""


def schema_property(option: Option, **extra: Any):
    """The Blender property of a ``schema.Option``: its label, description, default, limits.

    Floats take the option's limits (``ui_minimum`` where the minimum is exclusive), slider range, subtype
    and unit, and show as a factor slider when limited to 0..1; vectors (``size``) are float vectors; explicit
    sizes and free text (a ``str`` option without choices; ``subtype="FILE_PATH"``, ``"DIR_PATH"`` for paths) are text
    fields. Menus of options that are not a kind's (the common ones, such as ``fractal``) list every choice,
    with ``choice_text`` as their labels and descriptions.
    """
    name = option.name
    label, description = option.label, option.description
    default: Any = option.default
    if option.type is bool:
        return BoolProperty(name=label, description=description, default=bool(default), **extra)
    if option.type is str and not option.choices:
        if option.subtype is not None:
            extra = {"subtype": option.subtype, **extra}
            if option.subtype in ("FILE_PATH", "DIR_PATH"):
                extra["options"] = PATH_OPTIONS
        return StringProperty(name=label, description=description, default=str(default), **extra)
    if option.type is str:
        if extra:
            return EnumProperty(name=label, description=description, default=str(default), **extra)
        if option in COMMON_OPTIONS or name not in options_by_name():  # the same choices for every kind
            texts = option.choice_text or [(value.replace("_", " ").title(), description) for value in option.choices]
            items = [(value, *text) for value, text in zip(option.choices, texts, strict=True)]
            return EnumProperty(name=label, description=description, items=items, default=str(default))
        return EnumProperty(name=label, description=description, items=_items_for(name, description))
    if option.type is tuple:
        return StringProperty(name=label, description=description, default="", **extra)
    limits: dict[str, Any] = {"subtype": option.subtype} if option.subtype is not None else {}
    if option.unit is not None:
        limits["unit"] = option.unit
    low = option.ui_minimum if option.above else option.minimum
    for key, value in (
        ("min", low),
        ("max", option.maximum),
        ("soft_min", option.soft_minimum),
        ("soft_max", option.soft_maximum),
    ):
        if value is not None:
            limits[key] = option.type(value)
    if option.type is int:
        return IntProperty(name=label, description=description, default=int(default), **limits, **extra)
    if option.size:
        return FloatVectorProperty(
            name=label, description=description, default=tuple(default), size=option.size, **limits, **extra
        )
    if (option.minimum, option.maximum) == (0.0, 1.0):
        limits.setdefault("subtype", "FACTOR")
    return FloatProperty(name=label, description=description, default=float(default), **limits, **extra)


def properties_of(*options: Option) -> dict[str, Any]:
    """The Blender properties of ``options`` by name, for a class's ``__annotations__``."""
    return {option.name: schema_property(option) for option in options}


def _on_kind_change(settings, _context) -> None:
    """Keep dimension, tiling and choice fields valid for the new kind (its default where the old value is foreign)."""
    info = KINDS[settings.kind]
    if int(settings.dimensions) not in info.dims:
        settings.dimensions = str(max(info.dims))
    if settings.tiling and not info.tiling:
        settings.tiling = False
    for option in info.options:
        if option.type is str:
            allowed = option.choices
            numbers = [all_choices(option.name).index(value) for value in allowed]
            if settings.get(option.name, 0) not in numbers:  # the stored enum number: no warning if foreign
                setattr(settings, option.name, allowed[0])


class NoiseSettings(bpy.types.PropertyGroup):
    """What noise to compute (``NoiseSpec``: a property per registry option) and where to read it
    (``DOMAIN_OPTIONS``: offset, rotation, scale, axes)."""

    __annotations__ = {  # Blender reads the properties from here
        "kind": option_property("kind", items=KIND_ITEMS, update=_on_kind_change),
        **{property_name(option): schema_property(option) for option in options_by_name().values()
           if option.name != "kind"},
        **properties_of(*DOMAIN_OPTIONS),
    }  # fmt: skip

    if TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            """The generated properties, which a type checker cannot see."""

        def __setattr__(self, name: str, value: Any) -> None: ...


class ErosionSettings(bpy.types.PropertyGroup):
    """Erosion of a terrain or grid: hydraulic and thermal, each on or off, with every option of
    ``noise_core.terrain.erosion`` (one property per ``schema.Option`` row)."""

    __annotations__ = properties_of(*EROSION_SWITCHES, *HYDRAULIC_OPTIONS, *THERMAL_OPTIONS)


def erosion_options(settings: ErosionSettings) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(hydraulic, thermal)`` keyword arguments of ``noise_core.terrain.erosion`` (None when off)."""
    hydraulic = {o.name: getattr(settings, o.name) for o in HYDRAULIC_OPTIONS} if settings.hydraulic else None  # type: ignore[attr-defined]
    thermal = {o.name: getattr(settings, o.name) for o in THERMAL_OPTIONS} if settings.thermal else None  # type: ignore[attr-defined]
    return hydraulic, thermal


def copy_settings(source: NoiseSettings, target: NoiseSettings) -> None:
    """Copy every property of ``source`` into ``target`` (kind first: the option menus depend on it)."""
    target.kind = source.kind
    for name in source.bl_rna.properties.keys():  # noqa: SIM118 (bl_rna collections are not dicts)
        if name not in ("rna_type", "name", "kind"):
            value = getattr(source, name)
            if value == "":
                continue  # an enum whose stored value is not offered for this kind: keep the target's
            setattr(target, name, value if isinstance(value, (str, int, float, bool)) else tuple(value))


def operator_settings(operator: bpy.types.Operator, context: bpy.types.Context) -> NoiseSettings:
    """The operator's ``noise`` settings, filled from the scene's on its first run without explicit ones.

    Reading an operator's pointer property creates it, so ``is_property_set`` is checked first: Adjust
    Last Operation re-runs with the values of the run it adjusts. Operators declare ``noise`` with
    ``SKIP_SAVE`` so a new run starts from the scene's settings, not the previous run's.

    Every operator starts here, so this is also where NaN and infinities are refused, in any float option
    of the operator or of its noise settings (``UserError`` naming the option, see ``check_finite``).
    """
    if not operator.properties.is_property_set("noise"):
        copy_settings(context.scene.noisewright, operator.noise)  # type: ignore[attr-defined]
    check_finite(operator)
    return operator.noise  # type: ignore[attr-defined]


def attach() -> None:
    bpy.types.Scene.noisewright = bpy.props.PointerProperty(  # type: ignore[attr-defined, func-returns-value]
        type=NoiseSettings, name="Noisewright", description="Noise settings of the Noise sidebar tabs"
    )
    bpy.types.Scene.noisewright_erosion = bpy.props.PointerProperty(  # type: ignore[attr-defined, func-returns-value]
        type=ErosionSettings, name="Noisewright Erosion", description="Erosion settings a new Erode run starts from"
    )


def detach() -> None:
    del bpy.types.Scene.noisewright  # type: ignore[attr-defined]
    del bpy.types.Scene.noisewright_erosion  # type: ignore[attr-defined]


CLASSES = (NoiseSettings, ErosionSettings)
