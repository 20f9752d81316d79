"""The real DEMs in ``tests/data/dems`` (README there): heights in metres on square cells, with their cell size."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from PIL import Image

from noise_core.terrain.resample import resample_bilinear

FOLDER = Path(__file__).resolve().parent / "data" / "dems"
FOOT = 0.3048
SRTM_CELL = 90.0
SRTM = ("himalaya-annapurna", "karakoram", "norway", "highlands", "colorado")
JACKSBORO = "jacksboro"
NAMES = (*SRTM, JACKSBORO)
EARTH_RADIUS = 6_371_008.8  # mean radius (IUGG), metres


@dataclass(frozen=True)
class Dem:
    name: str
    heights: np.ndarray
    """(H, W) float64 elevation in metres, on square cells."""
    cell_size: float
    """Metres between cell centres, both ways."""
    sea: np.ndarray
    """(H, W) bool: sea cells (elevation 0 in ``norway``), to be treated as outlets; all False elsewhere."""


@cache
def load(name: str) -> Dem:
    """The DEM ``name`` (one of ``NAMES``). SRTM tiles: feet to metres, 90 m cells. Jacksboro: resampled
    bilinearly along its rows from 74.4 m to its 92.6 m north-south spacing, so its cells are square."""
    if name == JACKSBORO:
        data = np.load(FOLDER / "jacksboro_fault_dem.npz")
        elevation = data["elevation"].astype(np.float64)
        latitude = math.radians(0.5 * (float(data["ymin"]) + float(data["ymax"])))
        north = math.radians(float(data["dy"])) * EARTH_RADIUS
        east = math.radians(float(data["dx"])) * EARTH_RADIUS * math.cos(latitude)
        columns = round((elevation.shape[1] - 1) * east / north) + 1
        heights = resample_bilinear(elevation, (elevation.shape[0], columns))
        heights.flags.writeable = False
        return Dem(name, heights, north, np.zeros(heights.shape, dtype=bool))
    if name not in SRTM:
        raise ValueError(f"name: expected one of {', '.join(NAMES)}, got {name!r}")
    with Image.open(FOLDER / f"{name}.png") as image:
        codes = np.asarray(image, dtype=np.uint16 if image.mode.startswith("I;16") else np.int32)
    heights = codes.astype(np.float64) * FOOT
    sea = codes == 0 if name == "norway" else np.zeros(codes.shape, dtype=bool)
    heights.flags.writeable = False
    sea.flags.writeable = False
    return Dem(name, heights, SRTM_CELL, sea)


FLAT_SLOPE = 1e-3
"""A cell is flat when its height differs from each of its 8 neighbours by less than this times their distance
(9 cm across a 90 m cell: below the SRTM tiles' step of a foot)."""
CHANNEL_AREA = 100
"""A cell is on a channel when its D8 drainage area over the filled DEM is at least this many cells."""


def drains(dem: Dem) -> np.ndarray:
    """Where water leaves ``dem``: its edge cells and its sea (uint8, flat)."""
    mask = np.ones(dem.heights.shape, dtype=np.uint8)
    mask[1:-1, 1:-1] = 0
    return (mask | dem.sea).reshape(-1).astype(np.uint8)


def channels(dem: Dem) -> np.ndarray:
    """The channel cells of ``dem`` (bool map): D8 drainage area >= ``CHANNEL_AREA`` cells over its
    Priority-Flood+ε fill, the edges and the sea draining."""
    from noise_core.terrain import flow

    outlets = drains(dem)
    filled = np.array(dem.heights, dtype=np.float64).reshape(-1)
    flow.fill_flat(filled, dem.heights.shape, outlets, False, True)
    receivers = flow.d8_receivers(filled.reshape(dem.heights.shape), outlets=outlets)
    area = flow.accumulate(receivers, flow.stack_order(receivers), np.ones(filled.size))
    return (area >= CHANNEL_AREA).reshape(dem.heights.shape)


def roughness(heights: np.ndarray) -> float:
    """Cell-scale roughness: the standard deviation of the 5-point Laplacian over the interior cells."""
    h = np.asarray(heights, dtype=np.float64)
    laplacian = h[1:-1, :-2] + h[1:-1, 2:] + h[:-2, 1:-1] + h[2:, 1:-1] - 4.0 * h[1:-1, 1:-1]
    return float(laplacian.std())


def flat_share(heights: np.ndarray, cell_size: float, sea: np.ndarray) -> float:
    """The share of the land cells (not ``sea``) that are flat (``FLAT_SLOPE``)."""
    h = np.asarray(heights, dtype=np.float64)
    padded = np.pad(h, 1, mode="edge")
    steepest = np.zeros(h.shape)
    rows, columns = h.shape
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dy or dx:
                other = padded[1 + dy : 1 + dy + rows, 1 + dx : 1 + dx + columns]
                steepest = np.maximum(steepest, np.abs(h - other) / (cell_size * math.hypot(dy, dx)))
    land = ~sea
    return float((steepest < FLAT_SLOPE)[land].mean())
