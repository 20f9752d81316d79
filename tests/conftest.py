"""Shared fixtures for the headless noise_core tests."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

# Property tests run the same examples on every run (CI must be deterministic); no deadline, as the
# first example of a kind compiles its Numba kernel for seconds.
settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("ci")

ONCE_PER_RUN_DONE = os.environ.get("NOISEWRIGHT_ONCE_PER_RUN_DONE", "")
"""Set by ``scripts/run.sh test`` for its Python 3.13 run after the 3.11 run passed: where the tests marked
``once_per_run`` ran."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the ``once_per_run`` tests, saying where they ran, when that run passed."""
    if not ONCE_PER_RUN_DONE:
        return
    skip = pytest.mark.skip(reason=f"once per run: the same computation passed in {ONCE_PER_RUN_DONE}")
    for item in items:
        if item.get_closest_marker("once_per_run") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def rng() -> np.random.Generator:
    return np.random.default_rng(20261122)


@pytest.fixture(scope="session")
def points3(rng: np.random.Generator) -> np.ndarray:
    """4096 points spread over [-3, 3)^3: negative and positive lattice cells."""
    return rng.uniform(-3.0, 3.0, size=(4096, 3))
