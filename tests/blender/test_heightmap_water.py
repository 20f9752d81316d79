"""Export Heightmap's water maps (``heightmap_export``, ``water_maps``): the water level and flow map of the exported
heights beside the heightmap, bit for bit the library's (``noise_core.water``, ``io.water_maps.write_water_maps``),
all or none with it; a cancel or a failure writes nothing and changes nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest

from .conftest import scene_state
from .test_jobs_maps_exports import _cancelled_after

pytestmark = pytest.mark.blender


def _terrain(bpy, addon, subdivisions: int = 32):
    """A Noise Terrain with closed depressions (lakes) on a square grid of ``subdivisions`` + 1 samples a side."""
    spec = addon.api.NoiseSpec(kind="perlin", octaves=2, frequency=0.06, seed=3)
    return addon.api.add_terrain(
        bpy.context, spec, x_subdivisions=subdivisions, y_subdivisions=subdivisions, size=64.0, height=20.0
    )


def _file_heights(obj) -> np.ndarray:
    """The mesh's heights as the export writes them: rows from the +Y edge, columns from -X (float64)."""
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    positions = flat.reshape(-1, 3).astype(np.float64)
    order = np.lexsort((positions[:, 0], -positions[:, 1]))
    side = round(np.sqrt(positions.shape[0]))
    return positions[order, 2].reshape(side, side)


@pytest.mark.parametrize(("suffix", "engine"), [(".r16", "UNITY"), (".png", "NONE")])
def test_water_maps_are_the_librarys_bit_for_bit(bpy_empty, addon, tmp_path, suffix, engine):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    out, reference = tmp_path / "out", tmp_path / "reference"
    out.mkdir()
    reference.mkdir()
    paths, numbers, _how = addon.heightmap_export.export_heightmap(
        bpy.context, obj, str(out / f"t{suffix}"), engine=engine, water_maps=True, rain=2.0, evaporation=0.01
    )
    names = [f"t{suffix}", f"t_water{suffix}", "t_flow.png"]
    assert [path.name for path in paths] == names
    assert sorted(p.name for p in out.iterdir()) == sorted([*names, f"t{suffix}.json", f"t_water{suffix}.json"])
    sidecar = json.loads((out / f"t{suffix}.json").read_text())
    cell = sidecar["cell_size"]["x"]
    assert cell == sidecar["cell_size"]["y"] == pytest.approx(2.0)
    result = addon.noise_core.water(_file_heights(obj), cell_size=cell, rain=2.0, evaporation=0.01)
    assert result.lake_level.size > 0  # the terrain has lakes: the level is not just the heights
    addon.noise_core.io.water_maps.write_water_maps(
        reference / f"t{suffix}", result.level, result.flow, height_range=tuple(sidecar["height_range"]), unit="m",
        engine=None if engine == "NONE" else engine.lower(), cell_size=cell, settings=sidecar["settings"],
    )  # fmt: skip
    for name in (f"t_water{suffix}", f"t_water{suffix}.json", "t_flow.png"):
        assert (out / name).read_bytes() == (reference / name).read_bytes(), name
    water = json.loads((out / f"t_water{suffix}.json").read_text())
    assert water["water"]["flow_convention"] == ("unity" if engine == "UNITY" else "grid")
    assert water.get("import", {}) == numbers  # the same engine numbers as the heightmap's


def test_a_cancel_or_a_failure_writes_nothing_and_changes_nothing(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon, 24)
    old = tmp_path / "t.r16"
    old.write_bytes(b"an earlier export")
    job = addon.heightmap_export.export_job(bpy.context, obj, str(old), water_maps=True)
    heightmap_export = addon.heightmap_export
    assert job.total == heightmap_export.EXPORT_STEPS + addon.noise_core.terrain.water.WATER_STEPS
    before = scene_state(bpy)
    worker, seen = _cancelled_after(addon, job.compute, job.total, 3)  # the heights, then 2 stages of the water
    assert worker.cancelled and len(seen) == 3 and seen[0] == heightmap_export.HEIGHTS_SHARE
    assert [p.name for p in tmp_path.iterdir()] == ["t.r16"] and old.read_bytes() == b"an earlier export"
    assert scene_state(bpy) == before

    (tmp_path / "t_flow.png").mkdir()  # a folder where the flow map goes: the set fails before any file moves
    failing = addon.jobs.Worker(job.compute, job.total)
    failing.run()
    assert isinstance(failing.error, addon.errors.UserError) and str(failing.error).startswith("filepath: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.r16", "t_flow.png"]
    assert old.read_bytes() == b"an earlier export" and list((tmp_path / "t_flow.png").iterdir()) == []
    assert scene_state(bpy) == before

    (tmp_path / "t_flow.png").rmdir()
    done = addon.jobs.Worker(job.compute, job.total)
    done.run()
    assert done.error is None and done.done == job.total
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.r16", "t.r16.json", "t_flow.png", "t_water.r16",
                                                          "t_water.r16.json"]  # fmt: skip


def test_refusals_name_the_setting_and_write_nothing(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon, 16)
    export = addon.heightmap_export.export_heightmap
    UserError = addon.errors.UserError
    with pytest.raises(UserError, match=r"^water_maps: written beside one heightmap, not beside a tile set"):
        export(bpy.context, obj, str(tmp_path / "t.r16"), tile=8, water_maps=True)
    with pytest.raises(UserError, match=r"^rain: give some rain \(or Full Lakes\)"):
        export(bpy.context, obj, str(tmp_path / "t.r16"), water_maps=True, rain=0.0)
    with pytest.raises(UserError, match=r"^rain: must be between 0 and 1e\+30"):
        export(bpy.context, obj, str(tmp_path / "t.r16"), water_maps=True, rain=-1.0)
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=5, y_subdivisions=9, size=4.0)  # cells 1 x 0.5: not square
    with pytest.raises(UserError, match=r"the water maps need square cells"):
        export(bpy.context, bpy.context.object, str(tmp_path / "g.r16"), water_maps=True)
    assert list(tmp_path.iterdir()) == []


def test_the_operator_writes_them_with_full_lakes(bpy_empty, addon, tmp_path):
    bpy = bpy_empty
    obj = _terrain(bpy, addon, 16)
    target = tmp_path / "op.exr"
    op = bpy.ops.noisewright.export_heightmap
    assert op(filepath=str(target), file_format="EXR", water_maps=True, full=True) == {"FINISHED"}
    sidecar = json.loads((tmp_path / "op.exr.json").read_text())
    result = addon.noise_core.water(_file_heights(obj), cell_size=sidecar["cell_size"]["x"], rain=float("inf"))
    reference = tmp_path / "reference"
    reference.mkdir()
    addon.noise_core.io.water_maps.write_water_maps(
        reference / "op.exr", result.level, result.flow, height_range=tuple(sidecar["height_range"]),
        cell_size=sidecar["cell_size"]["x"], settings=sidecar["settings"],
    )  # fmt: skip
    for name in ("op_water.exr", "op_flow.png"):
        assert (tmp_path / name).read_bytes() == (reference / name).read_bytes(), name
