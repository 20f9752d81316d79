"""``python -m noise_core erode IN --out OUT --mode fluvial|hydraulic|thermal``: erode a heightmap.

IN and OUT are heightmaps of any format (.r16, .raw, .r32, .png, .exr, .tif, .tiff; raw files take their size
from their sidecar or are square). The heights are the sidecar's height range (``NAME.ext.json``, as ``bake`` and
``import`` write it), else the values (0..1) times 100; ``--relief R`` reads the values times R instead. The cells
are ``--cell-size`` apart, else the sidecar's cell size, else 1. OUT gets a sidecar with its height range and
cell size: the input's range (a float file, .exr/.tif/.r32, keeps heights beyond it as values outside 0..1; an
integer one, .png/.r16/.raw, widens the range to the eroded heights). Each mode's options come from its ``Option`` rows
(``erosion.HYDRAULIC_OPTIONS``, ``THERMAL_OPTIONS``, ``fluvial.FLUVIAL_OPTIONS``). Fluvial maps: an image in
[0, 1] times ``--uplift`` (``--uplift-map``) or ``--erodibility`` (``--erodibility-map``), the rain per cell
(``--precipitation-map``), base-level cells where above 0.5 (``--outlets-map``, a sea); flow maps out: drainage
area as ``log(1 + A) / log(1 + max A)``, the river mask (0/1), erosion and deposition divided by their common
maximum. ``--erodibility-map`` works in the hydraulic and thermal modes too: the multiplier itself, in (0, 1]
(``erode_hydraulic``/``erode_thermal``'s ``erodibility``: harder rock where smaller, e.g. ``1 - contrast x`` the
``layers`` command's ``strata``). Every file is written whole or not at all.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import time
from pathlib import Path

import numpy as np

from ..io import heightmaps
from ..io.files import ArgumentFileError, replacing_all
from ..io.images import PNG_BITS, image_format, read_image, write_image, writer_module
from ..schema import Option
from ..terrain.erosion import HYDRAULIC_OPTIONS, THERMAL_OPTIONS, erode_hydraulic, erode_thermal
from ..terrain.fluvial import FLUVIAL_OPTIONS, erode_fluvial
from ..terrain.heightfield import CELL_SIZE
from .flags import add_flags, flag

MODES: dict[str, tuple[Option, ...]] = {
    "fluvial": FLUVIAL_OPTIONS,
    "hydraulic": HYDRAULIC_OPTIONS,
    "thermal": THERMAL_OPTIONS,
}
FLOAT32_MAX = float(np.finfo(np.float32).max)
RELIEF = 100.0
"""The height of value 1 of an input without a height range (and no ``--relief``)."""
FLOAT_SUFFIXES = (".exr", ".tif", ".tiff", ".r32")
"""Heightmap formats of float samples: values outside 0..1 are kept as they are."""
MAPS = ("uplift_map", "erodibility_map", "precipitation_map", "outlets_map")
OUTPUTS = ("area_out", "rivers_out", "erosion_out", "deposition_out")


def _name(name: str) -> str:
    """How messages name the argument ``name``: ``input``, ``out``, ``uplift-map``, ..."""
    return name.replace("_", "-")


def add_erode_command(commands: argparse._SubParsersAction) -> None:
    """The ``erode`` command and its options (one group per mode, from the modes' ``Option`` rows)."""
    erode = commands.add_parser(
        "erode",
        help="erode a heightmap image (fluvial rivers, hydraulic droplets or thermal slides)",
        description=__doc__.split("\n\n", 1)[1].replace("``", ""),
    )
    formats = heightmaps.listed()
    erode.add_argument("input", type=Path, help=f"heightmap ({formats}), with its sidecar if it has one")
    erode.add_argument("--out", type=Path, required=True, help=f"eroded heightmap ({formats}) and its sidecar")
    erode.add_argument("--mode", choices=tuple(MODES), default="fluvial", help="erosion model (default fluvial)")
    erode.add_argument("--relief", type=float, help="height of input value 1 (default: the sidecar's height range, "
                       f"else {RELIEF:g})")  # fmt: skip
    add_flags(erode, [CELL_SIZE], unset=None)
    erode.add_argument("--png-bits", type=int, choices=PNG_BITS, default=16, help="depth of .png outputs")
    seen: set[str] = set()
    for mode, options in MODES.items():  # each mode's rows; one flag for a name two modes share
        group = erode.add_argument_group(f"{mode} options")
        add_flags(group, [option for option in options if option.name not in seen])
        seen.update(option.name for option in options)
    maps = erode.add_argument_group("fluvial maps in and flow maps out (images)")
    for name in MAPS:
        what = "base level (a sea) where > 0.5" if name == "outlets_map" else f"{name.split('_')[0]} per pixel"
        maps.add_argument(flag(name), type=Path, help=f"{what} (0..1, see above)")
    for name in OUTPUTS:
        maps.add_argument(flag(name), type=Path, help=f"write the {name.split('_')[0]} map here")


def _read(path: Path, name: str) -> np.ndarray:
    """The first channel of the image ``path`` given as the argument ``name`` (float64, finite); ``ValueError``
    naming it when it is missing, cannot be read or holds NaN or infinity."""
    try:
        values = read_image(path, _name(name))
    except FileNotFoundError as error:
        raise ValueError(str(error)) from None
    values = np.asarray(values[..., 0] if values.ndim == 3 else values, dtype=np.float64)
    if not np.isfinite(values).all():
        raise ValueError(f"{_name(name)}: {str(path)!r} has pixels that are not finite numbers")
    return values


def _read_map(path: Path, shape: tuple[int, ...], name: str) -> np.ndarray:
    values = _read(path, name)
    if values.shape != shape:
        raise ValueError(f"{name.replace('_', '-')}: {path} is {values.shape[1]}x{values.shape[0]} pixels, "
                         f"the heightmap {shape[1]}x{shape[0]}")  # fmt: skip
    return values


def _outputs(args: argparse.Namespace) -> dict[Path, str]:
    """The output files by the argument naming each (``out``, ``area-out``, ...), checked before any work: a
    writable format, an existing folder, and no two the same file (``ValueError`` naming both arguments)."""
    named = [("out", args.out), *((name, getattr(args, name)) for name in OUTPUTS if getattr(args, name) is not None)]
    seen: dict[str, str] = {}
    outputs: dict[Path, str] = {}
    for name, path in named:
        flag = _name(name)
        key = os.path.normcase(os.path.abspath(path))
        if key in seen:
            raise ValueError(f"{flag}: {str(path)!r} is also --{seen[key]}'s file; give each output its own path")
        seen[key] = flag
        suffix = heightmaps.heightmap_format(path, flag) if name == "out" else image_format(path, flag)
        if suffix not in heightmaps.RAW_TYPES:
            writer_module(suffix, flag)
        outputs[path] = flag
    return outputs


def erode(args: argparse.Namespace) -> Path:
    """Erode the image ``args.input`` as ``args`` say and write ``args.out`` (and the asked-for maps)."""
    options = {option.name: getattr(args, option.name) for option in MODES[args.mode] if hasattr(args, option.name)}
    for mode, rows in MODES.items():
        for option in rows:
            if mode != args.mode and hasattr(args, option.name) and option.name not in options:
                raise ValueError(f"{option.name}: not an option of --mode {args.mode} (only of {mode})")
    given_maps = [name for name in (*MAPS, *OUTPUTS) if getattr(args, name) is not None and name != "erodibility_map"]
    if args.mode != "fluvial" and given_maps:
        raise ValueError(f"{given_maps[0].replace('_', '-')}: only used with --mode fluvial")
    if args.relief is not None and not (math.isfinite(args.relief) and args.relief > 0.0):
        raise ValueError(f"relief: must be > 0, got {args.relief!r}")
    outputs = _outputs(args)
    for name in MAPS:  # every input before any work
        if getattr(args, name) is not None and not getattr(args, name).is_file():
            raise ValueError(f"{_name(name)}: no such file {str(getattr(args, name))!r}")
    found = read_heightfile(args.input, "input")
    if args.relief is None and found.height_range is not None:
        (low, high), unit = found.height_range, found.unit
    else:
        (low, high), unit = (0.0, RELIEF if args.relief is None else args.relief), "m"
    with np.errstate(over="ignore"):
        heights = low + found.values.astype(np.float64) * (high - low)
    largest = float(np.abs(heights).max())
    if largest > FLOAT32_MAX:  # the output is float32 heights / relief
        raise ValueError(f"relief: {high - low:g} makes heights up to {largest:.3g}, beyond float32 (3.4e38)")
    args.cell_size = cell_size_of(args.cell_size, found)
    started = time.perf_counter()
    images: dict[Path, np.ndarray] = {}
    if args.mode == "fluvial":
        defaults = {option.name: option.default for option in FLUVIAL_OPTIONS}
        options = {**defaults, **options}
        if args.uplift_map is not None:
            options["uplift"] = _read_map(args.uplift_map, heights.shape, "uplift_map") * float(options["uplift"])
        if args.erodibility_map is not None:
            hard = _read_map(args.erodibility_map, heights.shape, "erodibility_map")
            options["erodibility"] = hard * float(options["erodibility"])
        if args.precipitation_map is not None:
            options["precipitation"] = _read_map(args.precipitation_map, heights.shape, "precipitation_map")
        if args.outlets_map is not None:
            options["outlets"] = _read_map(args.outlets_map, heights.shape, "outlets_map") > 0.5
        result = erode_fluvial(heights, cell_size=args.cell_size, **options)
        largest = max(float(result.erosion.max()), float(result.deposition.max()), 1e-30)
        area = np.log1p(result.drainage_area.astype(np.float64))
        maps = {"area_out": area / max(float(area.max()), 1e-30), "rivers_out": result.rivers.astype(np.float32),
                "erosion_out": result.erosion / largest, "deposition_out": result.deposition / largest}  # fmt: skip
        images.update({getattr(args, name): maps[name] for name in OUTPUTS if getattr(args, name) is not None})
    else:
        run = erode_hydraulic if args.mode == "hydraulic" else erode_thermal
        if args.erodibility_map is not None:  # the multiplier itself (its own checks name it erodibility)
            options["erodibility"] = _read_map(args.erodibility_map, heights.shape, "erodibility_map")
        result = run(heights, cell_size=args.cell_size, **options)  # type: ignore[assignment]
    suffix = args.out.suffix.lower()
    if suffix not in FLOAT_SUFFIXES:  # integer samples: the range widened to the eroded heights
        low, high = min(low, float(result.heights.min())), max(high, float(result.heights.max()))
    values = (result.heights - low) / (high - low)
    settings = {"erode": {"mode": args.mode, "input": args.input.name}}
    record = heightmaps.describe(values.shape, suffix, (low, high), unit, settings, heightmaps.ROW_ORDER)
    record["cell_size"] = {"x": float(args.cell_size), "y": float(args.cell_size)}
    images = {args.out: values, heightmaps.sidecar_path(args.out): record, **images}
    outputs[heightmaps.sidecar_path(args.out)] = "out"
    flags = ", ".join(dict.fromkeys(outputs[path] for path in images))
    try:
        with replacing_all(list(images), flags) as temporaries:  # all or none
            for temporary, (path, content) in zip(temporaries, images.items(), strict=True):
                if isinstance(content, dict):
                    temporary.write_text(json.dumps(content, indent=1), encoding="utf-8")
                elif path == args.out and suffix in heightmaps.RAW_TYPES:
                    temporary.write_bytes(heightmaps.encode(np.asarray(content, dtype=np.float32), suffix))
                else:
                    write_image(temporary, np.asarray(content, dtype=np.float32), args.png_bits)
    except OSError as error:
        files = ", ".join(repr(str(path)) for path in images)
        raise ArgumentFileError(f"{flags}: cannot write {files} (none was written): {error}") from error
    elapsed = time.perf_counter() - started
    print(f"wrote {args.out} and {heightmaps.sidecar_path(args.out).name} ({heights.shape[1]}x{heights.shape[0]}, "
          f"{args.mode} erosion, heights {result.heights.min():.6g} .. {result.heights.max():.6g} {unit}, [0, 1] = "
          f"{low:g} .. {high:g}, {args.cell_size:g} cells, {elapsed:.2f} s)" + (
          f" and {len(images) - 2} maps" if len(images) > 2 else ""))  # fmt: skip
    return args.out


def read_heightfile(path: Path, argument: str) -> heightmaps.Heightmap:
    """The heightmap ``path`` (any of ``heightmaps.FORMATS``) with its sidecar; errors start with ``argument``."""
    heightmaps.heightmap_format(path, argument)
    if not path.is_file() and not heightmaps.sidecar_path(path).is_file():
        raise ValueError(f"{argument}: no such file {str(path)!r}")
    try:
        return heightmaps.read_heightmap(path)
    except (ValueError, FileNotFoundError) as error:
        raise ValueError(re.sub(r"^path: ", f"{argument}: ", str(error))) from None
    except ModuleNotFoundError as error:  # a reader not installed
        raise ModuleNotFoundError(re.sub(r"^path: ", f"{argument}: ", str(error)), name=error.name) from None


def cell_size_of(given: float | None, found: heightmaps.Heightmap | None) -> float:
    """``given`` (``--cell-size``, checked), else the spacing ``found``'s sidecar gives, else ``CELL_SIZE``'s
    default; ``ValueError`` naming ``cell-size`` for a sidecar whose cells are not square."""
    if given is not None:
        return float(CELL_SIZE.check(given))  # type: ignore[arg-type]
    if found is None:
        return float(CELL_SIZE.default)  # type: ignore[arg-type]
    rows, columns = found.values.shape
    try:
        spacing = heightmaps.sidecar_spacing(found.sidecar, columns, rows)
    except ValueError as error:
        raise ValueError(f"cell-size: give it; {str(error).removeprefix('path: ')}") from None
    return float(CELL_SIZE.default) if spacing is None else spacing  # type: ignore[arg-type]
