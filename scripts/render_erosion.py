"""Render docs/erosion.md's pictures: one terrain before and after droplet erosion at two resolutions (no Blender).

    python scripts/render_erosion.py                     # docs/images/erosion_*.png
    python scripts/render_erosion.py --out-dir /tmp/erosion --sizes 257 513
    python scripts/render_erosion.py --dem colorado      # docs/images/erosion/dem_colorado.png (issue 42)

The terrain is Perlin fBm (8 octaves) ``EXTENT`` units wide and ``RELIEF`` high, sampled at each of ``--sizes``
cells a side (the same shape: ``cell_size = EXTENT / (size - 1)``). ``erosion_<size>.png`` shows, left to right:
before; default ``erode_hydraulic``; with ``GULLIES`` (the Eroded Canyon preset's droplet settings); the change of
the last (red: lowered, blue: raised, ``±CHANGE_SCALE``). Each panel is a coloured hillshade (sun from the
north-west, 45° up) drawn on ``PANEL`` pixels, area-averaged from the map. ``erosion_detail.png`` is a crop at one
pixel per cell of the largest size (before, default, gullies). Each file is written whole or not at all; the paths
and the measured pit densities and mean changes are printed.

``--dem NAME`` renders one of the real DEMs of ``tests/dems.py`` (heights in metres, its cell size) instead, as
``erosion/dem_<name>.png``: top, grey hillshades (sun from the north-west) before, after default erosion and with
``gullies=8`` (the whole tile on ``PANEL`` pixels); below, the channel cells the tests measure (blue) and the
change of each (red lowered, blue raised, saturating at ``DEM_RUNS``' metres), then a crop of the three at one
pixel per cell (``DEM_CROP`` cells). The measures of
issue 42 are printed (``bench_erosion.py --real`` has them for every DEM).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import imageio.v3 as iio
import numpy as np
from PIL import Image

import noise_core as nc
from noise_core.io.files import replacing
from noise_core.terrain.erosion import pit_density

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "docs" / "images"
EXTENT, RELIEF = 100.0, 25.0
SPEC = nc.NoiseSpec(kind="perlin", octaves=8, frequency=2.0, seed=3)
GULLIES = {"gullies": 8.0, "lifetime": 60, "droplet_density": 1.0}
PANEL = 320
CHANGE_SCALE = 1.0
GAP = 6
RAMP = np.array([[0.20, 0.33, 0.16], [0.45, 0.42, 0.25], [0.62, 0.52, 0.40], [0.95, 0.95, 0.95]])


def terrain(size: int) -> tuple[np.ndarray, float]:
    """The terrain at ``size``² cells and its cell size."""
    heights = nc.ranges.to_unit(SPEC, nc.evaluate_grid(SPEC, (size, size))) * RELIEF
    return heights.astype(np.float32), EXTENT / (size - 1)


def hillshade(heights: np.ndarray, cell_size: float) -> np.ndarray:
    """Lambertian shading (0..1) under a sun from the north-west (rows grow southwards), 45° up."""
    gy, gx = np.gradient(heights.astype(np.float64), cell_size)
    sun = np.array([-1.0, -1.0, np.sqrt(2.0)]) / 2.0  # towards the sun: x, y, z
    return np.clip((-gx * sun[0] - gy * sun[1] + sun[2]) / np.sqrt(gx * gx + gy * gy + 1.0), 0.0, 1.0)


def coloured(heights: np.ndarray, cell_size: float) -> np.ndarray:
    """Height through ``RAMP`` times the hillshade, as float RGB 0..1."""
    level = np.clip(heights / RELIEF, 0.0, 1.0) * (len(RAMP) - 1)
    low = np.minimum(level.astype(int), len(RAMP) - 2)
    t = (level - low)[..., None]
    colour = RAMP[low] * (1 - t) + RAMP[low + 1] * t
    return colour * (0.25 + 0.75 * hillshade(heights, cell_size))[..., None]


def change_map(change: np.ndarray) -> np.ndarray:
    """Lowered red, raised blue, white for no change, saturating at ``CHANGE_SCALE``."""
    t = np.clip(change / CHANGE_SCALE, -1.0, 1.0)[..., None]
    white = np.ones(3)
    return np.where(
        t < 0, white + (np.array([0.75, 0.05, 0.05]) - white) * -t, white + (np.array([0.1, 0.2, 0.8]) - white) * t
    )


def panel(rgb: np.ndarray, pixels: int) -> np.ndarray:
    """``rgb`` area-averaged (or repeated) to ``pixels``² pixels."""
    size = rgb.shape[0]
    if size < pixels:
        nearest = np.arange(pixels) * size // pixels
        return rgb[nearest][:, nearest]
    edges = np.linspace(0, size, pixels + 1).astype(int)
    rows = np.add.reduceat(rgb, edges[:-1], axis=0) / np.diff(edges)[:, None, None]
    return np.add.reduceat(rows, edges[:-1], axis=1) / np.diff(edges)[None, :, None]


def row(panels: list[np.ndarray]) -> np.ndarray:
    gap = np.ones((panels[0].shape[0], GAP, 3))
    pieces = [piece for image in panels for piece in (image, gap)][:-1]
    return np.concatenate(pieces, axis=1)


def to_bytes(rgb: np.ndarray) -> np.ndarray:
    return np.round(255 * np.clip(rgb, 0.0, 1.0) ** (1 / 2.2)).astype(np.uint8)


DEM_CROP = 320
DEM_RUNS = (("default", {}, 25.0), ("gullies", {"gullies": 8.0}, 150.0))
"""Label, options and the change (metres) at which the change map saturates."""


def _dems():
    """``tests/dems.py``, loaded from its file (the tests are no installed package)."""
    spec = importlib.util.spec_from_file_location(
        "noisewright_test_dems", Path(__file__).resolve().parents[1] / "tests" / "dems.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # before running it: its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def grey(heights: np.ndarray, cell_size: float) -> np.ndarray:
    """The hillshade as grey RGB, linear (``to_bytes`` encodes it): 0.1..1 on screen."""
    return np.repeat(((0.1 + 0.9 * hillshade(heights, cell_size)) ** 2.2)[..., None], 3, axis=2)


def channel_map(heights: np.ndarray, cell_size: float, channel: np.ndarray) -> np.ndarray:
    """The hillshade with the channel cells (``tests/dems.py``'s ``channels``) in blue."""
    image = grey(heights, cell_size)
    image[channel] = (0.05, 0.2, 0.8)
    return image


def render_dem(name: str, out_dir: Path, crop: tuple[int, int] | None) -> Path:
    """``erosion/dem_<name>.png`` (module docstring); ``crop``: the crop's top-left cell (default: the centre)."""
    dems = _dems()
    dem = dems.load(name)
    heights, cell = dem.heights, dem.cell_size
    afters = [nc.erode_hydraulic(heights, cell_size=cell, **options).heights.astype(np.float64)
              for _, options, _ in DEM_RUNS]  # fmt: skip
    channel = dems.channels(dem)
    for (label, _, _), after in zip(DEM_RUNS, afters, strict=True):
        before, later = nc.depressions(heights, outlets=dem.sea), nc.depressions(after, outlets=dem.sea)
        print(f"{name} {label}: channels {float((after - heights)[channel].mean()):+.1f} m, depressions "
              f"{100 * before[0]:.2f} -> {100 * later[0]:.2f} %, roughness x"
              f"{dems.roughness(after) / dems.roughness(heights):.2f}, mean |change| "
              f"{float(np.abs(after - heights).mean()):.1f} m")  # fmt: skip
    top = row([panel(grey(h, cell), PANEL) for h in (heights, *afters)])
    channels = panel(channel_map(heights, cell, channel), PANEL)
    scales = [scale for _, _, scale in DEM_RUNS]
    change = row([channels] + [panel(change_map_scaled(after - heights, scale), PANEL)
                               for after, scale in zip(afters, scales, strict=True)])  # fmt: skip
    size = min(heights.shape)
    side = min(DEM_CROP, size)
    first = crop if crop is not None else ((heights.shape[0] - side) // 2, (heights.shape[1] - side) // 2)
    window = (slice(first[0], first[0] + side), slice(first[1], first[1] + side))
    detail = [grey(h, cell)[window] for h in (heights, *afters)]
    image = np.concatenate([top, np.ones((GAP, top.shape[1], 3)), change], axis=0)
    detail_row = row(detail)
    width = max(image.shape[1], detail_row.shape[1])
    pad = lambda part: np.pad(part, ((0, 0), (0, width - part.shape[1]), (0, 0)), constant_values=1.0)  # noqa: E731
    image = np.concatenate([pad(image), np.ones((GAP, width, 3)), pad(detail_row)], axis=0)
    path = out_dir / "erosion" / f"dem_{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as temporary:
        Image.fromarray(to_bytes(image)).save(temporary, format="PNG", optimize=True)
    return path


def change_map_scaled(change: np.ndarray, scale: float) -> np.ndarray:
    """``change_map`` saturating at ``scale``."""
    return change_map(change * (CHANGE_SCALE / scale))


def main(argv: list[str] | None = None) -> list[Path]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_DIR, help=f"folder (default {DEFAULT_DIR})")
    parser.add_argument("--sizes", type=int, nargs=2, default=(513, 1025), help="cells a side (default 513 1025)")
    parser.add_argument("--dem", help="a real DEM of tests/dems.py instead (its name, e.g. colorado)")
    parser.add_argument("--crop", type=int, nargs=2, metavar=("ROW", "COLUMN"), help="--dem: the crop's first cell")
    args = parser.parse_args(argv)
    if args.dem is not None:
        path = render_dem(args.dem, args.out_dir, tuple(args.crop) if args.crop else None)
        print(path)
        return [path]
    if min(args.sizes) < 16:
        parser.error(f"--sizes: at least 16 cells a side, got {args.sizes}")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    written, crops = [], []
    for size in sorted(args.sizes):
        heights, cell = terrain(size)
        default = nc.erode_hydraulic(heights, cell_size=cell).heights
        gullies = nc.erode_hydraulic(heights, cell_size=cell, **GULLIES).heights
        for name, after in (("default", default), ("gullies", gullies)):
            change = np.abs(after.astype(np.float64) - heights).mean()
            print(f"{size}²  {name}: pits per 10,000 cells {pit_density(heights):.1f} -> {pit_density(after):.1f}, "
                  f"mean |change| {change:.4f}")  # fmt: skip
        maps = [coloured(h, cell) for h in (heights, default, gullies)]
        image = row([panel(m, PANEL) for m in maps] + [panel(change_map(gullies - heights), PANEL)])
        path = args.out_dir / f"erosion_{size}.png"
        with replacing(path) as temporary:
            iio.imwrite(temporary, to_bytes(image), extension=".png")
        written.append(path)
        crops = maps
    size = max(args.sizes)
    first, side = int(size * 0.3), min(PANEL, size)
    detail = row([m[first : first + side, first : first + side] for m in crops])
    path = args.out_dir / "erosion_detail.png"
    with replacing(path) as temporary:
        iio.imwrite(temporary, to_bytes(detail), extension=".png")
    written.append(path)
    for path in written:
        print(path)
    return written


if __name__ == "__main__":
    main()
