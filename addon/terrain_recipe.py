"""What a Noise Terrain is built from (``TerrainRecipe``) and the heights it makes (``terrain_heights``).

A terrain is its grid (``SHAPE_OPTIONS``, and a base heightmap: ``BASE_OPTIONS``), its noise on a domain and its
erosion stages, each optional, run in this order: rivers (``fluvial``), hydraulic droplets, thermal, then the
stages erosion operators added to it (``extra``). The heights are the library's: a ``TerrainRecipe`` is a
``noise_core.terrain.recipe.Recipe`` (``to_recipe``) at its subdivisions, built by ``build_terrain``, the one
heights pipeline the command line runs too. The grid's options are declared once, as rows: ``add_terrain``'s
defaults and checks, its operator's properties and a terrain's stored settings (``terrain_settings``) come from
them. The heights are made touching no Blender data (but the base file), so a job's worker can make them
(``terrain.regenerate_job``).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import bpy
import numpy as np

from . import compile_status
from .errors import UserError
from .mapping import Domain
from .noise_core import NoiseSpec
from .noise_core.io import heightmaps
from .noise_core.schema import Option
from .noise_core.terrain.recipe import (
    BASE_OPTIONS,
    TERRAIN_OPTIONS,
    Recipe,
    Stage,
    as_stored,
    build_terrain,
    stored_domain,
    stored_spec,
)
from .options import check, check_noise
from .progress import window_progress
from .terrain_grid import MAX_SUBDIVISIONS, MAX_VERTICES, grid, on_mesh_grid

__all__ = ["as_stored", "stored_domain", "stored_spec"]  # the library's, as the add-on's modules take them

SUBDIVISIONS = f"a whole number between 1 and {MAX_SUBDIVISIONS}"
SHAPE_OPTIONS = (
    Option("x_subdivisions", int, 128, "Faces along X", minimum=1, maximum=MAX_SUBDIVISIONS, soft_maximum=2048,
           allowed=SUBDIVISIONS, title="X Subdivisions"),
    Option("y_subdivisions", int, 128, "Faces along Y", minimum=1, maximum=MAX_SUBDIVISIONS, soft_maximum=2048,
           allowed=SUBDIVISIONS, title="Y Subdivisions"),
    *TERRAIN_OPTIONS,
)  # fmt: skip
"""The grid options of ``add_terrain``, in the order the panels draw them: the operator's properties and
a terrain's settings (the subdivisions and the recipe's own, ``noise_core.terrain.recipe.TERRAIN_OPTIONS``)."""
SHAPE_FIELDS = tuple(option.name for option in SHAPE_OPTIONS)
BASE_FIELDS = tuple(option.name for option in BASE_OPTIONS)


@dataclass(frozen=True)
class TerrainRecipe:
    """What a Noise Terrain is built from: the noise ``spec`` read on ``domain``, the grid ``shape``
    (``SHAPE_OPTIONS`` and ``BASE_OPTIONS`` by name) and the options of its erosion stages, each None when the
    stage is off: ``hydraulic`` and ``thermal`` (``noise_core.terrain.erosion``'s keyword arguments), ``fluvial``
    (``erode_fluvial.TERRAIN_OPTIONS`` by name but the switch); ``extra``: the stages erosion operators applied to
    it since (``noise_core.terrain.recipe.Stage``), run after those. A terrain keeps one
    (``terrain_settings.store``, ``recall``); ``to_recipe`` gives the library's ``Recipe``."""

    spec: NoiseSpec
    domain: Domain
    shape: dict[str, Any]
    hydraulic: dict[str, Any] | None = None
    thermal: dict[str, Any] | None = None
    fluvial: dict[str, Any] | None = None
    extra: tuple[Stage, ...] = ()

    def reshaped(self, **changes: Any) -> TerrainRecipe:
        """This recipe with ``changes`` to its grid shape (another resolution, a base file's full path)."""
        return replace(self, shape={**self.shape, **changes})


def resolved(recipe: TerrainRecipe) -> TerrainRecipe:
    """``recipe`` with its base file's path read against the .blend (``//``), on the main thread, for a worker."""
    if recipe.shape.get("base_blend", "NONE") == "NONE":
        return recipe
    return recipe.reshaped(base_file=bpy.path.abspath(recipe.shape["base_file"]))


def _check_shape(shape: dict[str, Any]) -> dict[str, Any]:
    """The grid ``shape`` checked by ``SHAPE_OPTIONS`` and against ``MAX_VERTICES``, with its base options
    (``BASE_OPTIONS``, their defaults when left out)."""
    shape = {option.name: check(option, shape[option.name]) for option in SHAPE_OPTIONS} | {
        option.name: check(option, shape.get(option.name, option.default)) for option in BASE_OPTIONS
    }
    vertices = (shape["x_subdivisions"] + 1) * (shape["y_subdivisions"] + 1)
    if vertices > MAX_VERTICES:
        raise UserError(f"x_subdivisions, y_subdivisions: {vertices} vertices exceed the limit of {MAX_VERTICES}")
    return shape


def stages_of(recipe: TerrainRecipe) -> tuple[Stage, ...]:
    """The library stages of ``recipe``, in the order they run: rivers, droplets, thermal (each when on), then
    ``extra``; ``UserError`` naming a bad or unknown option."""
    stages = []
    for kind, name, options in (("rivers", "fluvial", recipe.fluvial), ("droplets", "hydraulic", recipe.hydraulic),
                                ("thermal", "thermal", recipe.thermal)):  # fmt: skip
        if options is None:
            continue
        if not isinstance(options, dict):
            raise UserError(f"{name}: expected a dict of erosion options or None, got {type(options).__name__}")
        try:
            stages.append(Stage.of(kind, options, name))
        except (TypeError, ValueError) as error:  # a bad value is named as the erosion names it, a bad key by path
            message = str(error)
            raise UserError(message if "not an option" in message else message.removeprefix(f"{name}.")) from None
    return (*stages, *recipe.extra)


def to_recipe(recipe: TerrainRecipe) -> Recipe:
    """The library ``Recipe`` of ``recipe`` (its checked shape but the subdivisions, which are the samples it is
    built at); ``UserError`` naming a bad setting."""
    if not isinstance(recipe, TerrainRecipe):
        raise UserError(f"recipe: expected a TerrainRecipe, got {type(recipe).__name__}")
    check_noise(recipe.spec, recipe.domain)
    shape = _check_shape(recipe.shape)
    base = {option.name: shape[option.name] for option in BASE_OPTIONS}
    return Recipe(
        noise=recipe.spec,
        domain=recipe.domain,
        **{option.name: shape[option.name] for option in TERRAIN_OPTIONS},
        base=None if base["base_blend"] == "NONE" else base,
        stages=stages_of(recipe),
    )


def terrain_geometry(
    context: bpy.types.Context, recipe: TerrainRecipe
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    """``(positions, quads, uvs, masks)`` of the terrain of ``recipe``: ``grid`` of its checked shape with z
    ``terrain_heights(context, recipe)``, and its masks and flow maps, on its mesh's grid (``on_mesh_grid``: a
    terrain over ``MESH_VERTICES`` built in full, its mesh reduced); ``UserError`` as ``terrain_heights``."""
    shape, heights, masks = on_mesh_grid(recipe.shape, *terrain_heights(context, recipe))
    return (*grid(shape["x_subdivisions"], shape["y_subdivisions"], shape["size"], heights), masks)


class _Blocks:
    """``build_terrain``'s ``progress`` as the window's: one ``window_progress`` block per stage, opened when the
    stage starts (its advance checks for a cancel on a job's worker) and closed when the next one starts."""

    def __init__(self, context: bpy.types.Context, stack: ExitStack) -> None:
        self.context, self.stack = context, stack
        self.stage: str | None = None
        self.block: ExitStack | None = None
        self.advance: Callable[[int], None] | None = None
        self.shown = 0

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.block is None or (done == 0 and stage != self.stage) or done < self.shown:
            if self.block is not None:
                self.block.close()
            self.block = self.stack.enter_context(ExitStack())
            self.advance = self.block.enter_context(window_progress(self.context, total))
            self.stage, self.shown = stage, 0
        assert self.advance is not None
        self.advance(done - self.shown)
        self.shown = done


def _notice(text: str) -> None:
    """A first compile's notice to this thread's listener (``compile_status.announcing``), if any."""
    show = compile_status.listener()
    if show is not None:
        show(text)


def terrain_heights(context: bpy.types.Context, recipe: TerrainRecipe) -> tuple[np.ndarray, tuple]:
    """``(heights (N,), (erosion, deposition, drainage_area, river, sediment, talus))`` of the terrain of
    ``recipe`` at the vertices of its grid (``grid_positions``, row-major from -y):
    ``noise_core.terrain.recipe.build_terrain`` of ``to_recipe(recipe)`` at its subdivisions + 1 samples: ``(base +
    noise * height) * falloff``, eroded by its stages in order (``stages_of``). The masks are what all stages took
    and left (None without erosion), the flow maps the rivers' (None without them), the depths of sediment and
    talus the stages left; all checked first. Touches no Blender data but the base heightmap's file (a job's
    worker runs it)."""
    library = to_recipe(recipe)
    across, down = recipe.shape["x_subdivisions"], recipe.shape["y_subdivisions"]
    if library.stages and across != down:  # a square of size x size: its cells are square only then
        size = library.size
        raise UserError(
            f"x_subdivisions, y_subdivisions: erosion needs square cells; {across} x {down} subdivisions of a "
            f"{size:g} square make cells {size / across:.6g} along X by {size / down:.6g} along Y: make them "
            "equal, or turn the erosion off"
        )
    if library.base is not None:
        library = replace(library, base={**library.base, "base_file": bpy.path.abspath(library.base["base_file"])})
    with ExitStack() as stack:
        try:
            built = build_terrain(library, across + 1, down + 1, progress=_Blocks(context, stack), notice=_notice)
        except (TypeError, ValueError) as error:
            raise UserError(str(error)) from None
    masks: tuple = (None,) * 6
    if library.stages:
        masks = (built.erosion.ravel(), built.deposition.ravel(), _flat(built.drainage_area), _flat(built.river),
                 _flat(built.sediment), _flat(built.talus))  # fmt: skip
    return built.heights.ravel(), masks


def _flat(values: np.ndarray | None) -> np.ndarray | None:
    return None if values is None else values.ravel()


def read_heightmap(path: Path, name: str) -> heightmaps.Heightmap:
    """``noise_core.read_heightmap(path)``; ``UserError`` starting with ``name`` (the setting that gave the
    path) when it cannot be read."""
    try:
        return heightmaps.read_heightmap(path)
    except (ValueError, TypeError, OSError) as error:
        message = str(error).removeprefix("path: ")
        raise UserError(f"{name}: {message}" if str(path) in message else f"{name}: {str(path)!r}: {message}") from None


EROSION_WEIGHT = 4
"""The share of an erosion stage in ``stage_weights``: the noise's is 1."""


def stage_weights(recipe: TerrainRecipe) -> list[int]:
    """The shares of the ``window_progress`` blocks ``terrain_heights`` opens, in order (``progress.staged``'s
    ``weights``): the noise 1 (not evaluated on a base at height 0), then ``EROSION_WEIGHT`` per stage."""
    shape = recipe.shape
    noise = shape["base_blend"] == "NONE" or shape["height"] != 0.0
    return [1] * noise + [EROSION_WEIGHT] * len(stages_of(recipe))


SETTINGS_STAGES = (("rivers", "fluvial"), ("droplets", "hydraulic"), ("thermal", "thermal"))
"""The stages a terrain's settings switch on, in their order: (the library's stage, the ``TerrainRecipe`` field)."""


def from_recipe(recipe: Recipe, samples: int | None = None) -> TerrainRecipe:
    """The ``TerrainRecipe`` of the library ``recipe`` at ``samples`` per side (default its ``export.samples``):
    its leading rivers, droplets and thermal stages (each at most once, in that order) become the settings'
    stages, the others ``extra``."""
    samples = recipe.export["samples"] if samples is None else samples
    stages = list(recipe.stages)
    switched: dict[str, dict] = {}
    for kind, name in SETTINGS_STAGES:
        if stages and stages[0].kind == kind:
            switched[name] = dict(stages.pop(0).options)
    base = recipe.base or {option.name: option.default for option in BASE_OPTIONS}
    shape = {"x_subdivisions": samples - 1, "y_subdivisions": samples - 1}
    shape |= {option.name: getattr(recipe, option.name) for option in TERRAIN_OPTIONS} | dict(base)
    return TerrainRecipe(recipe.noise, recipe.domain, shape, extra=tuple(stages), **switched)


def library_recipe(recipe: TerrainRecipe) -> Recipe:
    """``to_recipe(recipe)`` with its grid's samples per side as ``export.samples`` (a square grid's; the larger
    side's otherwise): what a terrain saves as a recipe file."""
    library = to_recipe(recipe)
    samples = max(recipe.shape["x_subdivisions"], recipe.shape["y_subdivisions"]) + 1
    return replace(library, export={**library.export, "samples": samples})
