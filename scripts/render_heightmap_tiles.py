"""Render docs/images/heightmap_tiles.png: an Unreal tile set (2 x 2 tiles of 127 samples, overlap 1) of a
253-sample fBm terrain, written with ``noise_core.write_tiles``, read back, shaded and laid out with gaps.

    python scripts/render_heightmap_tiles.py [OUT.png]

Each tile is drawn from its own file; the shared edge rows and columns appear once on each side of a gap.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import imageio.v3 as iio
import numpy as np

from noise_core import NoiseSpec, evaluate_grid, read_heightmap, write_tiles
from noise_core.ranges import to_unit

ROOT = Path(__file__).resolve().parent.parent
GAP = 12


def shade(heights: np.ndarray, relief: float = 60.0) -> np.ndarray:
    """Hillshade (light from the north-west) times a green-to-white height tint, as 8-bit RGB."""
    dy, dx = np.gradient(heights * relief)
    normal = np.dstack((-dx, -dy, np.ones_like(heights)))
    normal /= np.linalg.norm(normal, axis=2, keepdims=True)
    light = np.array([-1.0, -1.0, 1.5]) / np.linalg.norm([-1.0, -1.0, 1.5])
    lit = 0.35 + 0.65 * np.clip(normal @ light, 0.0, 1.0)[..., None]
    low, high = np.array([0.25, 0.45, 0.2]), np.array([0.95, 0.93, 0.9])
    tint = low + (high - low) * heights[..., None]
    return (np.clip(lit * tint, 0.0, 1.0) * 255).astype(np.uint8)


def main(out: Path) -> None:
    spec = NoiseSpec(kind="perlin", octaves=6, frequency=3.0, seed=7)
    values = to_unit(spec, evaluate_grid(spec, (253, 253)))
    with tempfile.TemporaryDirectory() as folder:
        paths = write_tiles(Path(folder) / "land.png", values, 126, engine="unreal", height_range=(0, 300), unit="m")
        tiles = {path.stem: read_heightmap(path).values for path in paths}
    side = 127
    picture = np.full((2 * side + GAP, 2 * side + GAP, 3), 255, dtype=np.uint8)
    for y in range(2):
        for x in range(2):
            tile = tiles[f"land_x{x}_y{y}"]
            top, left = y * (side + GAP), x * (side + GAP)
            picture[top : top + side, left : left + side] = shade(tile.astype(np.float64))
    picture = np.repeat(np.repeat(picture, 2, axis=0), 2, axis=1)
    iio.imwrite(out, picture)
    print(f"wrote {out} ({', '.join(sorted(tiles))})")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "images" / "heightmap_tiles.png")
