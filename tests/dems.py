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
