"""UV and UDIM bakes of 3D noise (``noise_core.uv_bake``): rasterising, seams, overlaps, margins, tiles, files."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

import noise_core as nc
from noise_core import uv_bake
from noise_core.io.images import read_image
from noise_core.ranges import to_unit

SPEC = nc.NoiseSpec(kind="perlin", frequency=1.0, octaves=2)
SIZE = 1024
EIGHT_BITS = 1.0 / 255.0

# the unit cube's six faces: corner positions counter-clockwise seen from outside
CUBE_FACES = [
    [(0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 0)],
    [(0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)],
    [(0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1)],
    [(0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0)],
    [(0, 0, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0)],
    [(1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)],
]


def cube(tile_of_face=lambda face: 0, pad: float = 0.02) -> tuple[np.ndarray, np.ndarray, list]:
    """``(uvs (12, 3, 2), positions (12, 3, 3), corners)``: each face an island in a 3 x 2 grid of its tile;
    ``corners[face]`` maps a corner's position to its UV."""
    uvs, positions, corners = [], [], []
    for face, quad in enumerate(CUBE_FACES):
        column, row = face % 3, face // 3
        offset = tile_of_face(face)
        u0, u1 = offset + column / 3 + pad, offset + (column + 1) / 3 - pad
        v0, v1 = row / 2 + pad, (row + 1) / 2 - pad
        quad_uvs = [(u0, v0), (u1, v0), (u1, v1), (u0, v1)]
        corners.append({tuple(p): uv for p, uv in zip(quad, quad_uvs, strict=True)})
        for triangle in ((0, 1, 2), (0, 2, 3)):
            uvs.append([quad_uvs[i] for i in triangle])
            positions.append([quad[i] for i in triangle])
    return np.array(uvs, dtype=np.float64), np.array(positions, dtype=np.float64), corners


def uv_sphere(segments: int = 48, rings: int = 24) -> tuple[np.ndarray, np.ndarray]:
    """A UV sphere (radius 1) unwrapped by longitude and latitude, its seam where u = 0 meets u = 1."""
    uvs, positions = [], []

    def point(i: int, j: int) -> tuple[tuple[float, float, float], tuple[float, float]]:
        lon, lat = 2 * np.pi * i / segments, np.pi * j / rings
        return (np.sin(lat) * np.cos(lon), np.sin(lat) * np.sin(lon), np.cos(lat)), (i / segments, 1 - j / rings)

    for i, j in itertools.product(range(segments), range(rings)):
        a, b, c, d = point(i, j), point(i + 1, j), point(i + 1, j + 1), point(i, j + 1)
        for triangle in ((a, b, c), (a, c, d)):
            uvs.append([uv for _, uv in triangle])
            positions.append([p for p, _ in triangle])
    return np.array(uvs), np.array(positions)


def texel(image: np.ndarray, uv: tuple[float, float]) -> float:
    """The value of the texel holding ``uv`` (tile 1001), row 0 at the bottom."""
    height, width = image.shape
    return float(image[min(int(uv[1] * height), height - 1), min(int(uv[0] * width), width - 1)])


def test_every_covered_texel_is_the_noise_at_its_surface_point() -> None:
    uvs, positions, _ = cube()
    points, owner = uv_bake.rasterize(uvs, positions, (SIZE, SIZE))
    baked = uv_bake.bake_uv(SPEC, uvs, positions, (SIZE, SIZE), margin=0)[1001]
    covered = owner >= 0
    assert 0.5 < covered.mean() < 0.95
    np.testing.assert_array_equal(baked[covered], to_unit(SPEC, nc.evaluate(SPEC, points[covered])))
    assert (baked[~covered] == 0.0).all()
    assert ((points[covered] >= -1e-9) & (points[covered] <= 1 + 1e-9)).all()  # on the cube


def test_cube_seam_texels_match_across_every_shared_edge() -> None:
    """Both sides of each of the cube's 12 edges (in different islands) sample the same 3D noise."""
    uvs, positions, corners = cube()
    image = uv_bake.bake_uv(SPEC, uvs, positions, (SIZE, SIZE), margin=4)[1001]
    checked = 0
    for a, b in itertools.combinations(range(6), 2):
        shared = sorted(set(corners[a]) & set(corners[b]))
        if len(shared) != 2:
            continue
        p, q = (np.array(x, dtype=np.float64) for x in shared)
        for t in np.linspace(0.05, 0.95, 19):
            at = p + t * (q - p)
            expected = float(to_unit(SPEC, nc.evaluate(SPEC, at[None]))[0])
            sides = []
            for face in (a, b):
                uv = np.array(corners[face][shared[0]]) + t * (
                    np.array(corners[face][shared[1]]) - np.array(corners[face][shared[0]])
                )
                sides.append(texel(image, tuple(uv)))
            assert abs(sides[0] - sides[1]) <= EIGHT_BITS
            assert abs(sides[0] - expected) <= EIGHT_BITS
            checked += 1
    assert checked == 12 * 19


def test_uv_sphere_seam_columns_match() -> None:
    uvs, positions = uv_sphere()
    image = uv_bake.bake_uv(SPEC, uvs, positions, (2 * SIZE, SIZE), margin=2)[1001]  # texels ~square at the equator
    rows = slice(SIZE // 8, SIZE - SIZE // 8)  # away from the poles, where a texel spans many longitudes
    assert np.abs(image[rows, 0] - image[rows, -1]).max() <= EIGHT_BITS
    assert np.abs(image[rows, 0] - image[rows, 1]).max() > 0.0  # the noise does vary along the rows


def test_overlapping_uvs_keep_the_first_triangle() -> None:
    uvs = np.array([[(0.1, 0.1), (0.9, 0.1), (0.5, 0.9)]] * 2)
    positions = np.array([[(0, 0, 0), (1, 0, 0), (0.5, 1, 0)], [(0, 0, 5), (1, 0, 5), (0.5, 1, 5)]], dtype=float)
    points, owner = uv_bake.rasterize(uvs, positions, (64, 64))
    assert set(np.unique(owner)) == {-1, 0}
    assert (points[owner == 0][:, 2] == 0.0).all()
    again, owner_again = uv_bake.rasterize(uvs, positions, (64, 64))
    np.testing.assert_array_equal(again, points)
    np.testing.assert_array_equal(owner_again, owner)


def test_margin_grows_islands_by_that_many_pixels() -> None:
    uvs = np.array([[(0.25, 0.25), (0.75, 0.25), (0.75, 0.75)], [(0.25, 0.25), (0.75, 0.75), (0.25, 0.75)]])
    positions = np.concatenate([uvs, np.zeros((2, 3, 1))], axis=2)
    for margin in (0, 3, 8):
        image = uv_bake.bake_uv(SPEC, uvs, positions, (64, 64), margin=margin)[1001]
        filled = np.argwhere(image > 0.0)
        assert filled[:, 0].min() == 16 - margin and filled[:, 0].max() == 47 + margin


def test_udim_tiles_and_files(tmp_path: Path) -> None:
    uvs, positions, _ = cube(tile_of_face=lambda face: face // 2)  # faces 0-1 in 1001, 2-3 in 1002, 4-5 in 1003
    assert uv_bake.tiles_of(uvs) == [1001, 1002, 1003]
    baked = uv_bake.bake_uv(SPEC, uvs, positions, (64, 48), margin=2)
    assert sorted(baked) == [1001, 1002, 1003] and all(v.shape == (48, 64) for v in baked.values())
    paths = uv_bake.write_tiles(tmp_path / "noise.<UDIM>.png", baked)
    assert [p.name for p in paths] == ["noise.1001.png", "noise.1002.png", "noise.1003.png"]
    for tile, path in zip(baked, paths, strict=True):
        np.testing.assert_allclose(read_image(path)[::-1], baked[tile], atol=0.5 / 65535 + 1e-7)
    assert sorted(p.name for p in tmp_path.iterdir()) == [p.name for p in paths]  # no temporary files left


def test_a_failed_tile_write_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second tile's write fails (a full disk, say): neither tile appears, an older tile file stays."""
    (tmp_path / "n.1001.png").write_bytes(b"older")
    written = []

    def failing_write(path: Path, values: np.ndarray, bits: int = 16) -> None:
        if written:
            raise OSError("No space left on device")
        written.append(path)
        Path(path).write_bytes(b"tile")

    monkeypatch.setattr(uv_bake, "write_image", failing_write)
    baked = {1001: np.zeros((4, 4), np.float32), 1002: np.ones((4, 4), np.float32)}
    with pytest.raises(OSError, match="No space left"):
        uv_bake.write_tiles(tmp_path / "n.<UDIM>.png", baked)
    assert [p.name for p in tmp_path.iterdir()] == ["n.1001.png"]
    assert (tmp_path / "n.1001.png").read_bytes() == b"older"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: uv_bake.tile_origin(1000), r"^tiles: UDIM tiles are whole numbers from 1001 to 1100"),
        (lambda: uv_bake.tile_path("noise.png", 1001), r"^out: the file pattern must contain <UDIM>"),
        (lambda: uv_bake.rasterize(np.zeros((2, 3)), np.zeros((2, 3, 3)), (8, 8)), r"^uvs: expected"),
        (lambda: uv_bake.rasterize(np.zeros((2, 3, 2)), np.zeros((1, 3, 3)), (8, 8)), r"^positions: expected"),
        (lambda: uv_bake.rasterize(np.zeros((1, 3, 2)), np.zeros((1, 3, 3)), (0, 8)), r"^size: expected"),
        (lambda: uv_bake.bake_uv(SPEC, np.full((1, 3, 2), 20.0), np.zeros((1, 3, 3))), r"^uvs: no triangle"),
        (lambda: uv_bake.dilate(np.zeros((2, 2)), np.zeros((2, 2), bool), -1), r"^margin: must be"),
        (
            lambda: uv_bake.bake_uv(SPEC, np.full((1, 3, 2), np.nan), np.zeros((1, 3, 3))),
            r"^uvs, positions: must be finite",
        ),
    ],
)
def test_bad_input_is_named(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()
