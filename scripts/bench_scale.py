"""The ``scale`` section of ``scripts/bench.py``: tiled bakes on Dask (issue 15) and their report."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_common import ROOT


def _cpu_seconds() -> float:
    """CPU seconds (user + system) this process has used: run on each worker by ``client.run``."""
    import psutil

    times = psutil.Process().cpu_times()
    return times.user + times.system


def _corner(block: np.ndarray) -> np.ndarray:
    """A chunk's first pixel: computing it computes the whole chunk, gathering it moves no image data."""
    return block[:1, :1]


def run_scale(size: int, tile: int, bake_size: int, repeat: int) -> dict:
    """Efficiency of the LocalCluster against one process at equal threads, and a big 16-bit bake's peak memory."""
    import logging

    import distributed
    import numba
    import psutil

    import noise_core as nc
    from noise_core import scale

    spec = nc.NoiseSpec(kind="perlin", octaves=4)
    cores = numba.get_num_threads()
    nc.precompile(spec, 2)
    lazy = scale.grid(spec, (size, size), chunks=tile, threads=1)
    corners = lazy.map_blocks(_corner, chunks=(1, 1), dtype=np.float32)
    single = strips = cluster_time = float("inf")
    single_cpu = cluster_cpu = float("inf")
    with (
        distributed.LocalCluster(
            n_workers=cores, threads_per_worker=1, dashboard_address=":0", silence_logs=logging.ERROR
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.compute(corners).result()  # workers load the kernel
        for _ in range(repeat):  # interleaved, so both see the same background load
            started, cpu = time.perf_counter(), time.process_time()
            nc.evaluate_grid(spec, (size, size))
            single = min(single, time.perf_counter() - started)
            single_cpu = min(single_cpu, time.process_time() - cpu)
            started = time.perf_counter()
            scale.compute_window(spec, (size, size), (0, 0, size, size))
            strips = min(strips, time.perf_counter() - started)
            before = sum(client.run(_cpu_seconds).values())
            started, cpu = time.perf_counter(), time.process_time()
            client.compute(corners).result()
            cluster_time = min(cluster_time, time.perf_counter() - started)
            used = sum(client.run(_cpu_seconds).values()) - before + time.process_time() - cpu
            cluster_cpu = min(cluster_cpu, used)
    out = {
        "size": size,
        "tile": tile,
        "threads": cores,
        "single_s": single,
        "cluster_s": cluster_time,
        "single_cpu_s": single_cpu,
        "cluster_cpu_s": cluster_cpu,
        "single_mps": size * size / single / 1e6,
        "strips_s": strips,
        "strips_mps": size * size / strips / 1e6,
        "cluster_mps": size * size / cluster_time / 1e6,
        "efficiency": single / cluster_time,
        "cpu_efficiency": single_cpu / cluster_cpu,
    }
    with tempfile.TemporaryDirectory(dir=ROOT / "build" if (ROOT / "build").is_dir() else None) as folder:
        command = [sys.executable, "-m", "noise_core", "bake", "--kind", "perlin", "--octaves", "4"]
        command += ["--size", str(bake_size), "--bits", "16", "--out", str(Path(folder) / "world.zarr")]
        started = time.perf_counter()
        child = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        parent = psutil.Process(child.pid)
        peak = 0
        while child.poll() is None:
            total = 0
            try:
                for process in [parent, *parent.children(recursive=True)]:
                    total += process.memory_info().rss
            except psutil.Error:  # a process ended while sampled
                pass
            peak = max(peak, total)
            time.sleep(0.05)
        elapsed = time.perf_counter() - started
        stored = sum(path.stat().st_size for path in Path(folder).rglob("*") if path.is_file())
        out.update(
            bake_size=bake_size,
            bake_status=child.returncode,
            bake_output=child.stdout.read().strip() if child.stdout else "",
            bake_s=elapsed,
            bake_mps=bake_size * bake_size / elapsed / 1e6,
            bake_peak_gb=peak / 1e9,
            bake_store_gb=stored / 1e9,
        )
    return out


def scale_report(result: dict) -> list[str]:
    """The ``scale`` section as Markdown."""
    return [
        "",
        "### Tiled bakes on Dask (issue 15)",
        "",
        f"{result['size']}² Perlin, 4 octaves, {result['threads']} threads either way:",
        "",
        "| | seconds | million samples/s |",
        "|---|---|---|",
        f"| one process, `evaluate_grid` | {result['single_s']:.2f} | {result['single_mps']:.0f} |",
        f"| one process, `scale.compute_window` (strips of 2^20 pixels) | {result['strips_s']:.2f} | "
        f"{result['strips_mps']:.0f} |",
        f"| LocalCluster, {result['threads']} workers x 1 thread, chunks of {result['tile']} | "
        f"{result['cluster_s']:.2f} | {result['cluster_mps']:.0f} |",
        "",
        f"Efficiency {result['efficiency']:.0%} of wall time (target >= 85 %; best of interleaved runs); CPU time "
        f"{result['single_cpu_s']:.2f} s vs {result['cluster_cpu_s']:.2f} s (client + workers), "
        f"{result['cpu_efficiency']:.0%}: what Dask adds, whatever else the machine runs. "
        f"`bake --size {result['bake_size']} --bits 16 --out world.zarr` (exit {result['bake_status']}): "
        f"{result['bake_s']:.1f} s ({result['bake_mps']:.0f} million pixels/s), peak resident memory of the "
        f"client and its workers {result['bake_peak_gb']:.2f} GB (target <= 2 GB), store "
        f"{result['bake_store_gb']:.2f} GB.",
    ]
