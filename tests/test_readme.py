"""The README's Python example runs as written and does what its comments say."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert blocks, "the README has a Python example"
    namespace: dict = {}
    exec(compile(blocks[0], str(README), "exec"), namespace)
    assert namespace["values"].shape == (1000,) and namespace["values"].dtype == np.float32
    assert namespace["image"].shape == (512, 512)
    low, high = namespace["low"], namespace["high"]
    assert low <= namespace["image"].min() and namespace["image"].max() <= high
