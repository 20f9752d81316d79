"""A natural preset passes as a real landscape with another seed too (issue 49): its shipped seeds were not
picked among failures. One headless build at the preset's own size (648 x 648 over 58 km, ~90 m cells, as the
real tiles'): ``terrain.recipe.build_terrain``, as Blender and ``python -m noise_core terrain`` build it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from noise_core.terrain.geomorphometry import MAX_HARMONIC8, passes, realism, terrain_statistics
from noise_core.terrain.recipe import build_terrain, read_preset


@pytest.mark.once_per_run
@pytest.mark.parametrize(("name", "shift"), [("river_valleys", 5)])
def test_a_natural_preset_passes_with_another_seed(name: str, shift: int) -> None:
    preset = read_preset(name)
    stages = tuple(
        replace(stage, options={**stage.options, "routing_seed": stage.options["routing_seed"] + shift})
        for stage in preset.stages
    )
    moved = replace(preset, noise=replace(preset.noise, seed=preset.noise.seed + shift), stages=stages)
    built = build_terrain(moved, int(moved.export["samples"]))
    assert built.heights.shape == (648, 648) and built.cell_size == pytest.approx(90.0, rel=1e-3)
    stats = terrain_statistics(built.heights, cell_size=built.cell_size)
    outside = [(check.name, round(check.value, 4)) for check in realism(stats) if not check.passed]
    assert passes(stats), outside
    assert stats.harmonic8 <= MAX_HARMONIC8
