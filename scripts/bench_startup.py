"""The ``startup`` and ``asm`` sections of ``scripts/bench.py``: the first call in a new process (empty cache,
then a restart), and the machine code of each kind's kernel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

from bench_common import ROOT, WARM_STARTS

# ------------------------------------------------------------------------------------------- startup

STARTUP_PROGRAM = """
import json, time
started = time.perf_counter()
import numpy as np
import noise_core
imported = time.perf_counter()
noise_core.evaluate(noise_core.NoiseSpec(), np.random.default_rng(0).random((4096, 2)))
done = time.perf_counter()
print(json.dumps({"import_s": imported - started, "first_call_s": done - imported}))
"""


ASM_PROGRAM = r"""
import json, re
import numpy as np
from noise_core import NoiseSpec, evaluate
from noise_core.fractal import kernel_for
from noise_core.registry import KINDS, kernel_arguments
rows = []
cases = [(name, dim, {}) for name, info in KINDS.items() for dim in info.dims]
cases += [(name, dim, {"hash": "prime"}) for name, info in KINDS.items() if info.option("hash") for dim in (2, 3)]
for name, dim, options in cases:
        spec = NoiseSpec(kind=name, **options)
        evaluate(spec, np.random.default_rng(0).random((64, dim)))
        family, variant, _ = kernel_arguments(spec, dim)
        asm = "\n".join(kernel_for(family, dim, variant).inspect_asm().values())
        lines = [line.split() for line in asm.splitlines() if line.startswith("\t") and not line.startswith("\t.")]
        ops = [line[0] for line in lines if line]
        packed = sum(bool(re.fullmatch(r"v\w+p[sd]|vp\w+", op)) for op in ops)
        double = sum(bool(re.fullmatch(r"v\w+pd", op)) for op in ops)
        single = sum(bool(re.fullmatch(r"v\w+ps", op)) for op in ops)
        scalar = sum(bool(re.fullmatch(r"v(?!p)\w+s[sd]", op)) for op in ops)
        ymm = sum("ymm" in " ".join(line) for line in lines)
        zmm = sum("zmm" in " ".join(line) for line in lines)
        gathers = sum("gather" in op for op in ops)
        multiplies = sum(op == "vpmulld" for op in ops)
        rows.append(dict(kind=name + "".join(f" {v}" for v in options.values()), dim=dim, packed=packed,
                         double=double, single=single, scalar=scalar, ymm=ymm, zmm=zmm, gathers=gathers,
                         multiplies=multiplies, instructions=len(ops)))
import llvmlite.binding as llvm
print(json.dumps({"cpu": llvm.get_host_cpu_name(), "rows": rows}))
"""


def run_asm() -> list[dict]:
    """Machine-code statistics of each kind's default kernel (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="noisewright-bench-asm-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-c", ASM_PROGRAM], env=env, cwd=ROOT, capture_output=True, text=True, check=True
        )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    for row in found["rows"]:
        print(
            f"  asm {row['kind']:<14} {row['dim']}D packed {row['packed']:5d} scalar {row['scalar']:5d} "
            f"zmm {row['zmm']:5d} gathers {row['gathers']:3d} vpmulld {row['multiplies']:3d} of {row['instructions']}",
            flush=True,
        )
    return found


def run_startup() -> dict:
    """First call of ``NoiseSpec()`` in a new process: empty Numba cache, then the filled one (the
    best of ``WARM_STARTS`` new processes, the shortest import + first call)."""
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="noisewright-bench-cache-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(ROOT)}
        for name, runs in (("cold", 1), ("warm", WARM_STARTS)):
            for _ in range(runs):
                done = subprocess.run(
                    [sys.executable, "-c", STARTUP_PROGRAM],
                    env=env,
                    cwd=ROOT,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                run = json.loads(done.stdout.strip().splitlines()[-1])
                best = results.get(name)
                if best is None or run["import_s"] + run["first_call_s"] < best["import_s"] + best["first_call_s"]:
                    results[name] = run
            print(f"  startup {name}: {results[name]}", flush=True)
    return results
