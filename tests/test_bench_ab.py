"""scripts/bench_ab.py: case parsing, errors, and one small alternating run (timings are never asserted)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import bench_ab
import pytest

ROOT = Path(__file__).resolve().parent.parent
KINDS = {"value", "perlin", "simplex"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [("value", ("value", "2", 1)), ("perlin:3", ("perlin", "3", 1)), ("simplex:grid:4", ("simplex", "grid", 4))],
)
def test_cases_parse(text: str, expected: tuple) -> None:
    assert bench_ab.parse_case(text, KINDS) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("worley:2", "unknown kind 'worley'"),
        ("value:5", "DIM must be 1, 2, 3, 4 or grid"),
        ("value:2:0", "OCTAVES must be a positive whole number"),
        ("value:2:x", "OCTAVES must be a positive whole number"),
        ("value:2:1:1", "expected KIND[:DIM[:OCTAVES]]"),
    ],
)
def test_bad_cases_are_named(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        bench_ab.parse_case(text, KINDS)
    assert repr(text) in str(caught.value)


def test_default_cases_parse() -> None:
    """Every FastNoise2 case but the 3D grids and the prime hash's (bench_peers.peer_cases: random 2D/3D points
    per kind, fBm, 2D grids) parses to a case of its own."""
    kinds = {"value", "perlin", "simplex", "voronoi", "cellular"}
    parsed = {bench_ab.parse_case(text, kinds) for text in bench_ab.DEFAULT_CASES}
    cases = bench_ab.peer_cases()
    two_d = [case for case in cases if (case.layout != "grid" or case.dim == 2) and case.hash == "smallxxhash"]
    assert any(case.hash == "prime" for case in cases)  # left out: bench_ab compares checkouts on the default
    assert len(parsed) == len(bench_ab.DEFAULT_CASES) == len(two_d) == 17


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["{missing}"], "no noise_core package"),
        (["{root}", "--pairs", "0"], "--pairs: must be a positive integer, got 0"),
        (["{root}", "--points", "-3"], "--points: must be a positive integer, got -3"),
        (["{root}", "value:9"], "DIM must be 1, 2, 3, 4 or grid"),
    ],
)
def test_bad_arguments_exit_2_naming_them(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    filled = [arg.format(missing=tmp_path / "nowhere", root=ROOT) for arg in argv]
    with pytest.raises(SystemExit) as stopped:
        bench_ab.main([*filled, "--work", str(tmp_path / "work")])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.once_per_run
def test_a_checkout_against_itself(tmp_path: Path) -> None:
    """Both copies import and compute; each case prints two rates and a ratio (in a new process, which sets
    Numba's thread count)."""
    command = [sys.executable, str(ROOT / "scripts" / "bench_ab.py"), str(ROOT), "value:2", "value:grid"]
    done = subprocess.run(
        [*command, "--pairs", "2", "--points", "512", "--work", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith(("value:2 ", "value:grid "))]
    assert [row[0] for row in rows] == ["value:2", "value:grid"]
    for row in rows:
        assert len(row) == 4 and all(float(number) > 0 for number in row[1:])
    assert (tmp_path / "noise_core_a" / "__init__.py").is_file()
    assert (tmp_path / "noise_core_b" / "__init__.py").is_file()
