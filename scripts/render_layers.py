"""Render docs/layers.md's picture strip: a preset's terrain, eroded over rock strata, and its material layers
(numpy + imageio + Pillow, no Blender).

    python scripts/render_layers.py                      # docs/images/terrain_layers.png
    python scripts/render_layers.py --out /tmp/layers.png --size 129

The terrain is the noise of the ``alpine_ridges`` preset (ridged multifractal Perlin, seed 11, frequency 1.2,
8 octaves) on ``--size``² cells, ``EXTENT`` wide and ``RELIEF`` high; its strata (``layers.strata``) make the
erodibility of a droplet run (with gullies) and a thermal run (``ERODE``), whose results give the sediment and
talus depths. Panels, left to right, each drawn on ``PANEL`` pixels with its name: the eroded terrain (coloured
hillshade), snow cover, sediment depth, talus depth, moisture, strata hardness, and ``material_splat``'s weights
mixed as the layers' colours (``SPLAT_COLOURS``) under the hillshade. Written whole or not at all; prints the
path and the CPU seconds of the erosion and of the layers.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import render_erosion as erosion
from render_maps import grey, picture_terrain, write_panels

import noise_core as nc
from noise_core.terrain import layers
from noise_core.terrain.splat import material_splat

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "images" / "terrain_layers.png"
EXTENT, RELIEF = 2000.0, 450.0
SPEC = nc.NoiseSpec(kind="perlin", seed=11, frequency=1.2, octaves=8, fractal="ridged", offset=1.0, gain=2.0)
ERODE = ({"droplet_density": 1.0, "gullies": 4.0, "seed": 3}, {"talus_angle": 33.0, "iterations": 40})
SPLAT_COLOURS = np.array([
    [0.16, 0.30, 0.07], [0.08, 0.12, 0.05], [0.55, 0.45, 0.30], [0.42, 0.40, 0.37], [0.30, 0.27, 0.24],
    [0.45, 0.30, 0.20], [0.90, 0.92, 0.95],
])  # fmt: skip
"""Linear RGB of ``material_splat(sediment, talus)``'s layers: grass, wet, sediment, talus, rock, strata, snow."""


def main(argv: list[str] | None = None) -> Path:
    args, heights, cell = picture_terrain(__doc__.split("\n\n")[0], DEFAULT_OUT, SPEC, EXTENT, RELIEF, argv)
    heights = heights.astype(np.float64)
    started = time.process_time()
    hard, _ = layers.strata(heights, cell)
    factor = layers.erodibility(hard)
    droplets = nc.erode_hydraulic(heights, cell_size=cell, erodibility=factor, **ERODE[0])
    slid = nc.erode_thermal(droplets.heights, cell_size=cell, erodibility=factor, **ERODE[1])
    eroded = slid.heights.astype(np.float64)
    erosion_seconds = time.process_time() - started
    started = time.process_time()
    found = layers.compute_layers(eroded, cell_size=cell, erosion=[droplets, slid])
    deep_sediment, deep_talus = (
        float(np.percentile(found[name][found[name] > 0], 50)) for name in ("sediment", "talus")
    )
    splat = material_splat(sediment=deep_sediment, talus=deep_talus)
    maps = {"sediment": found["sediment"], "talus": found["talus"]}
    weights = nc.splat_weights(eroded, splat, cell_size=cell, maps=maps)
    layer_seconds = time.process_time() - started
    shade = (0.35 + 0.65 * erosion.hillshade(eroded.astype(np.float32), cell))[..., None]
    mixed = np.tensordot(np.moveaxis(weights, 0, -1), SPLAT_COLOURS, axes=1) * shade
    depth = max(float(np.percentile(found["sediment"], 99)), 1e-6)
    scree = max(float(np.percentile(found["talus"], 99)), 1e-6)
    panels = [
        (
            "terrain, eroded over strata",
            erosion.coloured(eroded.astype(np.float32) * np.float32(25.0 / RELIEF), cell * 25.0 / RELIEF),
        ),
        ("snow cover 0-1", grey(found["snow"], 0.0, 1.0)),
        (f"sediment 0-{depth:.1f} m", grey(found["sediment"], 0.0, depth)),
        (f"talus 0-{scree:.1f} m", grey(found["talus"], 0.0, scree)),
        ("moisture 0-1", grey(found["moisture"], 0.0, 1.0)),
        ("strata hardness 0-1", grey(found["strata"], 0.0, 1.0)),
        ("splat: material_splat", mixed),
    ]
    write_panels(panels, args.out)
    print(f"erosion {erosion_seconds:.1f} s CPU, layers and splat {layer_seconds:.1f} s CPU ({args.size}x{args.size})")
    return args.out


if __name__ == "__main__":
    main()
