"""Render docs/terrain-maps.md's picture strip: the demo's terrain and its maps (numpy + imageio, no Blender).

    python scripts/render_maps.py                      # docs/images/terrain_maps.png
    python scripts/render_maps.py --out /tmp/maps.png --size 257

The terrain is the demo's noise (``scripts/demo.py``'s ``TERRAIN_NOISE``: ridged multifractal Perlin, seed 7;
6 octaves instead of 8, for panels of a few hundred pixels) on ``--size``² cells, ``EXTENT`` wide and ``RELIEF``
high, not eroded (the flats in the flow map are the filled depressions: lakes). Panels, left to right, each drawn
on ``PANEL`` pixels (area-averaged) with its name: a coloured hillshade; slope (0..90°); mean curvature (red
convex, blue concave, saturating at the 90th percentile of |k|); MFD flow accumulation (log10 of cells);
wetness index; occlusion (1 - sky-view factor); the splat weights of ``SPLAT`` (grass, sand, rock, wet
sediment) as the layers' colours mixed by their weights. Written whole or not at all; prints the path.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import imageio.v3 as iio
import numpy as np
import render_erosion as erosion
from PIL import Image, ImageDraw

import noise_core as nc
from noise_core.io.files import replacing

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "images" / "terrain_maps.png"
EXTENT, RELIEF = 1000.0, 150.0
SPEC = nc.NoiseSpec(kind="perlin", seed=7, frequency=2.0, octaves=6, fractal="ridged", offset=1.0, gain=2.0)
PANEL = 200
LABEL = 18
SPLAT = [
    {"name": "grass"},
    {"name": "sand", "bands": [{"map": "relative_height", "high": 0.3, "blend": 0.1}], "breakup": 0.3},
    {"name": "rock", "bands": [{"map": "slope", "low": 32, "blend": 10}], "breakup": 0.2},
    {"name": "wet", "bands": [{"map": "flow", "low": 2.3, "blend": 0.6}], "strength": 0.9},
]
SPLAT_COLOURS = np.array([[0.16, 0.30, 0.07], [0.72, 0.62, 0.40], [0.30, 0.27, 0.24], [0.10, 0.08, 0.06]])
"""Linear RGB of the ``SPLAT`` layers in the picture."""


def grey(values: np.ndarray, low: float, high: float) -> np.ndarray:
    return np.repeat(np.clip((values - low) / (high - low), 0.0, 1.0)[..., None], 3, axis=2) ** 2.2


def diverging(values: np.ndarray) -> np.ndarray:
    scale = float(np.percentile(np.abs(values), 90)) or 1.0
    t = np.clip(values / scale, -1.0, 1.0)[..., None]
    white = np.ones(3)
    red, blue = np.array([0.75, 0.05, 0.05]), np.array([0.05, 0.15, 0.7])
    return np.where(t > 0, white + (red - white) * t, white + (blue - white) * -t)


def labelled(rgb: np.ndarray, text: str) -> np.ndarray:
    """``rgb`` (bytes) with a white strip of ``LABEL`` pixels above it holding ``text``."""
    image = Image.new("RGB", (rgb.shape[1], rgb.shape[0] + LABEL), "white")
    image.paste(Image.fromarray(rgb), (0, LABEL))
    ImageDraw.Draw(image).text((4, 3), text, fill="black")
    return np.asarray(image)


def picture_terrain(
    description: str, default_out: Path, spec: nc.NoiseSpec, extent: float, relief: float, argv: list[str] | None
) -> tuple[argparse.Namespace, np.ndarray, float]:
    """A picture script's ``--out`` (a PNG, default ``default_out``) and ``--size`` (cells a side, at least 16) of
    ``argv``; the float32 heights of ``spec`` on that grid, 0 to ``relief``; its cell size (``extent`` wide)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=default_out, help=f"PNG file (default {default_out})")
    parser.add_argument("--size", type=int, default=257, help="cells a side (default 257)")
    args = parser.parse_args(argv)
    if args.size < 16:
        parser.error(f"--size: at least 16 cells a side, got {args.size}")
    heights = (nc.ranges.to_unit(spec, nc.evaluate_grid(spec, (args.size, args.size))) * relief).astype(np.float32)
    return args, heights, extent / (args.size - 1)


def write_panels(panels: list[tuple[str, np.ndarray]], out: Path) -> Path:
    """The ``(name, linear RGB)`` panels side by side, each on ``PANEL`` pixels under its name, as the PNG
    ``out`` (whole or not at all); prints and returns its path."""
    strip = erosion.row([
        labelled(erosion.to_bytes(erosion.panel(rgb[::-1], PANEL)), text) / 255.0 for text, rgb in panels
    ])  # fmt: skip
    out.parent.mkdir(parents=True, exist_ok=True)
    with replacing(out) as temporary:
        iio.imwrite(temporary, np.round(strip * 255).astype(np.uint8), extension=".png")
    print(out)
    return out


def main(argv: list[str] | None = None) -> Path:
    args, heights, cell = picture_terrain(__doc__.split("\n\n")[0], DEFAULT_OUT, SPEC, EXTENT, RELIEF, argv)
    names = ["slope", "curvature", "flow", "wetness", "occlusion", "relative_height"]
    maps = nc.compute_maps(heights, names, cell_size=cell, radius=args.size // 8, horizon_radius=16)
    weights = nc.splat_weights(heights, SPLAT, cell_size=cell, maps=maps)
    splat = np.tensordot(np.moveaxis(weights, 0, -1), SPLAT_COLOURS, axes=1)
    shade = (0.35 + 0.65 * erosion.hillshade(heights, cell))[..., None]
    panels = [
        ("terrain", erosion.coloured(heights * np.float32(25.0 / RELIEF), cell * 25.0 / RELIEF)),
        ("slope 0-90 deg", grey(maps["slope"], 0.0, 90.0)),
        ("curvature (red convex)", diverging(maps["curvature"])),
        ("flow, MFD (log10 cells)", grey(maps["flow"], 0.0, float(maps["flow"].max()))),
        ("wetness ln(a / tan b)", grey(maps["wetness"], *np.percentile(maps["wetness"], [1, 99]))),
        ("occlusion 1 - SVF", grey(maps["occlusion"], 0.0, float(maps["occlusion"].max()))),
        ("splat: grass sand rock wet", splat * shade),
    ]
    return write_panels(panels, args.out)


if __name__ == "__main__":
    main()
