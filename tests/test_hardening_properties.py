"""Property-based tests of the hardening (issue 29), few examples each (the ``ci`` profile in ``conftest.py``):

- fractal modes x warp x derivatives: finite gradients (or a refusal naming the field), the value column equal to
  ``evaluate``;
- erosion: finite, mass conserved, the input untouched, for any allowed dtype, shape and memory layout;
- image sequences and UDIM tile sets: all or none under a failure injected at any position;
- UV bakes of any triangle soup: every tile the triangles reach, values in 0..1.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import noise_core as nc
from noise_core import loops, uv_bake
from noise_core.fractal_modes import MODE_CODES
from noise_core.io import files
from noise_core.terrain.erosion import erode_hydraulic, erode_thermal

# Sweeps every kernel variant: once per run (scripts/run.sh), the golden digests pin the bits on both Pythons.
pytestmark = pytest.mark.once_per_run

# --- fractal modes x warp x derivatives -------------------------------------------------------------------------


@st.composite
def derivable_specs(draw: st.DrawFn) -> nc.NoiseSpec:
    """Specs of the Perlin and simplex kinds with any fractal mode and warp, over wide (allowed) parameters."""
    fields = {
        "kind": draw(st.sampled_from(["perlin", "simplex"])),
        "seed": draw(st.integers(-(2**31), 2**31 - 1)),
        "frequency": draw(st.floats(0.01, 64.0)),
        "octaves": draw(st.integers(1, 16)),
        "lacunarity": draw(st.floats(0.5, 4.0)),
        "persistence": draw(st.floats(0.0, 100.0)),
        "fractal": draw(st.sampled_from(list(MODE_CODES))),
    }
    if fields["fractal"] in ("hetero_terrain", "hybrid", "ridged"):
        fields["offset"] = draw(st.floats(-2.0, 2.0))
    if fields["fractal"] in ("hybrid", "ridged"):
        fields["gain"] = draw(st.floats(0.0, 10.0))
    warp = draw(st.sampled_from(["none", "independent", "progressive"]))
    if warp != "none":
        fields |= {"warp": warp, "warp_amplitude": draw(st.floats(0.0, 1000.0)),
                   "warp_octaves": draw(st.integers(1, 16)), "warp_frequency": draw(st.floats(0.01, 16.0))}  # fmt: skip
    try:
        return nc.NoiseSpec(**fields)
    except ValueError:
        assume(False)
        raise


@settings(max_examples=25)
@given(spec=derivable_specs(), seed=st.integers(0, 2**16))
def test_derivatives_are_finite_or_refused_and_the_value_column_is_evaluate(spec: nc.NoiseSpec, seed: int) -> None:
    highest = spec.frequency * spec.lacunarity ** (spec.octaves - 1)  # points stay on the 32-bit lattice
    reach = min(4.0, 2.0**30 / highest / (1.0 + (spec.warp_amplitude if spec.warp != "none" else 0.0)))
    points = np.random.default_rng(seed).uniform(-reach, reach, (64, 2))
    values = nc.evaluate(spec, points)
    assert np.isfinite(values).all()
    try:
        both = nc.evaluate(spec, points, derivatives=True)
    except ValueError as error:
        assert str(error).startswith(("persistence: ", "warp_amplitude: ")), error
        return
    assert both.shape == (64, 3) and np.isfinite(both).all()
    np.testing.assert_array_equal(both[:, 0], values)


# --- erosion ------------------------------------------------------------------------------------------------------

DTYPES = st.sampled_from([np.float64, np.float32, np.float16, np.int8, np.int16, np.int64, np.uint8, np.uint32])


@st.composite
def height_maps(draw: st.DrawFn) -> np.ndarray:
    """Heights of any real dtype and 3..14 cells a side, C or Fortran order or a strided view."""
    dtype = np.dtype(draw(DTYPES))
    shape = (draw(st.integers(3, 14)), draw(st.integers(3, 14)))
    if dtype.kind == "f":
        limit = float(dtype.type(min(float(np.finfo(dtype).max), 1e300)))
        elements = st.floats(-limit, limit, allow_nan=False, allow_infinity=False, width=dtype.itemsize * 8)
    else:
        elements = st.integers(int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    heights = draw(hnp.arrays(dtype, shape, elements=elements))
    layout = draw(st.sampled_from(["C", "F", "strided"]))
    if layout == "F":
        return np.asfortranarray(heights)
    if layout == "strided":
        doubled = np.repeat(np.repeat(heights, 2, axis=0), 2, axis=1)
        return doubled[::2, ::2]
    return heights


@settings(max_examples=30)
@given(
    heights=height_maps(),
    cell_size=st.one_of(st.floats(1e-3, 1e3), st.sampled_from([1e-310, 1e-200, 1e-60, 1e30])),
    thermal=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_erosion_is_finite_conserves_mass_and_leaves_the_input(
    heights: np.ndarray, cell_size: float, thermal: bool, seed: int
) -> None:
    before = heights.copy()
    try:
        if thermal:
            result = erode_thermal(heights, cell_size=cell_size, iterations=4)
        else:
            result = erode_hydraulic(heights, cell_size=cell_size, droplets=50, seed=seed, lifetime=20)
    except ValueError as error:  # allowed input may be refused only by a named check
        assert str(error).startswith(("heights: ", "cell_size: ")), error
        return
    np.testing.assert_array_equal(heights, before)
    assert result.heights.shape == heights.shape and result.heights.dtype == np.float32
    for values in (result.heights, result.erosion, result.deposition):
        assert np.isfinite(values).all()
    scale = max(float(np.abs(before.astype(np.float64)).sum()), 1.0)
    assert abs(result.eroded - result.deposited - result.carried_off) <= 1e-9 * scale + 1e-6 * result.eroded


# --- image sequences and tile sets: all or none ------------------------------------------------------------------


def _state(folder: Path) -> dict[str, bytes | None]:
    return {p.name: (p.read_bytes() if p.is_file() else None) for p in sorted(folder.iterdir())}


@settings(max_examples=20)
@given(
    count=st.integers(1, 6),
    existing=st.sets(st.integers(0, 5)),
    fault=st.sampled_from(["render", "rename", "folder"]),
    position=st.integers(0, 5),
    tiles=st.booleans(),
)
def test_sets_of_files_are_all_or_none_under_a_fault_anywhere(
    tmp_path_factory: pytest.TempPathFactory, count: int, existing: set, fault: str, position: int, tiles: bool
) -> None:
    folder = tmp_path_factory.mktemp("set")
    position %= count
    names = [f"n.{1001 + i}.png" if tiles else f"n.{i + 1:04d}.png" for i in range(count)]
    for i in existing:
        if i < count:
            (folder / names[i]).write_bytes(b"old %d" % i)
    if fault == "folder":
        (folder / names[position]).unlink(missing_ok=True)
        (folder / names[position]).mkdir()
    before = _state(folder)
    real_replace = os.replace
    renames = []

    def replace(source: object, target: object) -> None:
        if Path(str(target)).name in names and Path(str(source)).name.startswith(".n."):
            renames.append(target)
            if fault == "rename" and len(renames) == position + 1:
                raise OSError("injected rename failure")
        real_replace(source, target)  # type: ignore[arg-type]

    def image(index: int) -> np.ndarray:
        if fault == "render" and index == position:
            raise RuntimeError("injected render failure")
        return np.full((3, 3), index / 8.0, dtype=np.float32)

    files.os.replace = replace  # type: ignore[assignment]
    try:
        with pytest.raises((OSError, RuntimeError)):
            if tiles:
                baked = {1001 + i: image(i) for i in range(count)}  # a render fault fails before anything is written
                uv_bake.write_tiles(folder / "n.<UDIM>.png", baked)
            else:
                loops.write_sequence(folder / "n.png", count, image)
    finally:
        files.os.replace = real_replace
    assert _state(folder) == before


# --- UV bakes of any triangle soup --------------------------------------------------------------------------------


@settings(max_examples=20)
@given(
    soup=hnp.arrays(
        np.float64,
        st.tuples(st.integers(1, 6), st.just(3), st.just(5)),
        elements=st.floats(-1.5, 11.5, allow_nan=False),
    ),
    size=st.tuples(st.integers(1, 12), st.integers(1, 12)),
    margin=st.integers(0, 3),
)
def test_uv_bakes_of_any_triangle_soup(soup: np.ndarray, size: tuple[int, int], margin: int) -> None:
    uvs, positions = soup[:, :, :2], soup[:, :, 2:]
    reached = uv_bake.tiles_of(uvs)
    heard: list[str] = []
    if not reached:
        with pytest.raises(ValueError, match=r"^uvs: no triangle lies in a UDIM tile"):
            uv_bake.bake_uv(nc.NoiseSpec(), uvs, positions, size, margin, warn=heard.append)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        baked = uv_bake.bake_uv(nc.NoiseSpec(), uvs, positions, size, margin, warn=heard.append)
    assert sorted(baked) == reached
    for values in baked.values():
        assert values.shape == (size[1], size[0]) and values.dtype == np.float32
        assert np.isfinite(values).all() and values.min() >= 0.0 and values.max() <= 1.0
    outside = uv_bake.outside_triangles(uvs)
    assert len(heard) == (1 if outside.size else 0)
