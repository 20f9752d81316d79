"""Render the seamless-loop pictures of docs/textures.md: a strip of frames and the animation (no Blender needed).

    python scripts/render_loop.py                       # docs/images/loop_strip.png and docs/images/loop.gif
    python scripts/render_loop.py --out-dir /tmp/loop --frames 32 --size 160

Tiling Perlin fBm moving around a circle in two extra dimensions (``noise_core.loops``: 4D noise), through a
colour ramp, its contrast stretched to the loop's own lowest and highest value (4D noise keeps well inside its
guaranteed -1..1). The strip shows every ``frames / strip`` frame side by side, the last followed by the first again;
the GIF plays all frames for ever. Each file is written whole or not at all; the paths are printed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import imageio.v3 as iio
import numpy as np

import noise_core as nc
from noise_core import loops
from noise_core.io.files import replacing

DEFAULT_DIR = Path(__file__).resolve().parents[1] / "docs" / "images"
LOW = np.array([0.05, 0.10, 0.25])
HIGH = np.array([0.98, 0.85, 0.55])
SPEC = nc.NoiseSpec(kind="perlin", frequency=3.0, octaves=4, tiling=True)


def coloured(values: np.ndarray) -> np.ndarray:
    """0..1 values through the two-colour ramp, as 8-bit sRGB-ish RGB (gamma 1/2.2)."""
    rgb = LOW + values[..., None] * (HIGH - LOW)
    return np.round(255 * rgb ** (1 / 2.2)).astype(np.uint8)


def main(argv: list[str] | None = None) -> list[Path]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_DIR, help=f"folder (default {DEFAULT_DIR})")
    parser.add_argument("--frames", type=int, default=24, help="frames in the loop (default 24)")
    parser.add_argument("--strip", type=int, default=6, help="frames shown in the strip (default 6)")
    parser.add_argument("--size", type=int, default=128, help="pixels per side of a frame (default 128)")
    parser.add_argument("--radius", type=float, default=0.35, help="loop radius in noise units (default 0.35)")
    args = parser.parse_args(argv)
    if args.frames < 1 or not 1 <= args.strip <= args.frames or args.size < 8:
        parser.error("need frames >= 1, 1 <= strip <= frames and size >= 8")
    values = np.stack(list(loops.loop_frames(SPEC, (args.size, args.size), args.frames, args.radius)))
    frames = list(coloured((values - values.min()) / (values.max() - values.min())))
    gap = np.full((args.size, 4, 3), 255, dtype=np.uint8)
    shown = [frames[i * args.frames // args.strip] for i in range(args.strip)] + [frames[0]]
    strip = np.concatenate([part for frame in shown for part in (frame, gap)][:-1], axis=1)
    strip_path, gif_path = args.out_dir / "loop_strip.png", args.out_dir / "loop.gif"
    with replacing(strip_path) as temporary:
        iio.imwrite(temporary, strip)
    with replacing(gif_path) as temporary:
        iio.imwrite(temporary, np.stack(frames), extension=".gif", duration=1000 / 24, loop=0)
    for path in (strip_path, gif_path):
        print(f"wrote {path}")
    return [strip_path, gif_path]


if __name__ == "__main__":
    main()
