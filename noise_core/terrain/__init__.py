"""The terrain science of ``noise_core``, on a height grid (a 2D float array and its cell size).

- ``heightfield``, ``resample``: the grid — checks, the 8-neighbourhood, bilinear resampling.
- ``flow``: depression filling (Priority-Flood), D8 and MFD routing, the stack order, accumulation.
- ``stream_power``: the D8 routing in parts and the implicit stream-power solver ``fluvial`` and the gullies of
  ``erosion`` share, with lakes kept as an option, and sediment carried through lakes.
- ``erosion``: droplet (hydraulic) and thermal erosion; ``fluvial``: stream-power incision with uplift and
  hillslope diffusion (D8 or random facet routing); ``landscape``: that coarse to fine with a margin, valley fill.
- ``maps``: slope, aspect, curvature, relative height, wetness, openness, occlusion; ``splat``: splat weights.
- ``geomorphometry``: the statistics that tell a real landscape from noise, and the real tiles' ranges.
- ``water``: lakes that fill, spill and merge (Fill-Spill-Merge), water level and depth, rivers, flow maps.
- ``layers``: material layers: snow, sediment and talus depth, moisture along water, rock strata (and the
  erodibility they give the eroders).

The layers and which may import which: docs/architecture.md.
"""
