"""``NoiseSettings``: the noise and noise-space settings, one property per ``NoiseSpec`` field plus the domain.

The scene holds one (``scene.noisewright``) that the panels edit; each operator holds its own copy
(``noise``), filled from the scene when the caller does not pass one, so Adjust Last Operation re-runs
with the values of that run. Kinds and option menus come from ``noise_core`` (``KINDS`` and the spec's
choice tuples), so new kinds appear without changes here.
"""

import bpy
from bpy.props import BoolProperty, EnumProperty, FloatProperty, FloatVectorProperty, IntProperty, StringProperty

from .mapping import all_choices, check_finite, choices
from .noise_core.kinds import KINDS
from .noise_core.spec import (
    HILL_MAX_SINES,
    HILL_SMOOTHNESS_MAX,
    HILL_SMOOTHNESS_MIN,
    MAX_OCTAVES,
    MAX_PERSISTENCE,
    SEED_MAX,
    SEED_MIN,
)

DEFAULT_OFFSET = (0.0, 0.0, 0.13)
"""The noise space's default offset. Meshes on whole-number coordinates (Blender's default cube has its
corners at +-1) sit on lattice points at whole-number frequencies, where Perlin noise is 0: with no offset
the default Displace on the default cube would not move a vertex. Z is shifted by 0.13 (0.13 x frequency
is a whole number for no frequency below 100); X and Y stay 0, so the default bake (2D noise on the XY
plane) is still exactly ``evaluate_grid``."""

KIND_ITEMS = [(info.name, info.name.replace("_", " ").title(), info.description) for info in KINDS.values()]
DIMENSION_ITEMS = [
    ("1", "1D", "Line noise along one axis of the noise space"),
    ("2", "2D", "Plane noise on two axes of the noise space"),
    ("3", "3D", "Volume noise in the whole noise space"),
]
PLANE_ITEMS = [
    ("XY", "XY", "2D noise reads the X and Y axes (images are baked on the XY plane)"),
    ("XZ", "XZ", "2D noise reads the X and Z axes (images are baked on the XZ plane)"),
    ("YZ", "YZ", "2D noise reads the Y and Z axes (images are baked on the YZ plane)"),
]
AXIS_ITEMS = [(axis, axis, f"1D noise reads the {axis} axis") for axis in "XYZ"]
CHOICE_DESCRIPTIONS = {
    "distance": "Distance metric between a point and the feature points",
    "function": "Which distance (or cell value) becomes the noise value",
    "distribution": "Distribution of the sine amplitudes",
}

_choice_items: dict[tuple[str, str], list[tuple[str, str, str, int]]] = {}


def _items_for(field: str):
    """A dynamic enum items callback: the values of ``field`` allowed for the settings' kind.

    Every value keeps one number across kinds (its index in ``all_choices``); the lists are cached
    because Blender keeps pointers to the strings.
    """
    numbers = {value: number for number, value in enumerate(all_choices(field))}

    def items(settings, _context):
        key = (settings.kind, field)
        if key not in _choice_items:
            label = CHOICE_DESCRIPTIONS[field]
            values = choices(settings.kind, field) or all_choices(field)
            _choice_items[key] = [(v, v.replace("_", " ").title(), label, numbers[v]) for v in values]
        return _choice_items[key]

    return items


def _on_kind_change(settings, _context) -> None:
    """Keep dimension, tiling and choice fields valid for the new kind (its default where the old value is foreign)."""
    info = KINDS[settings.kind]
    if int(settings.dimensions) not in info.dims:
        settings.dimensions = str(max(info.dims))
    if settings.tiling and not info.tiling:
        settings.tiling = False
    for field in ("distance", "function", "distribution"):
        allowed = choices(settings.kind, field)
        numbers = [all_choices(field).index(value) for value in allowed]
        if allowed and settings.get(field, 0) not in numbers:  # the stored enum number: no warning if foreign
            setattr(settings, field, allowed[0])


class NoiseSettings(bpy.types.PropertyGroup):
    """What noise to compute (``NoiseSpec``) and where to read it (offset, rotation, scale, axes)."""

    kind: EnumProperty(  # type: ignore[valid-type]
        name="Kind", description="Which noise", items=KIND_ITEMS, default="perlin", update=_on_kind_change
    )
    seed: IntProperty(  # type: ignore[valid-type]
        name="Seed", description="Hash seed; octave o uses seed + o", default=0, min=SEED_MIN, max=SEED_MAX
    )
    frequency: FloatProperty(  # type: ignore[valid-type]
        name="Frequency",
        description="Lattice cells per unit of noise space (a whole number when tiling)",
        default=4.0,
        min=1e-6,
        soft_min=0.1,
        soft_max=64.0,
    )
    octaves: IntProperty(  # type: ignore[valid-type]
        name="Octaves", description="Fractal octaves summed", default=1, min=1, max=MAX_OCTAVES
    )
    lacunarity: FloatProperty(  # type: ignore[valid-type]
        name="Lacunarity",
        description="Frequency factor per octave (a whole number when tiling)",
        default=2.0,
        min=1e-3,
        soft_min=1.0,
        soft_max=4.0,
    )
    persistence: FloatProperty(  # type: ignore[valid-type]
        name="Persistence",
        description="Amplitude factor per octave",
        default=0.5,
        min=0.0,
        max=MAX_PERSISTENCE,
        soft_max=1.0,
    )
    turbulence: BoolProperty(  # type: ignore[valid-type]
        name="Turbulence", description="Sum the absolute value of each octave (creased, range 0..1)", default=False
    )
    tiling: BoolProperty(  # type: ignore[valid-type]
        name="Tiling", description="Repeat with period 1 along every axis (seamless 0..1 images)", default=False
    )
    distance: EnumProperty(  # type: ignore[valid-type]
        name="Distance", description=CHOICE_DESCRIPTIONS["distance"], items=_items_for("distance")
    )
    function: EnumProperty(  # type: ignore[valid-type]
        name="Function", description=CHOICE_DESCRIPTIONS["function"], items=_items_for("function")
    )
    jitter: FloatProperty(  # type: ignore[valid-type]
        name="Jitter",
        description="How far feature points may move from their cell centres (0 = regular grid)",
        default=1.0,
        min=0.0,
        max=1.0,
        subtype="FACTOR",
    )
    density: FloatProperty(  # type: ignore[valid-type]
        name="Density", description="Mean feature points per cell", default=4.0, min=1e-3, max=16.0, soft_min=0.5
    )
    smoothness: FloatProperty(  # type: ignore[valid-type]
        name="Smoothness",
        description="How fast sine sizes shrink (larger = smoother); unused with explicit sizes",
        default=2.0,
        min=HILL_SMOOTHNESS_MIN,
        max=HILL_SMOOTHNESS_MAX,
        soft_min=0.1,
        soft_max=8.0,
    )
    sines: IntProperty(  # type: ignore[valid-type]
        name="Sines",
        description="Number of sines summed; unused with explicit sizes",
        default=12,
        min=1,
        max=HILL_MAX_SINES,
        soft_max=64,
    )
    sizes: StringProperty(  # type: ignore[valid-type]
        name="Sizes",
        description="Explicit sine sizes separated by commas (e.g. 1, 0.5, 0.25); blank: from smoothness and sines",
        default="",
    )
    distribution: EnumProperty(  # type: ignore[valid-type]
        name="Distribution", description=CHOICE_DESCRIPTIONS["distribution"], items=_items_for("distribution")
    )
    alpha: FloatProperty(  # type: ignore[valid-type]
        name="Alpha", description="Weibull scale", default=1.0, min=1e-3, soft_max=10.0
    )
    beta: FloatProperty(  # type: ignore[valid-type]
        name="Beta", description="Weibull shape", default=1.0, min=1e-3, soft_max=10.0
    )
    offset: FloatVectorProperty(  # type: ignore[valid-type]
        name="Offset",
        description="Translation of the noise space (added last); Z starts off the lattice, see DEFAULT_OFFSET",
        size=3,
        default=DEFAULT_OFFSET,
        subtype="TRANSLATION",
    )
    rotation: FloatVectorProperty(  # type: ignore[valid-type]
        name="Rotation", description="XYZ Euler rotation of the noise space", size=3, subtype="EULER"
    )
    scale: FloatVectorProperty(  # type: ignore[valid-type]
        name="Scale",
        description="Scale of the positions before rotation (larger = smaller features)",
        size=3,
        default=(1.0, 1.0, 1.0),
        soft_min=-100.0,
        soft_max=100.0,
        subtype="XYZ",
    )
    dimensions: EnumProperty(  # type: ignore[valid-type]
        name="Dimensions", description="Dimension of the noise", items=DIMENSION_ITEMS, default="3"
    )
    plane: EnumProperty(  # type: ignore[valid-type]
        name="Plane", description="Axes 2D noise reads; the plane images are baked on", items=PLANE_ITEMS, default="XY"
    )
    axis: EnumProperty(  # type: ignore[valid-type]
        name="Axis", description="Axis 1D noise reads", items=AXIS_ITEMS, default="X"
    )


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


def detach() -> None:
    del bpy.types.Scene.noisewright  # type: ignore[attr-defined]


CLASSES = (NoiseSettings,)
