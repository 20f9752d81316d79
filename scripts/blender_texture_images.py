"""The pictures of docs/blender-textures.md: one 192x192 tile per look (`python scripts/blender_texture_images.py`).

Each tile is ``evaluate_grid`` of the spec, mapped from its documented range to [0, 1] (``ranges.to_unit``),
written as an 8-bit PNG into ``docs/images/blender/``; ``strip.png`` puts them side by side for docs/noise-library.md.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

import noise_core as nc
from noise_core.io.images import write_image
from noise_core.ranges import to_unit

OUT = Path(__file__).resolve().parent.parent / "docs" / "images" / "blender"
LOOKS = {
    "white": {"kind": "white", "frequency": 8.0},
    "gabor_anisotropic": {"kind": "gabor", "frequency": 4.0, "gabor_frequency": 3.0, "orientation": math.pi / 6},
    "gabor_isotropic": {"kind": "gabor", "frequency": 4.0, "gabor_frequency": 3.0, "anisotropy": 0.0},
    "gabor_phase": {"kind": "gabor", "frequency": 4.0, "gabor_frequency": 2.0, "anisotropy": 0.7, "output": "phase"},
    "gabor_intensity": {"kind": "gabor", "frequency": 4.0, "gabor_frequency": 2.0, "output": "intensity"},
    "voronoi_smooth_f1": {"kind": "voronoi", "function": "smooth_f1", "smoothing": 1.0},
    "voronoi_distance_to_edge": {"kind": "voronoi", "function": "distance_to_edge"},
    "voronoi_n_sphere_radius": {"kind": "voronoi", "function": "n_sphere_radius"},
    "voronoi_minkowski": {"kind": "voronoi", "distance": "minkowski", "exponent": 0.5},
}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    tiles = []
    for name, options in LOOKS.items():
        spec = nc.NoiseSpec(**options)
        image = np.ascontiguousarray(to_unit(spec, nc.evaluate_grid(spec, (192, 192)))[::-1])
        write_image(OUT / f"{name}.png", image, bits=8)
        tiles.append(np.pad(image, ((0, 0), (0, 4)), constant_values=1.0))
        print(OUT / f"{name}.png")
    write_image(OUT / "strip.png", np.ascontiguousarray(np.concatenate(tiles, axis=1)[:, :-4]), bits=8)


if __name__ == "__main__":
    main()
