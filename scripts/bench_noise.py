"""The ``core`` and ``fnl`` sections of ``scripts/bench.py``: ``noise_core.evaluate`` for every kind, and
FastNoiseLite (``pyfastnoiselite``) on the same points, with the ratios between them.
"""

from __future__ import annotations

import threading
import time

import numpy as np
from bench_common import FREQUENCY, best_time

OCTAVES = (1, 4)
FUNCTION_VARIANTS = ("f1", "f2_minus_f1")

# noise_core kind -> the FastNoiseLite noise it is compared with, and the target ratio.
FNL_PEERS = {
    "value": "Value",
    "perlin": "Perlin",
    "simplex": "OpenSimplex2",
    "voronoi": "Cellular",
    "cellular": "Cellular",
}


# ---------------------------------------------------------------------------------------------- core


def core_cases() -> list[tuple[str, int, int, dict]]:
    """``(kind, dim, octaves, options)`` for every kind and dimension in KINDS, 1 and 4 octaves."""
    from noise_core.registry import KINDS

    cases = []
    for name, info in KINDS.items():
        variants = [{"function": f} for f in FUNCTION_VARIANTS] if info.option("function") else [{}]
        for dim in info.dims:
            for octaves in OCTAVES:
                cases.extend((name, dim, octaves, options) for options in variants)
    return cases


def label(kind: str, options: dict) -> str:
    return kind + "".join(f" {value}" for value in options.values())


def run_core(points: dict[int, np.ndarray], repeat: int) -> list[dict]:
    from noise_core import NoiseSpec, evaluate

    rows = []
    for kind, dim, octaves, options in core_cases():
        row = {"kind": kind, "options": options, "label": label(kind, options), "dim": dim, "octaves": octaves}
        try:
            spec = NoiseSpec(kind=kind, frequency=FREQUENCY, octaves=octaves, **options)
        except ValueError as error:
            rows.append({**row, "skipped": str(error)})
            continue
        started = time.perf_counter()
        evaluate(spec, points[dim][:1024])
        compile_seconds = time.perf_counter() - started
        seconds = best_time(lambda spec=spec, dim=dim: evaluate(spec, points[dim]), repeat)
        rows.append({**row, "mps": points[dim].shape[0] / seconds / 1e6, "compile_s": compile_seconds})
        print(f"  core {row['label']:<22} {dim}D {octaves} oct  {rows[-1]['mps']:8.1f} M/s", flush=True)
    return rows


# ----------------------------------------------------------------------------------------------- fnl


def fnl_cases() -> list[tuple[str, str | None, int, int]]:
    """``(noise, cellular return, dim, octaves)``."""
    cases = []
    for noise in ("Value", "Perlin", "OpenSimplex2", "Cellular"):
        returns = ("Distance", "Distance2Sub") if noise == "Cellular" else (None,)
        for dim in (2, 3):
            for octaves in OCTAVES:
                cases.extend((noise, ret, dim, octaves) for ret in returns)
    return cases


def fastnoiselite(noise: str, cellular_return: str | None, octaves: int):
    """A configured ``FastNoiseLite``: frequency as noise_core's, FBm for several octaves, Euclidean cells."""
    from pyfastnoiselite.pyfastnoiselite import (
        CellularDistanceFunction,
        CellularReturnType,
        FastNoiseLite,
        FractalType,
        NoiseType,
    )

    fnl = FastNoiseLite(seed=0)
    fnl.noise_type = getattr(NoiseType, f"NoiseType_{noise}")
    fnl.frequency = FREQUENCY
    if octaves > 1:
        fnl.fractal_type = FractalType.FractalType_FBm
        fnl.fractal_octaves = octaves
        fnl.fractal_lacunarity = 2.0
        fnl.fractal_gain = 0.5
    else:
        fnl.fractal_type = FractalType.FractalType_None
    if cellular_return is not None:
        fnl.cellular_distance_function = CellularDistanceFunction.CellularDistanceFunction_Euclidean
        fnl.cellular_return_type = getattr(CellularReturnType, f"CellularReturnType_{cellular_return}")
        fnl.cellular_jitter = 1.0
    return fnl


def fnl_threads_speedup(coordinates: np.ndarray, repeat: int) -> float:
    """Time of one thread over all points / time of two threads on halves: ~1 when the GIL is held."""
    halves = [np.ascontiguousarray(part) for part in np.array_split(coordinates, 2, axis=1)]
    generators = [fastnoiselite("Perlin", None, 1) for _ in halves]

    def two_threads() -> None:
        threads = [
            threading.Thread(target=g.gen_from_coords, args=(h,)) for g, h in zip(generators, halves, strict=True)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    one = best_time(lambda: generators[0].gen_from_coords(coordinates), repeat)
    return one / best_time(two_threads, repeat)


def run_fnl(points: dict[int, np.ndarray], repeat: int) -> tuple[list[dict], float]:
    coordinates = {dim: np.ascontiguousarray(points[dim].T, dtype=np.float32) for dim in (2, 3)}
    rows = []
    for noise, ret, dim, octaves in fnl_cases():
        fnl = fastnoiselite(noise, ret, octaves)
        fnl.gen_from_coords(coordinates[dim][:, :1024])
        seconds = best_time(lambda fnl=fnl, dim=dim: fnl.gen_from_coords(coordinates[dim]), repeat)
        rows.append(
            {"noise": noise, "return": ret, "dim": dim, "octaves": octaves, "mps": points[dim].shape[0] / seconds / 1e6}
        )
        name = noise + (f" {ret}" if ret else "")
        print(f"  fnl  {name:<22} {dim}D {octaves} oct  {rows[-1]['mps']:8.1f} M/s", flush=True)
    speedup = fnl_threads_speedup(coordinates[2], repeat)
    print(f"  fnl  two Python threads / one: {speedup:.2f}x", flush=True)
    return rows, speedup


def comparisons(core: list[dict], fnl: list[dict]) -> list[dict]:
    """Each noise_core row with a FastNoiseLite peer (same dim and octaves), and the ratio."""
    peers = {(r["noise"], r["return"], r["dim"], r["octaves"]): r["mps"] for r in fnl}
    rows = []
    for row in core:
        noise = FNL_PEERS.get(row["kind"])
        if noise is None or "mps" not in row:
            continue
        ret = None
        if noise == "Cellular":
            function = row["options"].get("function")
            ret = {"f1": "Distance", "f2_minus_f1": "Distance2Sub"}.get(function)
            if ret is None:
                continue
        peer = peers.get((noise, ret, row["dim"], row["octaves"]))
        if peer is not None:
            name = noise + (f" {ret}" if ret else "")
            rows.append({**row, "peer": name, "peer_mps": peer, "ratio": row["mps"] / peer})
    return rows
