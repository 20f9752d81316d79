"""Water maps for game engines, written beside a heightmap: the water level as a heightmap of the same height range
and a flow map for the engines' water shaders (docs/engines.md, "Water: level and flow maps").

A flow map holds a direction and speed per texel in two channels, ``R = 0.5 + 0.5 u`` and ``G = 0.5 + 0.5 v``
(0.5, 0.5: still water; the convention of Vlachos 2010, "Water Flow in Portal 2", SIGGRAPH course, which the
engines' flow-map shaders read: Unreal's ``FlowMaps`` material function, Unity's and Godot's flow-map water
shaders). ``u`` runs along the texture's U axis, the image's columns left to right; ``v`` along V, whose direction
differs by engine:

- ``grid`` (``water()``'s own): ``v`` along the rows, first row to last (down the image as stored);
- ``unreal`` and ``godot``: V runs down the image (UV origin at the top-left), so ``grid`` as it is; on a
  landscape imported from our heightmap that is world +X (R) and +Y (G) in Unreal, +X and +Z in Godot;
- ``unity``: V runs up the image (UV origin at the bottom-left): ``G = 1 - G``; on a terrain imported with
  Flip Vertically (docs/engines.md) that is world +X (R) and +Z (G).

Files: ``NAME_water.ext`` (the heightmap's format, with its own sidecar: the same height range, so one Z scale
places both) and ``NAME_flow.png`` (RGB, B = 0, linear data: import it without sRGB), all or none
(``files.replacing_all``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .engines import ENGINE_NAMES
from .engines import engine as find_engine
from .files import replacing_all
from .heightmaps import (
    RAW_TYPES,
    ROW_ORDER,
    HeightmapOptions,
    describe,
    encode,
    heightmap_format,
    normalize,
    sidecar_path,
)
from .images import PNG_BITS, write_image, writer_module

FLOW_CONVENTIONS = ("grid", *ENGINE_NAMES)
"""The flow maps' conventions: ``water()``'s own, then one per engine preset."""
V_UP = ("unity",)
"""The conventions whose V axis runs up the image (G flipped from ``grid``)."""


def engine_flow(flow: np.ndarray, convention: str = "grid") -> np.ndarray:
    """``flow`` ((rows, columns, 2) in [0, 1], ``water()``'s ``grid`` convention) as ``convention`` reads it
    (module doc): float32, G flipped for Unity."""
    array = np.asarray(flow)
    if array.ndim != 3 or array.shape[2] != 2:
        raise ValueError(f"flow: expected (rows, columns, 2) values in [0, 1], got shape {array.shape}")
    if convention not in FLOW_CONVENTIONS:
        allowed = ", ".join(FLOW_CONVENTIONS)
        raise ValueError(f"engine: {convention!r} is not a flow convention; choose one of {allowed}")
    out = np.array(array, dtype=np.float32, copy=True)
    if not np.all(np.isfinite(out)) or out.min() < 0.0 or out.max() > 1.0:
        raise ValueError("flow: values must lie in [0, 1]")
    if convention in V_UP:
        out[..., 1] = 1.0 - out[..., 1]
    return out


def water_paths(path: str | Path) -> tuple[Path, Path]:
    """Where the water level and the flow map of the heightmap ``path`` = ``NAME.ext`` go: ``NAME_water.ext`` and
    ``NAME_flow.png``."""
    path = Path(path)
    return path.with_name(f"{path.stem}_water{path.suffix}"), path.with_name(f"{path.stem}_flow.png")


def flow_image(flow: np.ndarray, convention: str = "grid") -> np.ndarray:
    """The RGB image (float32 in [0, 1], B = 0) of ``flow`` in ``convention`` (``engine_flow``)."""
    directions = engine_flow(flow, convention)
    rgb = np.zeros((*directions.shape[:2], 3), np.float32)
    rgb[..., :2] = directions
    return rgb


def level_sidecar(shape: tuple[int, int], suffix: str, options: HeightmapOptions, flow_name: str) -> dict:
    """The sidecar of a ``shape`` water level heightmap in the ``suffix`` format written with ``options`` (a
    heightmap's: ``height_range``, ``unit``, ``settings``, ``engine``, ``cell_size``; ``heightmaps.describe``, the
    engine's import numbers) and what the water maps hold (the flow map ``flow_name``); ``ValueError`` when the
    engine does not take the format or size."""
    engine = options.engine
    preset = find_engine(engine) if isinstance(engine, str) else engine
    numbers = None
    if preset is not None:
        preset.check_format(suffix)
        preset.check_size(shape[1], shape[0])
        cell = 1.0 if options.cell_size is None else options.cell_size
        numbers = preset.import_settings(shape[1], shape[0], options.height_range, cell, suffix)
    record = describe(shape, suffix, options.height_range, options.unit, options.settings, ROW_ORDER, numbers)
    record["water"] = {
        "level": "the water surface (lakes at their level, rivers at the terrain plus their depth, else the terrain)",
        "flow_map": flow_name,
        "flow_convention": "grid" if preset is None else preset.name,
        "flow_channels": "R = 0.5 + 0.5 u (along the columns), G = 0.5 + 0.5 v (along V), B = 0; 0.5 = still",
    }
    return record


def write_level(path: Path, values: np.ndarray, suffix: str) -> None:
    """Write heightmap ``values`` in [0, 1] to ``path`` in the ``suffix`` format (raw or image)."""
    if suffix in RAW_TYPES:
        path.write_bytes(encode(values, suffix))
    else:
        write_image(path, values, 16)


def water_files(
    path: str | Path,
    level: np.ndarray,
    flow: np.ndarray,
    *,
    height_range: tuple[float, float],
    unit: str = "m",
    engine: str | None = None,
    cell_size: float = 1.0,
    flow_bits: int = 8,
    settings: dict | None = None,
) -> tuple[list[Path], Callable[[list[Path]], None]]:
    """The water maps of ``level`` (heights, e.g. ``water(...).level``) and ``flow`` (``water(...).flow``) beside
    the heightmap ``path`` (``water_paths``), checked but not written: ``(targets, write)``, ``write(temporaries)``
    writing one temporary per target, in order (``write_water_maps`` writes them; ``write_heightmap``'s ``beside``
    with the heightmap). The level is mapped to [0, 1] by ``height_range`` (the heightmap's, in ``unit``; levels
    outside it are clipped), in the heightmap's format, with a sidecar (the engine's import numbers when ``engine``
    is given, and the flow map's convention); the flow in the ``engine``'s convention (``grid`` without one) as an
    RGB PNG of ``flow_bits`` (8 or 16)."""
    level_path, flow_path = water_paths(path)
    suffix = heightmap_format(level_path)
    if flow_bits not in PNG_BITS:
        raise ValueError(f"flow_bits: must be 8 or 16, got {flow_bits!r}")
    heights = np.asarray(level, dtype=np.float64)
    if heights.ndim != 2:
        raise ValueError(f"level: expected a 2-D array of water levels, got shape {heights.shape}")
    rgb = flow_image(flow, "grid" if engine is None else find_engine(engine).name)
    if rgb.shape[:2] != heights.shape:
        raise ValueError(f"flow: must have the level's shape {heights.shape}, got {rgb.shape[:2]}")
    values, low_high = normalize(heights, height_range)
    options = HeightmapOptions(height_range=low_high, unit=unit, settings=settings, engine=engine, cell_size=cell_size)
    record = level_sidecar(heights.shape, suffix, options, flow_path.name)
    if suffix not in RAW_TYPES:
        writer_module(suffix)
    writer_module(".png")

    def write(temporaries: list[Path]) -> None:
        write_level(temporaries[0], values, suffix)
        temporaries[1].write_text(json.dumps(record, indent=1), encoding="utf-8")
        write_image(temporaries[2], rgb, flow_bits)

    return [level_path, sidecar_path(level_path), flow_path], write


def write_water_maps(path: str | Path, level: np.ndarray, flow: np.ndarray, **options: Any) -> list[Path]:
    """Write the water ``level`` and ``flow`` beside the heightmap ``path`` (``water_files(path, level, flow,
    **options)``: ``height_range``, ``unit``, ``engine``, ``cell_size``, ``flow_bits``, ``settings``), all files or
    none. Returns their paths."""
    targets, write = water_files(path, level, flow, **options)
    with replacing_all(targets) as temporaries:
        write(temporaries)
    return targets
