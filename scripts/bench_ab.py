"""A/B timing of two noise_core trees in one process: this checkout's against another checkout's.

    .venv/bin/python scripts/bench_ab.py ../main-before                # the default cases
    .venv/bin/python scripts/bench_ab.py ../main-before value:3 perlin:3:4 simplex:grid --pairs 21

Each tree's ``noise_core`` is copied under its own package name into ``--work`` (``noise_core_a`` from the other
tree, ``noise_core_b`` from this checkout; the package imports itself relatively), each copy with its own Numba
cache there, and both are imported into this process. Every case then calls the two in alternation (A B, B A, A B,
...) for ``--pairs`` pairs on one thread (``--threads``), so that both sides see the same spells of load: on a
shared VM whose speed drifts by tens of percent within minutes, timings taken minutes apart (two ``bench.py`` runs)
cannot show a change of a few percent. Printed per case: each side's best rate and the median over the pairs of the
speed ratio B/A (above 1: this checkout is faster). Timings only: nothing asserts.

Cases are ``KIND[:DIM[:OCTAVES]]``: random float32 points uniform in [-8, 8)^DIM (default 2D, 1 octave), or
``DIM = grid`` for a 1024 x 1024 ``evaluate_grid``; frequency 4, as ``bench.py``'s FastNoise2 comparison.
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from bench_common import FREQUENCY, random_points
from bench_peers import PEER_GRID, PeerCase, peer_cases

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "ab"
DEFAULT_CASES = tuple(
    f"{case.kind}:{'grid' if case.layout == 'grid' else case.dim}" + (f":{case.octaves}" if case.octaves > 1 else "")
    for case in peer_cases()
    if (case.layout != "grid" or case.dim == 2) and case.hash == "smallxxhash"
)
"""The FastNoise2 comparison's cases (``bench_peers``, whose frequency, grid and points this script uses too):
random 2D and 3D points per kind, Perlin fBm of 4 octaves, 2D grids (its 3D grids have no ``KIND:DIM`` case
here: ``grid`` is the 2D grid), with the default hash (its ``hash="prime"`` cases have none either: an older
checkout has no such option)."""
GRID = PEER_GRID


def parse_case(text: str, kinds: set[str]) -> tuple[str, str, int]:
    """``(kind, dim, octaves)`` of ``KIND[:DIM[:OCTAVES]]``; ``dim`` is "1".."4" or "grid"."""
    parts = text.split(":")
    if not 1 <= len(parts) <= 3:
        raise ValueError(f"case {text!r}: expected KIND[:DIM[:OCTAVES]]")
    kind = parts[0]
    if kind not in kinds:
        raise ValueError(f"case {text!r}: unknown kind {kind!r}; kinds: {', '.join(sorted(kinds))}")
    dim = parts[1] if len(parts) > 1 else "2"
    if dim not in ("1", "2", "3", "4", "grid"):
        raise ValueError(f"case {text!r}: DIM must be 1, 2, 3, 4 or grid, got {dim!r}")
    octaves = parts[2] if len(parts) > 2 else "1"
    if not octaves.isdigit() or int(octaves) < 1:
        raise ValueError(f"case {text!r}: OCTAVES must be a positive whole number, got {octaves!r}")
    return kind, dim, int(octaves)


def load_tree(tree: Path, name: str, work: Path):
    """Copy ``tree``'s ``noise_core`` to ``work/name`` (its ``.py`` files; the Numba cache of the copy stays
    between runs) and import it, with its kernels cached in ``work/cache-name``."""
    source = tree / "noise_core"
    if not (source / "__init__.py").is_file():
        raise FileNotFoundError(f"{tree}: no noise_core package (expected {source / '__init__.py'})")
    target = work / name
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    spec = importlib.util.spec_from_file_location(
        name, target / "__init__.py", submodule_search_locations=[str(target)]
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before running it: the package imports its modules relatively
    spec.loader.exec_module(module)
    module.set_cache_dir(work / f"cache-{name}")
    return module


def timer(module, kind: str, dim: str, octaves: int, points: dict[int, np.ndarray]) -> Callable[[], object]:
    """The call that computes ``case`` with ``module`` (a noise_core package)."""
    options = PeerCase(kind, 2, "points").spec_options()
    spec = module.NoiseSpec(kind=kind, frequency=FREQUENCY, octaves=octaves, **options)
    if dim == "grid":
        return lambda: module.evaluate_grid(spec, (GRID, GRID))
    return lambda: module.evaluate(spec, points[int(dim)])


def compare(a: Callable[[], object], b: Callable[[], object], pairs: int) -> tuple[float, float, float]:
    """Best seconds of ``a`` and of ``b`` and the median of ``time(a) / time(b)`` over ``pairs`` pairs of calls,
    the order alternating between pairs."""
    a(), b()  # compile or load both first
    ratios, best_a, best_b = [], float("inf"), float("inf")
    for pair in range(pairs):
        seconds = {}
        for key, function in (("a", a), ("b", b)) if pair % 2 == 0 else (("b", b), ("a", a)):
            started = time.perf_counter()
            function()
            seconds[key] = time.perf_counter() - started
        best_a, best_b = min(best_a, seconds["a"]), min(best_b, seconds["b"])
        ratios.append(seconds["a"] / seconds["b"])
    return best_a, best_b, statistics.median(ratios)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="the other checkout (A); this checkout is B")
    parser.add_argument("cases", nargs="*", help="KIND[:DIM[:OCTAVES]] (default: bench.py's FastNoise2 cases)")
    parser.add_argument("--pairs", type=int, default=15, help="alternating pairs of calls per case (default 15)")
    parser.add_argument("--points", type=int, default=2**20, help="random points per call (default 2**20)")
    parser.add_argument("--work", type=Path, default=WORK, help=f"where the copies and caches go (default {WORK})")
    parser.add_argument("--threads", type=int, default=1, help="Numba threads per call (default 1)")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error(f"--pairs: must be a positive integer, got {args.pairs}")
    if args.points < 1:
        parser.error(f"--points: must be a positive integer, got {args.points}")
    if args.threads < 1:
        parser.error(f"--threads: must be a positive integer, got {args.threads}")
    try:
        args.work.mkdir(parents=True, exist_ok=True)
        other = load_tree(args.other.resolve(), "noise_core_a", args.work.resolve())
        this = load_tree(ROOT, "noise_core_b", args.work.resolve())
        kinds = set(this.kind_names()) & set(other.kind_names())
        cases = [parse_case(text, kinds) for text in args.cases or DEFAULT_CASES]
    except (OSError, ValueError) as error:
        parser.error(str(error))

    import numba

    if args.threads > numba.config.NUMBA_NUM_THREADS:
        parser.error(f"--threads: at most NUMBA_NUM_THREADS = {numba.config.NUMBA_NUM_THREADS}, got {args.threads}")
    numba.set_num_threads(args.threads)
    points = {d: random_points(args.points, d).astype(np.float32) for d in (1, 2, 3, 4)}
    threads = "one thread" if args.threads == 1 else f"{args.threads} threads"
    print(f"A = {args.other.resolve()}, B = {ROOT}; {threads}, {args.pairs} alternating pairs per case")
    print(f"{'case':<16} {'A M/s':>9} {'B M/s':>9} {'B/A median':>11}")
    for kind, dim, octaves in cases:
        count = GRID * GRID if dim == "grid" else args.points
        a = timer(other, kind, dim, octaves, points)
        b = timer(this, kind, dim, octaves, points)
        best_a, best_b, ratio = compare(a, b, args.pairs)
        label = f"{kind}:{dim}" + (f":{octaves}" if octaves > 1 else "")
        print(f"{label:<16} {count / best_a / 1e6:9.1f} {count / best_b / 1e6:9.1f} {ratio:11.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
