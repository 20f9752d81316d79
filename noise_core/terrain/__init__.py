"""The terrain science of ``noise_core``, on a height grid (a 2D float array and its cell size).

- ``heightfield``, ``resample``: the grid — checks, the 8-neighbourhood, bilinear resampling.
- ``flow``: depression filling (Priority-Flood), D8 and MFD routing, the stack order, accumulation.
- ``erosion``: droplet (hydraulic) and thermal erosion; ``fluvial``: stream-power incision with uplift and
  hillslope diffusion.
- ``maps``: slope, aspect, curvature, relative height, wetness, openness, occlusion; ``splat``: splat weights.
- ``geomorphometry``: the statistics that tell a real landscape from noise, and the real tiles' ranges.

The layers and which may import which: docs/architecture.md.
"""
