"""Operator paths: kernel time against everything else (issue 36).

Run from the checkout with the ``bpy`` module (Blender's user folder: ``build/bench-operators-user``)::

    .venv/bin/python scripts/bench_operators.py                 # every path, the sizes below
    .venv/bin/python scripts/bench_operators.py --quick         # small sizes, a smoke test
    .venv/bin/python scripts/bench_operators.py --only displace,regenerate --repeat 7

Each path runs its operator (``bpy.ops.noisewright.*``) end to end, warm (run once before timing), best of
``--repeat`` runs; the noise is Perlin, 5 octaves, frequency 4 (``bench.py``'s Blender case):

* ``displace``: ``noisewright.displace`` along Z on a ``--grid`` x ``--grid`` vertex plane (1M vertices),
  3D noise; also ``api.displace`` alone (without the operator's undo step) and Geometry Nodes' Noise Texture ->
  Set Position applied on the same grid (``bench.py``'s comparison), in the same run;
* ``add-terrain`` and ``regenerate``: ``noisewright.add_terrain`` / ``regenerate_terrain``, ``--terrain`` x
  ``--terrain`` vertices, 2D noise (the grid kernels);
* ``bake``: ``noisewright.bake_texture``, ``--bake`` x ``--bake`` pixels, 2D plane;
* ``uv-bake``: ``noisewright.bake_uv``, ``--bake`` x ``--bake`` texels, on a UV sphere;
* ``erode``: ``noisewright.erode`` (hydraulic with its default options) on a ``--erode`` x ``--erode`` terrain;
* ``terrain-maps``: ``noisewright.terrain_maps`` (its default maps: slope, curvature, flow, stored as point
  attributes) on a ``--maps`` x ``--maps`` Noise Terrain.

"kernel" is the wall time spent inside the compiled kernels during the call: every launch of a range kernel
(``fractal.launch_blocks``: the noise, its grids and derivatives, thermal erosion), the UV rasteriser's serial
kernels, the flow map's (``hydrology``: depression filling, flow routing) and, for ``erode``,
``erode_hydraulic``/``erode_thermal``; "noise space" is ``mapping.Domain.noise_points`` (the numpy transform into
noise space); "other" is the rest (numpy passes, copies, Displace's one-pass displacement kernel, the operator's own
overhead); "Blender I/O" the add-on's reads and writes of mesh and image data (``mesh_io``: positions, point
attributes, the grid check; ``erosion_io.write_masks``, ``image_io.fill_rgba``: the image's pixels, ``to_rgba``: the
values laid out as the RGBA floats Blender's ``Image.pixels`` takes, and ``image_io.resize``: a new image's first
buffer). Times are wall time while at least one wrapped call runs, on any
thread, under the label of the outermost call. The last column is the issue's measure: the total against the
kernels plus the Blender I/O.
Timings, not tests: nothing here asserts.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

SCRIPTS = Path(__file__).resolve().parent
ROOT = SCRIPTS.parent
PATHS = ("displace", "add-terrain", "regenerate", "bake", "uv-bake", "erode", "terrain-maps")
NOISE = {"kind": "perlin", "frequency": 4.0, "octaves": 5}


class Clock:
    """Wall time inside the wrapped functions, by label: the time at least one of them runs, on any thread (nested
    and overlapping calls count once; Terrain Maps routes the flow on a thread of its own beside the other maps)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self._running = 0
        self._started = 0.0
        self._lock = threading.Lock()

    def reset(self) -> None:
        self.spent = {}

    def wrap(self, label: str, function: Callable) -> Callable:
        @functools.wraps(function)
        def timed(*args, **kwargs):
            with self._lock:
                self._running += 1
                if self._running == 1:
                    self._started, self._label = time.perf_counter(), label
            try:
                return function(*args, **kwargs)
            finally:
                with self._lock:
                    self._running -= 1
                    if self._running == 0:
                        elapsed = time.perf_counter() - self._started
                        self.spent[self._label] = self.spent.get(self._label, 0.0) + elapsed

        return timed


class _Proxy:
    """``timed`` when called, ``inner``'s attributes otherwise (a lazy kernel's ``dispatcher``)."""

    def __init__(self, inner, timed: Callable) -> None:
        self._inner, self._timed = inner, timed

    def __call__(self, *args):
        return self._timed(*args)

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


def instrument(package, clock: Clock) -> None:
    """Wrap the add-on's kernel entry points and its noise-space transform with ``clock``."""
    core = package.noise_core
    prefix = core.__name__ + "."
    for name, module in list(sys.modules.items()):  # every module that launches range kernels (fractal, runtime...)
        if name.startswith(prefix) and hasattr(module, "launch_blocks") and not name.endswith(".displacement"):
            module.launch_blocks = clock.wrap("kernel", module.launch_blocks)
    for name, value in list(vars(core.uv_bake).items()):
        if isinstance(value, core._jit.LazySerialKernel):
            setattr(core.uv_bake, name, _Proxy(value, clock.wrap("kernel", value)))
    for name in ("erode_hydraulic", "erode_thermal"):
        setattr(package.erosion_io, name, clock.wrap("kernel", getattr(package.erosion_io, name)))
    hydrology = core.terrain.flow  # the flow map's serial kernels (depression filling, MFD routing)
    kernels = hydrology._kernels()
    timed = SimpleNamespace(
        **{name: _Proxy(kernel, clock.wrap("kernel", kernel)) for name, kernel in vars(kernels).items()}
    )
    hydrology._kernels = lambda: timed
    domain = package.mapping.Domain
    domain.noise_points = clock.wrap("noise space", domain.noise_points)
    mesh_io_names = ("read_vectors", "read_selection", "write_positions", "write_point_floats", "add_shape_key")
    package.image_io.resize = clock.wrap("blender i/o", package.image_io.resize)  # a new image's first buffer
    for name in (*mesh_io_names, "build_grid", "is_grid"):
        setattr(package.mesh_io, name, clock.wrap("blender i/o", getattr(package.mesh_io, name)))
    package.erosion_io.write_masks = clock.wrap("blender i/o", package.erosion_io.write_masks)
    for module in (package.api, *(getattr(package, name, None) for name in ("bake", "bake_uv", "image_io"))):
        for name in ("_fill", "fill_image", "fill_rgba", "to_rgba"):  # before/after issues 28 and 33
            if module is not None and hasattr(module, name):
                setattr(module, name, clock.wrap("blender i/o", getattr(module, name)))


def best(function: Callable[[], object], clock: Clock, repeat: int) -> dict:
    """The fastest of ``repeat`` timed runs of ``function`` (after one warm-up run): total and phases in ms."""
    function()
    runs = []
    for _ in range(repeat):
        clock.reset()
        started = time.perf_counter()
        function()
        total = time.perf_counter() - started
        runs.append({"total": total * 1e3, **{k: v * 1e3 for k, v in clock.spent.items()}})
    return min(runs, key=lambda run: run["total"])


def run(paths: list[str], sizes: dict, repeat: int) -> list[dict]:
    import _blender_addon as helpers
    import bench_blender as bench  # bench.py's Blender grid
    import bpy

    bpy.ops.wm.read_homefile(use_empty=True)
    helpers.load_addon(log=lambda message: None)
    package = helpers.addon_package()
    clock = Clock()
    instrument(package, clock)
    run_operator = helpers.run_operator
    grid_object = functools.partial(bench._grid_object, bpy)  # a size 2 plane, selected and active
    rows: list[dict] = []

    def measure(name: str, size: str, function: Callable[[], object]) -> None:
        row = {"path": name, "size": size, **best(function, clock, repeat)}
        rows.append(row)
        print(format_row(row), flush=True)

    if "displace" in paths:
        side = sizes["grid"]
        helpers.set_noise_settings({**NOISE, "dimensions": "3"})
        obj = grid_object(side, "displace")
        measure(
            "displace (operator)",
            f"{side * side} vertices",
            lambda: run_operator("noisewright.displace", direction="Z"),
        )
        measure(
            "displace (api.displace)",
            f"{side * side} vertices",
            lambda: helpers.run_api("displace", objects=[obj], direction="Z"),
        )
        tree = bench._geometry_nodes_group(bpy)

        def nodes() -> None:
            target = grid_object(side, "nodes")
            target.modifiers.new("Noise", "NODES").node_group = tree
            started = time.perf_counter()
            bpy.ops.object.modifier_apply(modifier="Noise")
            nodes.spent = time.perf_counter() - started  # type: ignore[attr-defined]
            bpy.data.objects.remove(target)

        timings = []
        for _ in range(repeat + 1):
            nodes()
            timings.append(nodes.spent * 1e3)  # type: ignore[attr-defined]
        row = {"path": "Geometry Nodes (applied)", "size": f"{side * side} vertices", "total": min(timings[1:])}
        rows.append(row)
        print(format_row(row), flush=True)
        bpy.ops.wm.read_homefile(use_empty=True)
    if "add-terrain" in paths or "regenerate" in paths:
        side = sizes["terrain"]
        helpers.set_noise_settings({**NOISE, "dimensions": "2"})
        shape = {"x_subdivisions": side - 1, "y_subdivisions": side - 1}

        def add() -> None:
            run_operator("noisewright.add_terrain", **shape)
            if "add-terrain" in paths and len(bpy.data.objects) > 1:
                bpy.data.objects.remove(bpy.data.objects[0])

        if "add-terrain" in paths:
            measure("add terrain", f"{side}x{side} vertices", add)
        else:
            add()
        if "regenerate" in paths:
            measure(
                "regenerate terrain", f"{side}x{side} vertices", lambda: run_operator("noisewright.regenerate_terrain")
            )
        bpy.ops.wm.read_homefile(use_empty=True)
    if "bake" in paths:
        side = sizes["bake"]
        helpers.set_noise_settings({**NOISE, "dimensions": "2"})
        measure(
            "bake",
            f"{side}x{side} pixels",
            lambda: run_operator("noisewright.bake_texture", target="NEW", width=side, height=side),
        )
        bpy.ops.wm.read_homefile(use_empty=True)
    if "uv-bake" in paths:
        side = sizes["bake"]
        helpers.set_noise_settings({**NOISE, "dimensions": "3"})
        bpy.ops.mesh.primitive_uv_sphere_add(segments=64, ring_count=32)
        measure(
            "UV bake", f"{side}x{side} texels", lambda: run_operator("noisewright.bake_uv", width=side, height=side)
        )
        bpy.ops.wm.read_homefile(use_empty=True)
    if "erode" in paths:
        side = sizes["erode"]
        helpers.set_noise_settings({**NOISE, "dimensions": "2"})
        run_operator("noisewright.add_terrain", x_subdivisions=side - 1, y_subdivisions=side - 1)
        measure("erode (hydraulic)", f"{side}x{side} vertices", lambda: run_operator("noisewright.erode"))
        bpy.ops.wm.read_homefile(use_empty=True)
    if "terrain-maps" in paths:
        side = sizes["maps"]
        helpers.set_noise_settings({**NOISE, "dimensions": "2"})
        run_operator("noisewright.add_terrain", x_subdivisions=side - 1, y_subdivisions=side - 1)
        measure(
            "terrain maps (slope, curvature, flow)",
            f"{side}x{side} vertices",
            lambda: run_operator("noisewright.terrain_maps"),
        )
    return rows


COLUMNS = ("total", "kernel", "noise space", "blender i/o")


def format_row(row: dict) -> str:
    """One Markdown table row: the times in ms, the rest ("other") and total / (kernel + Blender I/O)."""
    cells = [f"{row[c]:.1f}" if c in row else "-" for c in COLUMNS]
    other = row["total"] - sum(row.get(c, 0.0) for c in COLUMNS[1:])
    floor = row.get("kernel", 0.0) + row.get("blender i/o", 0.0)
    ratio = f"{row['total'] / floor:.2f}" if floor else "-"
    return f"| {row['path']} | {row['size']} | {' | '.join(cells)} | {other:.1f} | {ratio} |"


def table(rows: list[dict]) -> str:
    """The rows as a Markdown table, and Displace against Geometry Nodes when both ran."""
    header = "| path | size | total ms | kernel | noise space | Blender I/O | other | total / (kernel + I/O) |"
    lines = [header, "|---|---|---|---|---|---|---|---|", *map(format_row, rows)]
    found = {row["path"]: row["total"] for row in rows}
    nodes = found.get("Geometry Nodes (applied)")
    for path in ("displace (operator)", "displace (api.displace)"):
        if nodes and path in found:
            lines.append(f"\n{path}: {nodes / found[path]:.1f}x faster than Geometry Nodes in this run")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(PATHS), help=f"paths to run, of {', '.join(PATHS)}")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per path; the best counts")
    parser.add_argument("--grid", type=int, default=1000, help="vertices per side of the displaced grid")
    parser.add_argument("--terrain", type=int, default=1024, help="vertices per side of the terrain")
    parser.add_argument("--bake", type=int, default=2048, help="pixels per side of the bakes")
    parser.add_argument("--erode", type=int, default=512, help="vertices per side of the eroded terrain")
    parser.add_argument("--maps", type=int, default=1024, help="vertices per side of the terrain of the terrain maps")
    parser.add_argument("--quick", action="store_true", help="small sizes, 2 repeats")
    args = parser.parse_args(argv)
    paths = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = sorted(set(paths) - set(PATHS))
    if unknown:
        parser.error(f"--only: unknown path(s) {', '.join(unknown)}; choose from {', '.join(PATHS)}")
    if args.repeat < 1:
        parser.error(f"--repeat: must be a positive integer, got {args.repeat}")
    sizes = {"grid": args.grid, "terrain": args.terrain, "bake": args.bake, "erode": args.erode, "maps": args.maps}
    if args.quick:
        sizes, args.repeat = {"grid": 200, "terrain": 200, "bake": 256, "erode": 128, "maps": 128}, 2
    user = ROOT / "build" / "bench-operators-user"  # kept: Numba's cache lives in the extension's user folder
    user.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("BLENDER_USER_RESOURCES", str(user))
    rows = run(paths, sizes, args.repeat)
    print()
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
