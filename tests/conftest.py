"""Shared fixtures for the headless noise_core tests."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="session")
def rng() -> np.random.Generator:
    return np.random.default_rng(20261122)


@pytest.fixture(scope="session")
def points3(rng: np.random.Generator) -> np.ndarray:
    """4096 points spread over [-3, 3)^3: negative and positive lattice cells."""
    return rng.uniform(-3.0, 3.0, size=(4096, 3))
