"""``noisewright.terrain_layers``: Object > Terrain Layers, over ``write_terrain_layers``.

The material layers of a grid mesh (``noise_core.terrain.layers``; docs/layers.md), beside its Terrain Maps and
stored as they are: each a float point attribute named after the layer (``snow``, ``moisture``, ``strata``,
``strata_band``: an Attribute node in a material, Geometry Nodes) and/or a float image ``"<object> <layer>"`` of
columns x rows pixels (non-colour data, pixel row 0 the grid's lowest Y, as Terrain Maps' images). ``sediment``
and ``talus`` are the depths the Erode operators write as attributes (``erosion_io.DEPOSITS``); with
``images`` they become images too. Moisture follows the water ``noise_core.terrain.water`` finds on the grid.
The object remembers the last layers written and their settings (``RECORD``): a Noise Terrain's Regenerate makes
them again of the new heights (``recorded_layers``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import bpy
import numpy as np
from bpy.props import EnumProperty

from .erode import grid_heights
from .erosion_io import DEPOSITS, grid_layout
from .errors import UserError
from .image_io import data_image
from .jobs import Job
from .mesh_io import write_point_floats
from .noise_core.schema import Option
from .noise_core.terrain.layers import LAYER_NAMES, LAYER_OPTIONS, compute_layers
from .options import OptionsOperator, checked, properties_of, reports

COMPUTED = tuple(name for name in LAYER_NAMES if name not in DEPOSITS)
"""The layers computed from the heights (the others are Erode's attributes)."""
DEFAULT_LAYERS = ("snow", "moisture", "strata")
STORE_OPTIONS: tuple[Option, ...] = (
    Option("attributes", bool, True, "Store float point attributes (Attribute node, Geometry Nodes)"),
    Option("images", bool, False, "Store float images named '<object> <layer>', one pixel per vertex"),
)
"""Where ``write_terrain_layers`` stores the layers."""
LAYER_OPTION_NAMES = frozenset(option.name for option in LAYER_OPTIONS)
RECORD_OPTIONS = {option.name: option for option in (*STORE_OPTIONS, *LAYER_OPTIONS)}
RECORD = "noisewright_terrain_layers"
"""The object's custom property (JSON) holding the layers ``write_terrain_layers`` last wrote and their settings,
for a Noise Terrain's Regenerate (``recorded_layers``)."""


def _read_deposit(mesh: bpy.types.Mesh, name: str, order: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The Erode operators' depth attribute ``name`` on the grid (``UserError`` when the mesh has none)."""
    attribute = mesh.attributes.get(name)
    if attribute is None or attribute.domain != "POINT" or attribute.data_type != "FLOAT":
        raise UserError(f"layers: {name!r} is the depth the Erode operators leave; erode the terrain first")
    values = np.empty(len(mesh.vertices), dtype=np.float32)
    attribute.data.foreach_get("value", values)
    return values[order].reshape(shape)


@checked(*STORE_OPTIONS, *LAYER_OPTIONS)
def write_terrain_layers(
    obj: bpy.types.Object, layers: tuple[str, ...] | list[str] = DEFAULT_LAYERS, **options: Any
) -> dict[str, np.ndarray]:
    """Compute ``layers`` (``LAYER_NAMES``) of the grid mesh ``obj`` (cell size: the grid's spacing) and store them
    as point attributes (``attributes``) and/or float images ``"<object> <layer>"`` (``images``), replacing ones
    of those names; the other options are ``noise_core.terrain.layers.LAYER_OPTIONS``. The object remembers them
    (``RECORD``): a Noise Terrain's Regenerate makes them again. Returns the layers per vertex (float32, in vertex
    order). ``UserError`` naming the problem; then nothing changes."""
    names = list(dict.fromkeys(layers))
    if not names:
        raise UserError("layers: choose at least one layer")
    for name in names:
        if name not in LAYER_NAMES:
            raise UserError(f"layers: {name!r} is not a layer; choose from {', '.join(LAYER_NAMES)}")
    if not (options["attributes"] or options["images"]):
        raise UserError("attributes, images: choose at least one way to store the layers")
    mesh, positions, _layout, _heights = grid_heights(obj)
    return _grid_job(obj.name, mesh.name, positions, {"layers": names, **options}).run()


def _grid_job(object_name: str, mesh_name: str, positions: np.ndarray, settings: dict[str, Any]) -> Job:
    """The layers ``settings`` asks for (``RECORD``'s entry) of the mesh ``mesh_name`` of ``object_name`` whose
    vertices are at ``positions`` as a ``jobs.Job``: ``compute`` (any thread) computes the layers of the heights,
    ``apply`` (main thread) reads Erode's depths, writes them all and records ``settings``."""
    names = settings["layers"]
    options = {key: value for key, value in settings.items() if key in LAYER_OPTION_NAMES}
    layout = grid_layout(object_name, positions)
    cell = layout.square_cell(object_name, "the material layers need")
    shape = (layout.rows, layout.columns)
    heights = positions[layout.order, 2].reshape(shape)

    def compute(advance: Callable[[int], None]) -> dict[str, np.ndarray]:
        try:
            found = compute_layers(heights, [name for name in names if name in COMPUTED], cell, **options)
        except (TypeError, ValueError) as error:
            grid = str(error).startswith(("heights", "cell_size"))
            raise UserError(f"{object_name!r}: {error}" if grid else str(error)) from None
        advance(1)
        return found

    def apply(found: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        target = bpy.data.objects.get(object_name)
        if target is None or target.type != "MESH" or target.data.name != mesh_name or target.mode == "EDIT":
            raise UserError(f"{object_name!r}: the object was removed, renamed or is in Edit Mode; nothing was changed")
        mesh = cast(bpy.types.Mesh, target.data)
        if len(mesh.vertices) != positions.shape[0]:
            raise UserError(f"{object_name!r}: the mesh changed while computing its layers; nothing was changed")
        found = {**{name: _read_deposit(mesh, name, layout.order, shape) for name in DEPOSITS if name in names},
                 **found}  # fmt: skip
        per_vertex = {}
        for name in names:
            values = np.empty(positions.shape[0], dtype=np.float32)
            values[layout.order] = found[name].ravel()
            per_vertex[name] = values
            if settings["attributes"] and name not in DEPOSITS:
                write_point_floats(mesh, name, values)
            if settings["images"]:
                data_image(f"{object_name} {name}", found[name])
        mesh.update()
        cast(Any, target)[RECORD] = json.dumps(settings)
        return per_vertex

    return Job(compute, apply, 1)


@dataclass(frozen=True)
class RecordedLayers:
    """The layers Terrain Layers last wrote on the object ``object_name`` (``RECORD``; None: none), read on the
    main thread, to make again of the positions its mesh ``mesh_name`` will get (a Noise Terrain's rebuild,
    ``terrain.regenerate_job``), as ``terrain_maps.RecordedMaps`` does its maps."""

    object_name: str
    mesh_name: str
    settings: dict[str, Any] | None

    @property
    def total(self) -> int:
        """The progress ``job(positions)``'s ``compute`` reports in all (0: no layers recorded)."""
        return 1 if self.settings else 0

    def job(self, positions: np.ndarray) -> Job:
        """The recorded layers of the mesh with vertices at ``positions`` as a ``jobs.Job`` (``_grid_job``'s)."""
        assert self.settings is not None
        return _grid_job(self.object_name, self.mesh_name, positions.astype(np.float64), self.settings)


def recorded_layers(obj: bpy.types.Object) -> RecordedLayers:
    """The layers recorded on ``obj`` (``RecordedLayers``), read and checked here (main thread); a damaged record
    (edited by hand) is ``UserError`` naming the property."""
    text = cast(Any, obj).get(RECORD)
    if text is None:
        return RecordedLayers(obj.name, cast(bpy.types.Mesh, obj.data).name, None)
    try:
        settings = json.loads(text) if isinstance(text, str) else None
        if not isinstance(settings, dict) or set(settings) - {"layers", *RECORD_OPTIONS}:
            raise ValueError("expected the layers and their settings")
        checked_settings = {key: RECORD_OPTIONS[key].check(value) for key, value in settings.items() if key != "layers"}
        names = settings.get("layers")
        if not isinstance(names, list) or not names or not set(names) <= set(LAYER_NAMES):
            raise ValueError(f"'layers' must name layers of {', '.join(LAYER_NAMES)}")
    except (TypeError, ValueError) as error:
        raise UserError(f"{obj.name!r}: its terrain layers record (custom property {RECORD!r}) is damaged: {error}; "
                        "delete the property and run Object > Terrain Layers again") from None  # fmt: skip
    full = {option.name: option.default for option in RECORD_OPTIONS.values()} | checked_settings
    return RecordedLayers(obj.name, cast(bpy.types.Mesh, obj.data).name, {"layers": names, **full})


LAYER_ITEMS = [(name, name.replace("_", " ").title(), f"The {name.replace('_', ' ')} layer") for name in LAYER_NAMES]


class NOISEWRIGHT_OT_terrain_layers(OptionsOperator, bpy.types.Operator):
    """Compute material layers (snow, moisture along water, rock strata) of the active grid mesh as attributes or
    images"""

    bl_idname = "noisewright.terrain_layers"
    bl_label = "Terrain Layers"
    __annotations__ = {
        "layers": EnumProperty(  # type: ignore[func-returns-value]
            name="Layers", items=LAYER_ITEMS, options={"ENUM_FLAG"}, default=set(DEFAULT_LAYERS),
            description="The layers to store; each under its own name (sediment and talus: Erode's depths)",
        ),
        **properties_of(*STORE_OPTIONS, *LAYER_OPTIONS),
    }  # fmt: skip

    @staticmethod
    def unavailable(context) -> str:
        obj = context.active_object
        return "" if context.mode == "OBJECT" and obj is not None and obj.type == "MESH" else "Select a grid mesh"

    @reports
    def execute(self, context):
        options = self.keywords()
        options["layers"] = sorted(options["layers"], key=LAYER_NAMES.index)
        write_terrain_layers(context.active_object, **options)
        return {"FINISHED"}


def menu_entry(self, _context) -> None:
    cast(Any, self.layout).operator(NOISEWRIGHT_OT_terrain_layers.bl_idname)


CLASSES = (NOISEWRIGHT_OT_terrain_layers,)
