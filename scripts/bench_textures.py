"""The ``textures`` section of ``scripts/bench.py`` (issue 14): derivatives and normal maps.

* Analytic derivatives: ``evaluate(spec, points, derivatives=True)`` against ``evaluate(spec, points)`` on the
  run's random float32 points, one thread (``numba.set_num_threads(1)``), for value, Perlin and simplex in 2D
  and 3D with 1 and 4 octaves, million samples/s; target: value + gradient <= 2x the value alone.
* Normal maps: ``normal_maps.grid_normals`` of a 1024² tiled Perlin fBm (4 octaves) from the analytic gradient
  and from central differences (four more evaluations per pixel), on all cores, seconds.

Loaded with ``runpy.run_path`` by ``bench.py``, which passes its timing function.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

BestTime = Callable[..., float]
KINDS = ("value", "perlin", "simplex")
OCTAVES = (1, 4)
TARGET_RATIO = 2.0
NORMAL_SIZE = 1024


def run_textures(points: dict, best_time: BestTime, repeat: int) -> dict:
    """Derivative cost per kind, dimension and octaves (one thread), and normal-map bake times."""
    import numba

    import noise_core as nc
    from noise_core import normal_maps

    threads = numba.get_num_threads()
    cases = []
    numba.set_num_threads(1)
    try:
        for kind in KINDS:
            for dim in (2, 3):
                at = points[dim].astype(np.float32)
                for octaves in OCTAVES:
                    spec = nc.NoiseSpec(kind=kind, octaves=octaves)
                    nc.evaluate(spec, at[:64])
                    nc.evaluate(spec, at[:64], derivatives=True)
                    value_s = best_time(lambda spec=spec, at=at: nc.evaluate(spec, at), repeat)
                    both_s = best_time(lambda spec=spec, at=at: nc.evaluate(spec, at, derivatives=True), repeat)
                    count = at.shape[0]
                    cases.append({"kind": kind, "dim": dim, "octaves": octaves, "points": count,
                                  "value_mps": count / value_s / 1e6, "both_mps": count / both_s / 1e6})  # fmt: skip
    finally:
        numba.set_num_threads(threads)
    spec = nc.NoiseSpec(kind="perlin", octaves=4, tiling=True)
    shape = (NORMAL_SIZE, NORMAL_SIZE)
    normals = {}
    for method in ("analytic", "differences"):
        normal_maps.grid_normals(spec, (8, 8), method=method)
        normals[method] = best_time(lambda method=method: normal_maps.grid_normals(spec, shape, method=method), repeat)
    height_s = best_time(lambda: nc.evaluate_grid(spec, shape), repeat)
    return {"derivatives": cases, "normals_s": normals, "height_s": height_s, "threads": threads}


def textures_report(result: dict) -> list[str]:
    """The ``textures`` section as Markdown, with the issue's target."""
    lines = [
        "",
        "### Derivatives and normal maps (issue 14)",
        "",
        "One thread, random float32 points, million samples/s:",
        "",
        f"| kind | dim | octaves | value | value + gradient | cost (target <= {TARGET_RATIO:g}x) |",
        "|---|---|---|---|---|---|",
    ]
    for case in result["derivatives"]:
        ratio = case["value_mps"] / case["both_mps"]
        verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
        lines.append(
            f"| {case['kind']} | {case['dim']}D | {case['octaves']} | {case['value_mps']:.0f} | "
            f"{case['both_mps']:.0f} | {ratio:.2f}x {verdict} |"
        )
    normals = result["normals_s"]
    lines += [
        "",
        f"Normal map of a {NORMAL_SIZE}² tiled Perlin fBm (4 octaves), {result['threads']} threads: analytic "
        f"{normals['analytic']:.3f} s, central differences {normals['differences']:.3f} s (the height image alone: "
        f"{result['height_s']:.3f} s).",
    ]
    return lines
