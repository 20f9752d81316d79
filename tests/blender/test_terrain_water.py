"""Terrain Water in Blender: ``terrain_water.terrain_water`` adds the water surface with its material, the river
curves and the maps; the operator; a cancelled or failing job, or bad input, leaves the scene as it was."""

from __future__ import annotations

import math

import numpy as np
import pytest

from .test_erode import _attribute, _positions
from .test_jobs_maps_exports import _cancelled_after
from .test_jobs_maps_exports import _state as _scene_state

pytestmark = pytest.mark.blender

OPTIONS = {"rain": 0.05, "river_area": 0.01, "width_coefficient": 0.3}


def _state(bpy) -> dict:
    """The scene's state (``test_jobs_maps_exports._state``) with the materials and curves."""
    return {**_scene_state(bpy), "materials": sorted(m.name for m in bpy.data.materials),
            "curves": sorted(c.name for c in bpy.data.curves)}  # fmt: skip


def _terrain(bpy, addon, side: int = 48):
    spec = addon.api.NoiseSpec(kind="perlin", octaves=5, frequency=2.5, seed=7)
    return addon.api.add_terrain(bpy.context, spec, x_subdivisions=side, y_subdivisions=side, size=2.0, height=0.6)


def _grid_heights(addon, obj):
    positions = _positions(obj).astype(np.float64)
    layout = addon.erosion_io.grid_layout(obj.name, positions)
    return positions, layout, positions[layout.order, 2].reshape(layout.rows, layout.columns)


def test_water_objects_material_curves_and_maps(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    positions, layout, heights = _grid_heights(addon, obj)
    made = addon.terrain_water.terrain_water(obj, images=True, **OPTIONS)
    expected = addon.noise_core.water(heights, cell_size=layout.cell_size, **OPTIONS)
    result = made["result"]
    assert result.lake_level.size == expected.lake_level.size > 0 and len(result.rivers) == len(expected.rivers) > 0
    for name, values in addon.terrain_water._maps(expected).items():  # the maps per vertex, as computed
        per_vertex = np.empty(positions.shape[0], np.float32)
        per_vertex[layout.order] = values.ravel()
        np.testing.assert_array_equal(_attribute(obj, name), per_vertex)
        image = bpy.data.images[f"{obj.name} {name}"]
        assert tuple(image.size) == (layout.columns, layout.rows) and image.is_float
    flow = obj.data.attributes["flow"]
    assert (flow.domain, flow.data_type) == ("POINT", "FLOAT2")
    vectors = np.empty(2 * positions.shape[0], np.float32)
    flow.data.foreach_get("vector", vectors)
    np.testing.assert_allclose(vectors.reshape(-1, 2)[layout.order], 2.0 * expected.flow.reshape(-1, 2) - 1.0)

    surface = made["surface"]
    assert surface.name == f"{obj.name} Water" and surface.parent is obj and surface.type == "MESH"
    z = _positions(surface)[:, 2]
    lake_levels = set(np.round(expected.lake_level.astype(np.float32), 5))
    assert lake_levels <= set(np.round(z, 5))  # the surface stands at the lake levels
    depth = surface.data.attributes["water_depth"]
    assert (depth.domain, depth.data_type) == ("POINT", "FLOAT")
    material = surface.active_material
    assert material.name == f"{obj.name} Water"
    bsdf = next(n for n in material.node_tree.nodes if n.bl_idname == "ShaderNodeBsdfPrincipled")
    transmission = "Transmission Weight" if "Transmission Weight" in bsdf.inputs else "Transmission"
    assert bsdf.inputs[transmission].default_value == 1.0
    assert bsdf.inputs["IOR"].default_value == pytest.approx(1.33)
    assert bsdf.inputs["Base Color"].is_linked
    names = {n.attribute_name for n in material.node_tree.nodes if n.bl_idname == "ShaderNodeAttribute"}
    assert names == {"water_depth"}

    rivers = made["rivers"]
    assert rivers.name == f"{obj.name} Rivers" and rivers.type == "CURVE" and rivers.parent is obj
    splines = rivers.data.splines
    assert len(splines) == len(expected.rivers)
    for spline, reach in zip(splines, expected.rivers, strict=True):
        assert spline.type == "POLY" and len(spline.points) == reach.cells.size
        radius = np.empty(len(spline.points), np.float32)
        spline.points.foreach_get("radius", radius)
        np.testing.assert_allclose(radius, reach.width / 2.0, rtol=1e-6)
        co = np.empty(4 * len(spline.points), np.float32)
        spline.points.foreach_get("co", co)
        np.testing.assert_allclose(co.reshape(-1, 4)[:, :2], positions[layout.order][reach.cells, :2], atol=1e-6)
        np.testing.assert_allclose(co.reshape(-1, 4)[:, 2], reach.points[:, 2], rtol=1e-6, atol=1e-6)

    objects = len(bpy.data.objects)
    again = addon.terrain_water.terrain_water(obj, **OPTIONS)  # a rerun replaces the earlier water objects
    assert len(bpy.data.objects) == objects and again["surface"].name == f"{obj.name} Water"


def test_full_lakes_stand_at_the_filled_surface(bpy_empty, addon):
    obj = _terrain(bpy_empty, addon)
    heights = _grid_heights(addon, obj)[2]
    made = addon.terrain_water.terrain_water(obj, full=True, curves=False)
    filled = addon.noise_core.fill_depressions(heights)
    closed = filled > heights
    assert made["rivers"] is None and math.isinf(made["result"].rain_volume)
    np.testing.assert_array_equal(made["result"].level[closed], filled[closed])


def test_the_operator(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon, 32)
    assert bpy.ops.noisewright.terrain_water(**OPTIONS) == {"FINISHED"}
    assert f"{obj.name} Water" in bpy.data.objects and "water_depth" in obj.data.attributes


def test_cancel_and_failure_change_nothing(bpy_empty, addon):
    bpy = bpy_empty
    obj = _terrain(bpy, addon)
    job = addon.terrain_water.terrain_water_job(obj, images=True, **OPTIONS)
    compute, apply, total = job.compute, job.apply, job.total
    assert total == addon.noise_core.terrain.water.WATER_STEPS
    before = _state(bpy)
    worker, seen = _cancelled_after(addon, compute, total, 2)
    assert worker.cancelled and len(seen) == 2 and _state(bpy) == before  # stopped at the next stage

    failing = addon.jobs.Worker(lambda advance: compute(lambda n: 1 / 0), total)
    failing.run()
    assert isinstance(failing.error, ZeroDivisionError) and _state(bpy) == before

    finished = addon.jobs.Worker(compute, total)
    finished.run()
    assert finished.error is None and finished.done == total

    def broken(*_arguments, **_keywords):
        raise RuntimeError("disk on fire")

    original = addon.terrain_water._write_images
    addon.terrain_water._write_images = broken  # fails after the objects and attributes were made: all undone
    try:
        with pytest.raises(RuntimeError, match="disk on fire"):
            apply(finished.result)
    finally:
        addon.terrain_water._write_images = original
    assert _state(bpy) == before

    bpy.data.objects.remove(obj)  # the object went while the job ran: apply refuses, changes nothing
    after = _state(bpy)
    with pytest.raises(addon.errors.UserError, match="removed"):
        apply(finished.result)
    assert _state(bpy) == after


def test_bad_input_changes_nothing(bpy_empty, addon):
    bpy = bpy_empty
    bpy.ops.mesh.primitive_uv_sphere_add()
    sphere = bpy.context.active_object
    before = _state(bpy)
    with pytest.raises(addon.errors.UserError, match="not a regular grid mesh"):
        addon.terrain_water.terrain_water(sphere)
    obj = _terrain(bpy, addon, 16)
    before = _state(bpy)
    with pytest.raises(addon.errors.UserError, match="evaporation: must be between"):
        addon.terrain_water.terrain_water(obj, evaporation=-1.0)
    with pytest.raises(addon.errors.UserError, match="rain: give some rain"):
        addon.terrain_water.terrain_water(obj, rain=0.0)
    assert _state(bpy) == before
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=10, y_subdivisions=6, size=2.0)
    oblong = bpy.context.active_object
    before = _state(bpy)
    with pytest.raises(addon.errors.UserError, match="not square; water needs square cells"):
        addon.terrain_water.terrain_water(oblong)
    assert _state(bpy) == before


def test_regenerate_computes_the_water_again(bpy_empty, addon):
    """Terrain Water is part of a Noise Terrain's recipe: Regenerate recomputes it with the recorded settings."""
    bpy = bpy_empty
    obj = _terrain(bpy, addon, 32)
    addon.terrain_water.terrain_water(obj, **OPTIONS)
    first = _attribute(obj, "water_level").copy()
    obj.noisewright_terrain.noise.seed = 12
    addon.api.regenerate_terrain(bpy.context, obj)
    positions, layout, heights = _grid_heights(addon, obj)
    expected = addon.noise_core.water(heights, cell_size=layout.cell_size, **OPTIONS)
    per_vertex = np.empty(positions.shape[0], np.float32)
    per_vertex[layout.order] = expected.level.astype(np.float32).ravel()
    np.testing.assert_array_equal(_attribute(obj, "water_level"), per_vertex)
    assert not np.array_equal(first, per_vertex)
    assert {o.name for o in bpy.data.objects if o.parent is obj} == {f"{obj.name} Water", f"{obj.name} Rivers"}
