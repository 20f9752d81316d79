"""A Noise Terrain at an engine size (issue 45, item 4): built in full as a job with progress and Cancel, its mesh
at a preview resolution (``terrain_grid.MESH_VERTICES``), Export Heightmap at resolution 0 the full size. Here
at a lowered limit (17² vertices for a 33² terrain); the 4033² case is measured by hand (docs/benchmarks.md)."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import scene_state

pytestmark = pytest.mark.blender

FULL, KEPT = 32, 16  # subdivisions: the terrain's, and its mesh's under a limit of 17² vertices


def _mesh_heights(obj) -> np.ndarray:
    flat = np.empty(len(obj.data.vertices) * 3, dtype=np.float32)
    obj.data.vertices.foreach_get("co", flat)
    return flat.reshape(-1, 3)[:, 2]


@pytest.fixture
def engine_terrain(bpy_empty, addon, monkeypatch):
    """A 33² Noise Terrain with thermal erosion under a mesh limit of 17² vertices, and its full build's heights
    (flat, row-major from -y, float32)."""
    monkeypatch.setattr(addon.terrain_grid, "MESH_VERTICES", (KEPT + 1) ** 2)
    spec = addon.api.NoiseSpec(kind="perlin", octaves=4, frequency=2.0, seed=3)
    obj = addon.api.add_terrain(bpy_empty.context, spec, x_subdivisions=FULL, y_subdivisions=FULL, size=2.0,
                                height=0.6, thermal={"talus_angle": 30.0})  # fmt: skip
    full, masks = addon.terrain_recipe.terrain_heights(bpy_empty.context, addon.terrain_settings.recall(obj))
    assert full.shape == ((FULL + 1) ** 2,) and masks[0] is not None and masks[0].any()
    return obj, full.astype(np.float32)


def test_the_mesh_holds_every_second_vertex_of_the_full_build(addon, engine_terrain):
    obj, full = engine_terrain
    assert addon.terrain_grid.mesh_subdivisions(FULL, FULL) == (KEPT, KEPT)
    assert (obj.noisewright_terrain.x_subdivisions, obj.noisewright_terrain.y_subdivisions) == (FULL, FULL)
    assert len(obj.data.vertices) == (KEPT + 1) ** 2
    kept = full.reshape(FULL + 1, FULL + 1)[::2, ::2].ravel()
    assert np.array_equal(_mesh_heights(obj), kept)  # 2 divides 32: the full build's own vertices, bit for bit
    erosion = np.empty(len(obj.data.vertices), dtype=np.float32)
    obj.data.attributes["erosion"].data.foreach_get("value", erosion)
    assert erosion.any()  # the masks reduced with it


def test_regenerate_is_a_job_with_progress_that_a_cancel_leaves_alone(bpy_empty, addon, engine_terrain):
    obj, full = engine_terrain
    before = scene_state(bpy_empty)
    job = addon.terrain.regenerate_job(bpy_empty.context, obj)
    cancelled = addon.jobs.Worker(job.compute, job.total)
    cancelled.cancel(0.0)  # asked before it starts: it stops at its first check
    cancelled.run()
    assert cancelled.cancelled and cancelled.result is None and scene_state(bpy_empty) == before

    seen: list[int] = []
    worker = addon.jobs.Worker(job.compute, job.total)
    original = worker.advance

    def advance(count: int) -> None:
        original(count)
        seen.append(worker.done)

    worker.advance = advance  # type: ignore[method-assign]
    worker.run()
    assert worker.error is None and worker.done == job.total and seen == sorted(seen)
    job.apply(worker.result)
    assert len(obj.data.vertices) == (KEPT + 1) ** 2  # the mesh stays at the preview resolution
    assert np.array_equal(_mesh_heights(obj), full.reshape(FULL + 1, FULL + 1)[::2, ::2].ravel())


def test_the_regenerate_operator_runs_the_job(bpy_empty, addon, engine_terrain):
    obj, full = engine_terrain
    obj.data.vertices[0].co.z += 1.0
    assert bpy_empty.ops.noisewright.regenerate_terrain() == {"FINISHED"}  # background: in the foreground
    assert issubclass(addon.terrain.NOISEWRIGHT_OT_regenerate_terrain, addon.jobs.JobOperator)
    assert _mesh_heights(obj)[0] == full[0]


def test_export_at_resolution_0_builds_the_full_size(bpy_empty, addon, engine_terrain, tmp_path):
    obj, full = engine_terrain
    _paths, _numbers, how = addon.api.export_heightmap(bpy_empty.context, obj, str(tmp_path / "t.r32"))
    written = addon.noise_core.read_heightmap(tmp_path / "t.r32")
    assert written.heights.shape == (FULL + 1, FULL + 1) and f"{FULL + 1} x {FULL + 1}" in how
    expected = full.astype(np.float64).reshape(FULL + 1, FULL + 1)[::-1]  # the file's first row is +Y
    assert np.allclose(written.heights, expected, rtol=0, atol=1e-6 * np.ptp(expected))
