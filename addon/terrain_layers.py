"""``noisewright.terrain_layers``: Object > Terrain Layers, over ``write_terrain_layers``.

The material layers of a grid mesh (``noise_core.terrain.layers``; docs/layers.md), beside its Terrain Maps and
stored as they are: each a float point attribute named after the layer (``snow``, ``moisture``, ``strata``,
``strata_band``: an Attribute node in a material, Geometry Nodes) and/or a float image ``"<object> <layer>"`` of
columns x rows pixels (non-colour data, pixel row 0 the grid's lowest Y, as Terrain Maps' images). ``sediment``
and ``talus`` are the depths the Erode operators write as attributes (``erosion_io.DEPOSITS``); with
``images`` they become images too. Moisture follows the water ``noise_core.terrain.water`` finds on the grid.
"""

from __future__ import annotations

from typing import Any, cast

import bpy
import numpy as np
from bpy.props import EnumProperty

from .erode import grid_heights
from .erosion_io import DEPOSITS
from .errors import UserError
from .image_io import data_image
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
    of those names; the other options are ``noise_core.terrain.layers.LAYER_OPTIONS``. Returns the layers per
    vertex (float32, in vertex order). ``UserError`` naming the problem; then nothing changes."""
    names = list(dict.fromkeys(layers))
    if not names:
        raise UserError("layers: choose at least one layer")
    for name in names:
        if name not in LAYER_NAMES:
            raise UserError(f"layers: {name!r} is not a layer; choose from {', '.join(LAYER_NAMES)}")
    attributes, images = options.pop("attributes"), options.pop("images")
    if not (attributes or images):
        raise UserError("attributes, images: choose at least one way to store the layers")
    mesh, positions, layout, heights = grid_heights(obj)
    cell = layout.square_cell(obj.name, "the material layers need")
    shape = (layout.rows, layout.columns)
    found = {name: _read_deposit(mesh, name, layout.order, shape) for name in names if name in DEPOSITS}
    try:
        found |= compute_layers(heights, [name for name in names if name in COMPUTED], cell, **options)
    except (TypeError, ValueError) as error:
        grid = str(error).startswith(("heights", "cell_size"))
        raise UserError(f"{obj.name!r}: {error}" if grid else str(error)) from None
    per_vertex = {}
    for name in names:
        values = np.empty(positions.shape[0], dtype=np.float32)
        values[layout.order] = found[name].ravel()
        per_vertex[name] = values
        if attributes and name not in DEPOSITS:
            write_point_floats(mesh, name, values)
        if images:
            data_image(f"{obj.name} {name}", found[name])
    mesh.update()
    return per_vertex


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
