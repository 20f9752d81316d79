"""Game-engine presets for heightmaps: the sizes each engine's terrain importer takes and the numbers to type
into its import dialog (docs/engines.md has the table and the sources).

One ``Engine`` row per engine: its recommended sizes, the formats its importer reads, how tiles are cut and
named, which sizes it accepts (``check_size``) and its dialog numbers (``import_settings``) for a heightmap
whose [0, 1] values stand for heights ``low..high`` metres with ``cell`` metres between samples (``(dy, dx)``: between
rows and between columns, where the engine has a scale per axis; Terrain3D has one vertex spacing).

- Unreal Engine landscapes: a side of ``n`` samples is ``components x sections x quads + 1`` with quads per
  section 7, 15, 31, 63, 127 or 255, 1 or 2 (x 2) sections per component and at most 32 components per side
  (the exact fit the landscape importer looks for, ``FLandscapeImportHelper::ChooseBestComponentSizeForImport``;
  other sizes are padded or cropped). At Z scale 100 the 16-bit range spans 512 m (-256 m to +256 m), so a
  height range of R metres needs Z scale ``R x 100 / 512`` (the Landscape Technical Guide's ``x 0.001953125``
  per centimetre) and the landscape at Z ``(low + R / 2) x 100`` cm puts code 0 at ``low``.
- Unity terrains: square heightmaps of ``2^n + 1`` samples from 33 to 4097, 16-bit RAW (byte order
  Windows = little-endian); Terrain Size Y is the height range, the first stored row is the terrain's z = 0 edge.
- Godot Terrain3D: any size (its importer slices and pads into regions of 64 to 2048 samples); 32-bit EXR
  (import scale = R, offset = low) or R16 (its height range and size typed in).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

UNREAL_SECTION_QUADS = (7, 15, 31, 63, 127, 255)
UNREAL_SECTIONS = (1, 2)
UNREAL_MAX_COMPONENTS = 32
UNREAL_Z_RANGE_AT_100 = 512.0
"""Metres the 16-bit range spans at Z scale 100 (-256 m to +256 m)."""
UNITY_SIZES = tuple(2**n + 1 for n in range(5, 13))
TERRAIN3D_REGION_SIZES = (64, 128, 256, 512, 1024, 2048)
TERRAIN3D_MAX_SIZE = 32 * 2048
"""Terrain3D's world: 32 x 32 regions of at most 2048 samples (65.5 km at 1 m)."""


def unreal_layout(width: int, height: int) -> tuple[int, int, int, int] | None:
    """``(quads per section, sections per component side, components along x, components along y)`` of the
    exact Unreal landscape of ``width x height`` samples, or ``None`` if there is none. Searched as Unreal's
    importer does: largest section first, 2x2 sections before 1x1, at most 32 components per side."""
    for quads in reversed(UNREAL_SECTION_QUADS):
        for sections in reversed(UNREAL_SECTIONS):
            step = quads * sections
            if width < 2 or height < 2 or (width - 1) % step or (height - 1) % step:
                continue
            across, down = (width - 1) // step, (height - 1) // step
            if across <= UNREAL_MAX_COMPONENTS and down <= UNREAL_MAX_COMPONENTS:
                return quads, sections, across, down
    return None


def unreal_z_scale(height_range: float) -> float:
    """The landscape's Z scale for a height range of ``height_range`` metres: ``R x 100 / 512``."""
    return height_range * 100.0 / UNREAL_Z_RANGE_AT_100


def unreal_nearest(width: int, height: int) -> list[tuple[int, int]]:
    """The exact Unreal landscape sizes (``unreal_layout``) nearest to ``width x height``: the largest not above it
    and the smallest not below it (by the sum of the sides' differences), as ``(width, height)``, smaller first."""
    found: set[tuple[int, int]] = set()
    for quads in UNREAL_SECTION_QUADS:
        for sections in UNREAL_SECTIONS:
            step = quads * sections
            near = [
                {min(max(k, 1), UNREAL_MAX_COMPONENTS) * step + 1 for k in ((side - 1) // step, -(-(side - 1) // step))}
                for side in (width, height)
            ]
            found.update((across, down) for across in near[0] for down in near[1])

    def distance(size: tuple[int, int]) -> int:
        return abs(size[0] - width) + abs(size[1] - height)

    below = [size for size in found if size[0] <= width and size[1] <= height]
    above = [size for size in found if size[0] >= width and size[1] >= height]
    picked = {min(group, key=distance) for group in (below, above) if group} or {min(found, key=distance)}
    return sorted(picked)


def _unreal_refusal(width: int, height: int) -> str:
    if unreal_layout(width, height) is not None:
        return ""
    nearest = " or ".join(f"{across}x{down}" for across, down in unreal_nearest(width, height))
    return (
        f"the nearest sizes it takes are {nearest}; an Unreal landscape side is components x sections x quads + 1 "
        "samples (quads 7, 15, 31, 63, 127 or 255; 1 or 2 sections; at most 32 components), e.g. 505, 1009, 2017, "
        "4033, 8129; other sizes are padded or cropped"
    )


def _unity_refusal(width: int, height: int) -> str:
    if width == height and width in UNITY_SIZES:
        return ""
    return f"Unity terrain heightmaps are square, 2^n + 1 samples: {', '.join(map(str, UNITY_SIZES))}"


def _terrain3d_refusal(width: int, height: int) -> str:
    if max(width, height) <= TERRAIN3D_MAX_SIZE:
        return ""
    return f"Terrain3D's world is at most {TERRAIN3D_MAX_SIZE} samples per side (32 regions of 2048)"


def _unreal_settings(width: int, height: int, low: float, high: float, cell: tuple, suffix: str) -> dict:
    layout = unreal_layout(width, height)
    assert layout is not None
    quads, sections, across, down = layout
    return {
        "Heightmap File": f"the {suffix} file (16-bit)",
        "Section Size": f"{quads}x{quads} Quads",
        "Sections Per Component": "2x2 Sections" if sections == 2 else "1x1 Section",
        "Number of Components": [across, down],
        "Overall Resolution": [width, height],
        "Location (cm)": [0.0, 0.0, (low + (high - low) / 2.0) * 100.0],
        "Scale (cm)": [cell[1] * 100.0, cell[0] * 100.0, unreal_z_scale(high - low)],
    }


def _unity_settings(width: int, height: int, low: float, high: float, cell: tuple, suffix: str) -> dict:
    return {
        "Depth": "Bit 16",
        "Resolution": [width, height],
        "Byte Order": "Windows",
        "Flip Vertically": True,
        "Terrain Size": [(width - 1) * cell[1], high - low, (height - 1) * cell[0]],
        "Terrain Position Y": low,
    }


def _terrain3d_settings(width: int, height: int, low: float, high: float, cell: tuple, suffix: str) -> dict:
    region = next((size for size in TERRAIN3D_REGION_SIZES if size >= max(width, height)), 2048)
    common = {"vertex_spacing": cell[0], "region_size": region}
    if suffix in (".r16", ".raw"):
        return {
            **common,
            "r16_range": [low, high],
            "r16_size": [width, height],
            "import_scale": 1.0,
            "import_offset": 0.0,
        }
    return {**common, "import_scale": high - low, "import_offset": low}


def _numbers(record: dict) -> list[float]:
    """The numbers in an import record (lists flattened; text left out)."""
    values: list[float] = []
    for value in record.values():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, (int, float)) and not isinstance(item, bool):
                values.append(float(item))
    return values


def _indices(x: int, y: int, across: int, down: int) -> dict:
    return {"x": x, "y": y, "z": down - 1 - y}


@dataclass(frozen=True)
class Engine:
    """One engine's heightmap import: sizes, formats, tiles and dialog numbers (see the module docstring)."""

    name: str
    title: str
    sizes: tuple[int, ...]
    """Recommended sizes per side (samples)."""
    formats: tuple[str, ...]
    """File suffixes its importer reads, best first."""
    tile_overlap: int
    """Samples neighbouring tiles share (1: a shared edge row and column)."""
    tile_name: str
    """Tile file stem after the output's stem: ``{x}`` column from the left, ``{y}`` row from the first row,
    ``{z}`` row from the last (Unity's z from its first-row edge when the file is flipped)."""
    refusal: Callable[[int, int], str]
    settings: Callable[[int, int, float, float, tuple, str], dict]
    row_note: str
    tile_sizes: tuple[int, ...] = ()
    """Tile sides (N) allowed; empty: any N whose tile of N + overlap samples the engine takes."""
    one_spacing: bool = False
    """Whether its importer takes one spacing for both axes (square cells only)."""

    def check_cell(self, cell: tuple[float, float]) -> None:
        """``ValueError`` starting with ``cell_size:`` if this engine cannot take cells ``(dy, dx)`` apart."""
        if self.one_spacing and cell[0] != cell[1]:
            raise ValueError(f"cell_size: {self.title} has one vertex spacing for both axes; got {cell[1]:g} between "
                             f"columns and {cell[0]:g} between rows (export square cells)")  # fmt: skip

    def check_tile(self, tile: int) -> None:
        """``ValueError`` starting with ``tile:`` if tiles of side ``tile`` (+ the overlap) do not suit."""
        if self.tile_sizes:
            if tile not in self.tile_sizes:
                allowed = ", ".join(map(str, self.tile_sizes))
                raise ValueError(f"tile: {self.title} tiles are its region sizes {allowed}; got {tile}")
        else:
            side = tile + self.tile_overlap
            self.check_size(side, side, f"tile: {tile} + {self.tile_overlap} samples")

    def check_size(self, width: int, height: int, what: str = "size") -> None:
        """``ValueError`` starting with ``what`` if this engine does not take a ``width x height`` heightmap."""
        reason = self.refusal(width, height)
        if reason:
            raise ValueError(f"{what}: {self.title} does not take {width}x{height}: {reason}")

    def check_format(self, suffix: str) -> None:
        """``ValueError`` starting with ``out:`` if this engine's importer does not read ``suffix`` files."""
        if suffix not in self.formats:
            raise ValueError(
                f"out: {self.title} imports {', '.join(self.formats)} heightmaps, not {suffix} (use one of those)"
            )

    def import_settings(
        self, width: int, height: int, height_range: tuple[float, float], cell: float | tuple, suffix: str
    ) -> dict:
        """The numbers to type into this engine's import dialog for a ``width x height`` file whose 0 and 1 are
        ``height_range`` metres apart ``cell`` metres between samples (or ``(dy, dx)``: between rows, between
        columns)."""
        self.check_size(width, height)
        low, high = height_range
        pair = (float(cell), float(cell)) if isinstance(cell, (int, float)) else (float(cell[0]), float(cell[1]))
        self.check_cell(pair)
        numbers = self.settings(width, height, low, high, pair, suffix)
        if not all(math.isfinite(value) for value in _numbers(numbers)):  # e.g. Unreal's cm of a huge range
            ones = self.settings(width, height, low, high, (1.0, 1.0), suffix)
            finite_cell = all(math.isfinite(value) for value in _numbers(ones))
            name = "cell_size" if finite_cell else "height_range"
            raise ValueError(f"{name}: {self.title}'s import numbers for it pass float64; give heights and cell "
                             "size in metres")  # fmt: skip
        return {"engine": self.title, **numbers, "rows": self.row_note}

    def tile_stem(self, stem: str, x: int, y: int, across: int, down: int) -> str:
        """The file stem of tile (``x``, ``y``) of ``across x down`` tiles."""
        return stem + self.tile_name.format(**_indices(x, y, across, down))


ENGINES = {
    engine.name: engine
    for engine in (
        Engine(
            name="unreal",
            title="Unreal Engine",
            sizes=(127, 253, 505, 1009, 2017, 4033, 8129),
            formats=(".png", ".r16", ".raw"),
            tile_overlap=1,
            tile_name="_x{x}_y{y}",
            refusal=_unreal_refusal,
            settings=_unreal_settings,
            row_note="the first row is the landscape's -Y edge (the top in Unreal's top view); no flip",
        ),
        Engine(
            name="unity",
            title="Unity",
            sizes=UNITY_SIZES,
            formats=(".raw", ".r16"),
            tile_overlap=1,
            tile_name="_{x}_{z}",
            refusal=_unity_refusal,
            settings=_unity_settings,
            row_note="Unity puts a file's first row at z = 0; Flip Vertically puts it at +Z (the north edge, as drawn)",
        ),
        Engine(
            name="godot",
            title="Godot Terrain3D",
            sizes=(256, 512, 1024, 2048, 4096, 8192, 16384),
            formats=(".exr", ".r16", ".raw"),
            tile_overlap=0,
            tile_name="_x{x}_y{y}",
            refusal=_terrain3d_refusal,
            settings=_terrain3d_settings,
            row_note="the first row is the -Z edge (the top in Godot's top view); no flip",
            tile_sizes=TERRAIN3D_REGION_SIZES,
            one_spacing=True,
        ),
    )
}
ENGINE_NAMES = tuple(ENGINES)


def engine(name: object) -> Engine:
    """The preset called ``name``; ``ValueError`` starting with ``engine:`` otherwise."""
    if name not in ENGINES:
        raise ValueError(f"engine: {name!r} is not a preset; choose one of {', '.join(ENGINE_NAMES)}")
    return ENGINES[name]  # type: ignore[index]
