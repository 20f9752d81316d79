"""Child process of ``test_extension_install``: a stock Blender installs the extension zip and uses it.

Run as ``python -S install_child.py ZIP WRONG_ZIP WORK`` with ``PYTHONPATH`` holding only ``bpy`` and numpy
(what a Blender build bundles that matters here: no numba, Pillow, pypng, OpenEXR or tifffile) and
``BLENDER_USER_RESOURCES`` pointing at an empty folder. First ``WRONG_ZIP`` (the other Blender line's zip) must
be refused, then ``ZIP`` is installed, the bundled image writers write and read back tiny PNG, OpenEXR and TIFF
files, and every operator is used once. Network connections are refused while installing. Prints a JSON report as
its last line.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import sys
from pathlib import Path

import bpy
import numpy as np

MODULE = "bl_ext.user_default.noisewright"
WRITERS = ("PIL", "png", "OpenEXR", "tifffile")


def _refuse_network(*_args, **_kwargs):
    raise OSError("network access attempted while installing the extension offline")


def _z(obj) -> np.ndarray:
    positions = np.empty(len(obj.data.vertices) * 3)
    obj.data.vertices.foreach_get("co", positions)
    return positions[2::3].copy()


def _operators_registered() -> bool:
    return all(hasattr(bpy.types, f"NOISEWRIGHT_OT_{name}") for name in ("displace", "add_terrain", "bake_texture"))


def _user_default_directory() -> Path:
    repos = bpy.context.preferences.extensions.repos
    return Path(next(repo.directory for repo in repos if repo.module == "user_default"))


def _try_install(zip_path: str) -> dict:
    """Install ``zip_path``; the operator's result, or the error it reported, and whether it got installed."""
    outcome: dict = {"result": None, "error": ""}
    try:
        outcome["result"] = sorted(
            bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True)
        )
    except RuntimeError as error:  # bpy.ops raises the operator's error report
        outcome["error"] = str(error)
    outcome["installed"] = (_user_default_directory() / "noisewright").exists()
    return outcome


def _write_images(report: dict, work: Path) -> None:
    """Import Pillow, pypng, OpenEXR and tifffile (from the installed wheels), note where from, and round-trip a
    2x2 image with each."""
    import OpenEXR
    import PIL
    import png
    import tifffile
    from PIL import Image

    for module in (PIL, png, OpenEXR, tifffile):
        report[f"{module.__name__}_file"], report[f"{module.__name__}_version"] = module.__file__, module.__version__
    with open(work / "writer.png", "wb") as file:
        png.Writer(2, 2, greyscale=True, bitdepth=16).write(file, [[0, 65535], [4660, 65535]])
    report["png_written"] = [list(row) for row in png.Reader(filename=str(work / "writer.png")).read()[2]]
    Image.fromarray(np.array([[0, 255], [18, 255]], dtype=np.uint8)).save(work / "pil.png", compress_level=6)
    with Image.open(work / "pil.png") as image:
        report["pil_written"] = np.asarray(image).tolist()
    pixels = np.array([[0.0, 0.5], [-1.25, 1024.0]], dtype=np.float32)
    header = {"compression": OpenEXR.ZIP_COMPRESSION, "type": OpenEXR.scanlineimage}
    OpenEXR.File(header, {"Y": pixels}).write(str(work / "writer.exr"))
    with OpenEXR.File(str(work / "writer.exr")) as exr:
        report["exr_written"] = exr.channels()["Y"].pixels.tolist()
    tifffile.imwrite(work / "writer.tif", pixels)
    report["tiff_written"] = tifffile.imread(work / "writer.tif").tolist()


def main(zip_path: str, wrong_zip: str, work: str) -> dict:
    report: dict = {
        "numba_before": importlib.util.find_spec("numba") is not None,
        "writers_before": {name: importlib.util.find_spec(name) is not None for name in WRITERS},
        "blender": bpy.app.version_string,
        "numpy": np.__version__,
    }
    connect = socket.socket.connect
    socket.socket.connect = _refuse_network  # type: ignore[method-assign]
    try:
        report["wrong_zip"] = _try_install(wrong_zip)
        report["install"] = sorted(
            bpy.ops.extensions.package_install_files(filepath=zip_path, repo="user_default", enable_on_install=True)
        )
    finally:
        socket.socket.connect = connect  # type: ignore[method-assign]
    report["enabled"] = MODULE in bpy.context.preferences.addons
    report["registered"] = _operators_registered()
    import numba

    report["numba_file"], report["numba_version"] = numba.__file__, numba.__version__
    _write_images(report, Path(work))

    bpy.ops.wm.read_homefile(use_empty=True)
    report["add_terrain"] = sorted(bpy.ops.noisewright.add_terrain(x_subdivisions=16, y_subdivisions=16, height=0.5))
    terrain = bpy.context.view_layer.objects.active
    before = _z(terrain)
    report["displace"] = sorted(bpy.ops.noisewright.displace(direction="Z", strength=0.2))
    report["terrain_relief"] = float(np.ptp(before))
    report["displacement"] = float(np.abs(_z(terrain) - before).max())
    baked = Path(work) / "baked.png"
    report["bake_texture"] = sorted(
        bpy.ops.noisewright.bake_texture(width=32, height=16, save_format="PNG", filepath=str(baked))
    )
    report["baked_bytes"] = baked.stat().st_size if baked.is_file() else 0

    repos = bpy.context.preferences.extensions.repos
    user_default = next(index for index, repo in enumerate(repos) if repo.module == "user_default")
    installed = Path(repos[user_default].directory) / "noisewright"
    report["installed_before_uninstall"] = installed.is_dir()
    report["uninstall"] = sorted(bpy.ops.extensions.package_uninstall(repo_index=user_default, pkg_id="noisewright"))
    report["enabled_after"] = MODULE in bpy.context.preferences.addons
    report["registered_after"] = _operators_registered()
    report["installed_after"] = installed.exists()
    report["numba_wheel_after"] = Path(report["numba_file"]).exists()
    report["writers_after"] = any(Path(report[f"{name}_file"]).exists() for name in WRITERS)
    return report


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2], sys.argv[3])), flush=True)
    # The bpy 4.2 module crashes (SIGSEGV) at interpreter exit once any class was registered in the process,
    # Noisewright or not (a 3-line Operator subclass + register_class reproduces it), so leave without
    # Python's finalisation; the report above is complete.
    os._exit(0)
