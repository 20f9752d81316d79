"""Numba's cache: it follows edits to any module of noise_core, goes where ``set_cache_dir`` says, and a
missing writable place means running uncached with one warning."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import noise_core

PROGRAM = """
import numpy as np, noise_core as nc
from noise_core import fractal
print(float(nc.evaluate(nc.NoiseSpec(kind="value", frequency=1), np.array([[0.3]]))[0]))
print(sum(fractal.kernel_for(0, 1, 0).stats.cache_hits.values()))
"""


def _run(root: Path, environment: dict[str, str] | None = None) -> tuple[float, int]:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "", **(environment or {})},
    )
    value, hits = done.stdout.split()
    return float(value), int(hits)


def test_editing_a_helper_module_recompiles_the_kernel(tmp_path: Path) -> None:
    package = tmp_path / "noise_core"
    shutil.copytree(Path(noise_core.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    first, first_hits = _run(tmp_path)
    again, again_hits = _run(tmp_path)
    assert (again, first_hits, again_hits) == (first, 0, 1), "the second run loads the kernel from the cache"

    lattice = package / "lattice.py"
    # Replace the quintic weight by a linear one: only lattice.py changes, not fractal.py.
    lattice.write_text(lattice.read_text().replace("return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)", "return t"))
    edited, edited_hits = _run(tmp_path)
    assert edited_hits == 0, "a stale kernel was loaded from the cache"
    assert edited != first


def test_copies_of_the_package_share_one_cache_folder(tmp_path: Path) -> None:
    """The cache's folder is named by the package's import name, not by where its files are: a second copy of the
    package (an add-on staged again, a copied checkout) loads the kernels the first one compiled. Data files are
    named by their entry's key, so processes sharing the folder cannot overwrite each other's entries."""
    cache = tmp_path / "cache"
    results = []
    for copy in ("first", "second"):
        shutil.copytree(
            Path(noise_core.__file__).parent,
            tmp_path / copy / "noise_core",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
        results.append(_run(tmp_path / copy, {"NUMBA_CACHE_DIR": str(cache)}))
    (first, first_hits), (second, second_hits) = results
    assert (second, first_hits, second_hits) == (first, 0, 1), "the second copy compiled again"
    data = sorted(path.name for path in cache.rglob("*.nbc"))
    assert data and all(re.fullmatch(r".+\.py\d+\.[0-9a-f]{24}\.nbc", name) for name in data), data
    assert {path.relative_to(cache).parts[0] for path in cache.rglob("*.nbi")} == {"noise_core"}
    assert not list((tmp_path / "first" / "noise_core").rglob("*.nbi")), "cached beside the modules"


CHOSEN = """
import json, sys, warnings
import numpy as np
import noise_core as nc
from noise_core import fractal
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    where = nc.set_cache_dir(sys.argv[1]) if len(sys.argv) > 1 else nc.cache_location()
    spec = nc.NoiseSpec(kind="value", frequency=1)
    before = nc.compile_state(spec, 1)
    value = float(nc.evaluate(spec, np.array([[0.3]]))[0])
    tiled = float(nc.evaluate(nc.NoiseSpec(kind="value", frequency=1, tiling=True), np.array([[0.3]]))[0])
print(json.dumps({
    "where": where, "before": before, "after": nc.compile_state(spec, 1), "value": value, "tiled": tiled,
    "hits": sum(fractal.kernel_for(0, 1, 0).stats.cache_hits.values()),
    "warnings": [str(w.message) for w in caught if issubclass(w.category, nc.CacheWarning)],
}))
"""


def _run_chosen(root: Path, *arguments: str, env: dict | None = None) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHOSEN, *arguments],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env=env or {"PATH": ""},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _package_copy(root: Path) -> Path:
    package = root / "noise_core"
    shutil.copytree(Path(noise_core.__file__).parent, package, ignore=shutil.ignore_patterns("__pycache__"))
    return package


def _numba_files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.suffix in (".nbi", ".nbc")]


def test_set_cache_dir_puts_every_cache_file_in_the_chosen_folder(tmp_path: Path) -> None:
    package = _package_copy(tmp_path)
    chosen = tmp_path / "user" / "numba_cache"
    first = _run_chosen(tmp_path, str(chosen))
    assert Path(first["where"]).parent == chosen
    assert (first["before"], first["after"], first["hits"], first["warnings"]) == ("uncompiled", "compiled", 0, [])
    assert _numba_files(chosen), "nothing was cached in the chosen folder"
    assert not _numba_files(package), "cache files were written beside the modules"

    again = _run_chosen(tmp_path, str(chosen))
    assert (again["before"], again["hits"], again["value"]) == ("cached", 1, first["value"])


def test_no_writable_chosen_folder_runs_uncached_with_one_warning(tmp_path: Path) -> None:
    package = _package_copy(tmp_path)
    reference = _run_chosen(tmp_path, str(tmp_path / "cache"))
    blocker = tmp_path / "a-file"
    blocker.write_text("folders cannot be made under a file, whoever runs the test")
    report = _run_chosen(tmp_path, str(blocker / "numba_cache"))
    assert report["where"] is None
    assert len(report["warnings"]) == 1 and "cannot write Numba's cache" in report["warnings"][0]
    assert (report["value"], report["tiled"]) == (reference["value"], reference["tiled"])
    assert (report["before"], report["after"]) == ("uncompiled", "compiled")
    assert not _numba_files(package)


def test_read_only_install_without_a_writable_default_place_runs_uncached(tmp_path: Path) -> None:
    """Numba alone raises "no locator available" when neither __pycache__ nor the user cache folder can be written."""
    package = _package_copy(tmp_path)
    for folder in (init.parent for init in package.rglob("__init__.py")):  # the package and its subpackages
        (folder / "__pycache__").write_text("a file where the in-tree cache folder would go")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    report = _run_chosen(tmp_path, env={"PATH": "", "HOME": str(blocker), "XDG_CACHE_HOME": str(blocker)})
    assert report["where"] is None
    assert len(report["warnings"]) == 1
    assert report["after"] == "compiled"


@pytest.mark.parametrize(
    ("dim", "dtype", "error", "message"),
    [
        (5, np.float64, ValueError, r"^dim: kind 'perlin' is defined in 1, 2, 3, 4 dimensions, got 5"),
        (True, np.float64, ValueError, r"^dim: "),
        (2, np.int32, TypeError, r"^dtype: must be float32 or float64, got int32"),
        (2, "no such type", TypeError, r"^dtype: must be float32 or float64"),
    ],
)
def test_compile_state_rejects_bad_arguments(dim, dtype, error, message) -> None:
    with pytest.raises(error, match=message):
        noise_core.compile_state(noise_core.NoiseSpec(kind="perlin"), dim, dtype)


def test_set_cache_dir_rejects_a_non_path() -> None:
    with pytest.raises(TypeError, match=r"^directory: expected a path or None, got int"):
        noise_core.set_cache_dir(3)  # type: ignore[arg-type]


def test_compile_state_asks_about_the_kernel_evaluate_runs() -> None:
    """``Kind.variant_of`` skips building the parameters but must name the same kernel as ``kernel_arguments``."""
    from noise_core.registry import KINDS, kernel_arguments

    for name, kind in KINDS.items():
        distance = kind.option("distance")
        for value in distance.choices if distance else (None,):
            spec = noise_core.NoiseSpec(kind=name, distance=value)
            for dim in kind.dims:
                assert kind.variant_of(spec) == kernel_arguments(spec, dim)[1], (name, value, dim)


def test_launch_checks_each_new_argument_type_once_outside_the_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """``runtime.launch_blocks`` makes sure of the compiled kernel (compiling or loading it outside the launch lock) the
    first time it sees the arguments' types, then skips that check; read-only points are a new type."""
    from noise_core import fractal, runtime

    checks = []
    real = runtime.ensure_compiled
    launcher = fractal.launcher_for(3)

    def ensure_compiled(kernel, signature):
        assert not runtime._LAUNCH_LOCK.locked()
        if kernel is launcher:
            checks.append(signature)
        real(kernel, signature)

    monkeypatch.setattr(runtime, "ensure_compiled", ensure_compiled)
    monkeypatch.setattr(runtime, "_READY", set())
    monkeypatch.setattr(runtime, "THREAD_SAFE_LAYERS", frozenset())  # every launch takes the lock
    spec = noise_core.NoiseSpec(kind="perlin", seed=5)
    points = np.random.default_rng(3).uniform(-4.0, 4.0, (300, 3))
    first = noise_core.evaluate(spec, points)
    assert len(checks) == 1
    np.testing.assert_array_equal(noise_core.evaluate(spec, points + 0.0), first)
    assert len(checks) == 1
    frozen = points.copy()
    frozen.flags.writeable = False
    np.testing.assert_array_equal(noise_core.evaluate(spec, frozen), first)
    points_type = 2  # after the range kernel's first and last block
    assert len(checks) == 2 and checks[0][points_type].mutable and not checks[1][points_type].mutable
    np.testing.assert_array_equal(noise_core.evaluate(spec, frozen), first)
    assert len(checks) == 2


FIRST_USES = """
import json, sys
import numpy as np
import noise_core as nc
from numba.core import event
from noise_core import normal_maps, runtime, uv_bake
nc.set_cache_dir(sys.argv[1])
perlin = nc.NoiseSpec(kind="perlin", octaves=2)
value = nc.NoiseSpec(kind="value", tiling=True)
warped = nc.NoiseSpec(kind="voronoi", warp="progressive", warp_kind="value", warp_octaves=2, warp_amplitude=0.3)
swirled = nc.NoiseSpec(kind="value", warp="independent", warp_kind="simplex", warp_amplitude=0.2)
uvs = np.array([[[0.1, 0.1], [0.9, 0.1], [0.1, 0.9]]])
corners = np.array([[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
lattice = np.column_stack(nc.api.grid_coordinates((20, 30)))
runs = {
    "derivatives": (nc.api.plan(perlin, 2, derivatives=True),
                    lambda: nc.evaluate(perlin, np.random.rand(50, 2), derivatives=True)),
    "normal map": (normal_maps.normals_plan(value, 2), lambda: normal_maps.grid_normals(value, (8, 8))),
    "uv bake": (uv_bake.bake_plan(perlin), lambda: uv_bake.bake_uv(perlin, uvs, corners, (16, 16), 2)),
    "warped lattice": (nc.api.plan(warped, 2, lattice=True), lambda: nc.evaluate(warped, lattice)),
    "warped grid": (nc.api.plan(swirled, 2, lattice=True), lambda: nc.evaluate_grid(swirled, (9, 11))),
}
found = {}
for name, (steps, run) in runs.items():
    before = runtime.least_ready(steps)
    runtime.prepare(steps)
    with event.install_recorder("numba:compile") as compiles:
        run()
    found[name] = [before, len(compiles.buffer), runtime.least_ready(steps)]
print(json.dumps(found))
"""


def test_plans_list_every_kernel_a_first_use_compiles(tmp_path: Path) -> None:
    """In a fresh process with an empty cache, the plans of derivatives, normal maps, UV bakes and warped
    lattices are "uncompiled" (so the add-on announces them); once prepared, the call compiles nothing more."""
    done = subprocess.run(
        [sys.executable, "-c", FIRST_USES, str(tmp_path / "cache")],
        cwd=Path(noise_core.__file__).parent.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {name: ["uncompiled", 0, "compiled"] for name in found} and len(found) == 5
