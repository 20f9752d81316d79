"""A preset's rivers stage made short enough for a test: the stage tests of the landscape options build with it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from noise_core.terrain.recipe import Stage, build_terrain, read_preset

SHORT = {"steps": 12, "fine_steps": 4, "fine_size": 0, "model_size": 17}
"""12 steps on a 17² model grid, the last 4 on the map's own cells."""


def short_rivers(preset: str, *, defaults: tuple[str, ...] = (), size: int = 33) -> Callable[..., np.ndarray]:
    """``built(**changes)``: the heights (float64) of preset ``preset`` with only its first stage, the rivers,
    made short (``SHORT``) and changed by ``changes``, on a ``size``² grid; the options named in ``defaults`` are
    dropped from the preset's stage, so they take their rows' defaults."""
    recipe = read_preset(preset)
    base = {name: value for name, value in recipe.stages[0].options.items() if name not in defaults}
    base.update(SHORT)

    def built(**changes) -> np.ndarray:
        stage = Stage.of("rivers", {**base, **changes})
        return build_terrain(replace(recipe, stages=(stage,)), size).heights.astype(np.float64)

    return built
