"""Bake: noise into an image (``bake``) and its operator ``noisewright.bake_texture`` (Image > Bake Noise Texture).

By default the operator reads 2D noise on the settings' plane whatever the settings' dimensions (even one the
kind lacks, like 1D cellular), so with no rotation or scale and no offset on the plane's axes (the default
offset moves Z only) the image is exactly ``evaluate_grid(spec, (H, W))`` (what ``python -m noise_core
bake`` writes) and tiles when tiling is on; ``noise_dimensions="SETTINGS"`` reads the settings' dimensions
instead (3D noise sliced through the plane, at the offset on the third axis, 1D noise along its axis).
The image-size and file options (``WIDTH``, ``HEIGHT``, ``USE_FLOAT``, ``SAVE_FORMAT``, ``FILEPATH``) and
the helpers that check and fill images are ``image_io``'s, shared with ``bake_uv``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import bpy
import numpy as np

from . import image_io
from .errors import UserError
from .image_io import FILEPATH, HEIGHT, SAVE_FORMAT, USE_FLOAT, WIDTH, check_image, check_pixels, fill_rgba, save_path
from .jobs import Job, JobOperator, Steps, Stream, run_foreground
from .mapping import Domain, kind_info, to_domain, to_spec
from .noise_core import NoiseSpec, loops, normal_maps
from .noise_core.derivatives import DERIVABLE_KINDS
from .noise_core.io.files import Staged
from .noise_core.normal_maps import METHOD_TEXT
from .noise_core.schema import Option
from .options import LOOP_RADIUS, NoiseOperator, blender_option, check, check_noise, checked, properties_of
from .pixels import image_colours, noise01_image, normal_colours, rgba_of
from .properties import NoiseSettings, operator_settings
from .ui import draw_noise_settings

NEW_IMAGE = "Noise"
"""The name of the image a bake makes when not told."""
FRAME_WAIT = 0.02
"""Seconds a step of a loop bake waits for its frame before handing the window back (it asks again)."""

NORMAL_OPTIONS = tuple(blender_option(option) for option in normal_maps.OPTIONS)
"""``map_type``, ``normal_strength``, ``normal_convention``, ``normal_method``: ``noise_core.normal_maps``' rows."""
NORMAL_METHOD = NORMAL_OPTIONS[-1]
OPTIONS = (
    WIDTH,
    HEIGHT,
    USE_FLOAT,
    Option("color_mode", str, "GRAYSCALE", "How noise values become colours", title="Colors",
           choices=("GRAYSCALE", "RAMP"),
           choice_text=(("Grayscale", "Noise 0..1 as grey, non-colour data (height maps)"),
                        ("Two-Color Ramp", "Blend from the low to the high colour"))),
    Option("color_low", float, (0.02, 0.04, 0.1), "Colour of noise value 0", title="Low", size=3, minimum=0.0,
           soft_maximum=1.0, subtype="COLOR"),
    Option("color_high", float, (0.9, 0.8, 0.6), "Colour of noise value 1", title="High", size=3, minimum=0.0,
           soft_maximum=1.0, subtype="COLOR"),
    SAVE_FORMAT,
    FILEPATH,
    Option("pack", bool, False, "Pack the image into the .blend file"),
    *NORMAL_OPTIONS,
    Option("loop_frames", int, 0, "Bake a seamless loop of this many frames, saved as name.0001.png, ... and "
           "loaded as an image sequence (0: one still image). 2D noise loops through 4D noise (value, Perlin, "
           "simplex kinds)", minimum=0, maximum=loops.MAX_FRAMES, soft_maximum=240),
    LOOP_RADIUS,
)  # fmt: skip
"""The options of ``bake``, which the operator has too."""
OPERATOR_OPTIONS = (
    Option("target", str, "NEW", "Which image receives the noise", choices=("NEW", "EXISTING"),
           choice_text=(("New Image", "Create a new image named Image"),
                        ("Existing Image", "Bake into the image named Image (resized; it keeps its bit depth)"))),
    Option("image_name", str, NEW_IMAGE, "Name of the new image, or the existing image to bake into", title="Image"),
    Option("noise_dimensions", str, "PLANE_2D", "Which noise the image holds", title="Noise",
           choices=("PLANE_2D", "SETTINGS"),
           choice_text=(("2D on Plane", "2D noise on the settings' plane: seamless when tiling is on (as noise_core "
                                        "bake)"),
                        ("As Settings", "The settings' dimensions: 3D noise sliced through the plane, 1D along its "
                                        "axis"))),
)  # fmt: skip
"""The operator's own options: which image (``bake``'s ``image``) and which noise (its ``domain``)."""


@checked(*OPTIONS)
def bake(
    context: bpy.types.Context,
    spec: NoiseSpec,
    domain: Domain | None = None,
    *,
    image: bpy.types.Image | str = NEW_IMAGE,
    warn: Callable[[str], None] | None = None,
    **options: Any,
) -> bpy.types.Image:
    """Bake ``spec`` on ``domain``'s plane (the 0..1 square) into an image and return it.

    Pixel ``(c, r)`` (row 0 at the bottom, as Blender stores images) holds the noise at
    ``((c + .5) / W, (r + .5) / H)`` on the plane, mapped to 0..1; with ``Domain(dimensions=2)`` and no
    rotation, scale or offset on the plane that is exactly ``evaluate_grid(spec, (H, W))``. ``image`` is an
    existing image (resized; it keeps its bit depth) or the name of a new one (32-bit float when
    ``use_float``). ``color_mode`` ``GRAYSCALE`` gives non-colour grey, ``RAMP`` blends the scene-linear
    ``color_low``..``color_high``. ``save_format`` ``PNG`` (16-bit) or ``OPEN_EXR`` (32-bit float) also writes
    ``filepath`` (its extension added if missing), whole or not at all; ``pack`` packs the image into the
    .blend. ``UserError`` naming the argument for bad input; a bake that fails (a save included) leaves an
    existing image as it was and removes a new one. ``warn`` hears that tiling cannot hold (rotation or a
    fractional plane scale).

    ``map_type="NORMAL"`` bakes the tangent-space normal map of that height instead (``noise_core.normal_maps``;
    ``color_mode`` does not apply): ``normal_strength`` is the surface's height from 0 to 1 in image widths,
    ``normal_convention`` ``OPENGL`` (green up, Blender's) or ``DIRECTX``, ``normal_method`` ``AUTO``,
    ``ANALYTIC`` (derivatives) or ``DIFFERENCES`` (central differences one pixel apart); ``PNG_8`` saves 8-bit.

    ``loop_frames`` > 0 bakes a seamless loop of that many frames instead (``noise_core.loops``: the noise moves
    around a circle of ``loop_radius`` in two extra dimensions, so 2D noise loops through 4D noise): the frames
    are saved as ``name.0001.png``, ``name.0002.png``, ... (all or none; ``save_format`` and ``filepath`` are
    needed) and loaded as a new image sequence named ``image``, which an Image Texture node plays with Frames
    set to ``loop_frames`` and Cyclic on. Defaults and limits of the keyword arguments: ``OPTIONS``.

    This runs ``bake_job``'s parts here (progress printed in background mode); the operator runs them as a job.
    """
    job = bake_job(spec, domain, image=image, warn=warn, **options)
    return run_foreground(context, NOISEWRIGHT_OT_bake_texture.bl_label, job)


@checked(*OPTIONS)
def bake_job(
    spec: NoiseSpec,
    domain: Domain | None = None,
    *,
    image: bpy.types.Image | str = NEW_IMAGE,
    warn: Callable[[str], None] | None = None,
    width: int,
    height: int,
    use_float: bool,
    color_mode: str,
    color_low: Sequence[float],
    color_high: Sequence[float],
    save_format: str,
    filepath: str,
    pack: bool,
    map_type: str,
    normal_strength: float,
    normal_convention: str,
    normal_method: str,
    loop_frames: int,
    loop_radius: float,
) -> Job:
    """``bake`` as a ``jobs.Job``: this checks the arguments (``UserError``, nothing changed) and reads what it
    needs from Blender; ``compute`` makes the pixels in blocks of rows and the image's RGBA, then encodes the file into
    a temporary beside its target (``image_io.write_files``) (a loop: nothing, a ``jobs.Stream`` makes and
    encodes its frames while the steps count them); ``apply``'s steps fill the image, then rename the file into
    place, or, for a loop, the frames, all or none: closed early or failing, they leave the image as it was (a
    new one removed), no file of the set and no sequence; they return the image."""
    domain = Domain(dimensions=2) if domain is None else domain
    check_noise(spec, domain)
    loop = _check_loop(spec, domain, loop_frames, loop_radius)
    if loop is not None:
        if not isinstance(image, str):
            raise UserError("image: a loop is baked into a new image sequence; give its name, not an existing image")
        if pack:
            raise UserError("pack: Blender cannot pack an image sequence; leave Pack off for a loop")
        if save_format == "NONE":
            raise UserError(
                "save_format: a loop is saved as files name.0001.png, name.0002.png, ...; choose a Save format "
                "and a File Path"
            )
    existing = check_image(image)
    check_pixels(width, height)
    ramp: tuple | None = None if color_mode == "GRAYSCALE" else (color_low, color_high)
    normal = None
    if map_type == "NORMAL":
        normal = (normal_strength, normal_convention.lower(), normal_method_for(spec, normal_method).lower())
        ramp = None
    path = save_path(save_format, filepath)
    if spec.tiling and not domain.keeps_tiling() and warn is not None:
        warn("tiling: rotation or a fractional plane scale breaks the seamless tiling")
    if loop is not None:
        return _loop_job(spec, domain, str(image), (width, height), use_float, ramp, save_format, path, loop, normal)
    existing_name = None if existing is None else existing.name
    float_image = use_float if existing is None else existing.is_float
    encode_srgb = not float_image
    pixels = width * height
    encoding = pixels // 2 if path else 0  # the file's share of the progress

    def compute(advance: Callable[[int], None]) -> tuple[np.ndarray, Staged | None]:
        if normal is not None:
            values = normal_colours(spec, domain, width, height, *normal, advance=advance)
        else:
            values = noise01_image(spec, domain, width, height, advance)
        colours = image_colours(values, ramp, encode_srgb, lambda: advance(0))  # the image's, made here too
        rgba = rgba_of(colours, lambda: advance(0))
        if not path:
            return rgba, None
        written = partial(image_io.file_pixels, colours, width, height, float_image=float_image, data=ramp is None,
                          file_format=save_format)  # fmt: skip
        return rgba, image_io.write_files([path], [written], save_format, advance, share=encoding)

    def apply(result: tuple[np.ndarray, Staged | None]) -> Steps:
        rgba, staged = result
        try:
            target = _target_image(str(image), existing_name, width, height, use_float)
            snapshot = image_io.snapshot(None if existing_name is None else target)
            try:  # on any failure the image is put back as it was (a new one removed)
                if target.is_float == encode_srgb:
                    raise UserError(f"image: {target.name!r} changed its bit depth while baking; nothing was changed")
                fill_rgba(target, rgba, width, height, ramp is None)
                if staged is not None:
                    yield 0  # the window's turn between filling the image and putting its file in place
                    image_io.commit(staged)
            except BaseException:
                image_io.restore(target, snapshot)
                raise
        finally:
            if staged is not None:
                staged.discard()
        if pack:
            target.pack()
        return target

    return Job(compute, apply, pixels + encoding)


def _target_image(name: str, existing_name: str | None, width: int, height: int, use_float: bool) -> bpy.types.Image:
    """The image a still bake fills: a new one called ``name``, or the existing one called ``existing_name``
    (``UserError`` when it went away while the job ran)."""
    if existing_name is None:
        return bpy.data.images.new(name, width, height, float_buffer=use_float)
    found = bpy.data.images.get(existing_name)
    if found is None:
        raise UserError(f"image: {existing_name!r} was removed or renamed while baking; nothing was changed")
    return found


def _check_loop(spec: NoiseSpec, domain: Domain, frames: int, radius: float) -> tuple[int, float] | None:
    """``(frames, radius)`` of a loop bake, None for a still image; ``UserError`` naming ``loop_frames`` when
    the kind has no noise to loop through."""
    if frames == 0:
        return None
    try:
        loops.check_loop_kind(spec, domain.dimensions)
    except ValueError as error:
        raise UserError(f"loop_frames: {str(error).removeprefix('loop: ')}; bake 2D noise on the plane") from None
    try:
        loops.check_loop_reach(spec, radius)
    except ValueError as error:
        raise UserError(f"loop_{error}") from None
    return frames, radius


def _loop_job(
    spec: NoiseSpec,
    domain: Domain,
    name: str,
    size: tuple[int, int],
    use_float: bool,
    ramp: tuple | None,
    save_format: str,
    path: str,
    loop: tuple[int, float],
    normal: tuple[float, str, str] | None,
) -> Job:
    """The frames of a loop, each made and encoded to its file by a ``jobs.Stream`` (a worker thread, a few frames
    ahead) as ``name.0001.png``, ... all or none (one step per frame, the files put in place after the last);
    then loaded as an image sequence called ``name``."""
    frames, radius = loop
    width, height = size
    paths = [str(loops.frame_path(path, frame)) for frame in range(frames)]

    def steps() -> Steps:
        staged = image_io.stage(paths)

        def frame_file(frame: int, check: Callable[[], None]) -> int:
            at, between = (frame, frames, radius), lambda _count: check()  # a cancel stops a frame between chunks
            if normal is None:
                values = noise01_image(spec, domain, width, height, between, loop=at)
            else:
                values = normal_colours(spec, domain, width, height, *normal, loop=at, advance=between)
            colours = image_colours(values, ramp, not use_float, check)  # what an image of the frame would hold
            written = partial(image_io.file_pixels, colours, width, height, float_image=use_float,
                              data=ramp is None, file_format=save_format)  # fmt: skip
            image_io.write_file(staged, frame, written, save_format, check)
            return frame

        stream = None
        try:
            stream = Stream(frame_file, frames)
            for _frame in range(frames):
                while stream.get(timeout=FRAME_WAIT) is None:
                    yield 0
                yield 1
            image_io.commit(staged)
        finally:
            if stream is not None:
                stream.close()  # waits for the frame being made (a cancel reaches it within Staged.POLL)
            staged.discard()
        sequence = bpy.data.images.load(paths[0])
        sequence.source = "SEQUENCE"
        sequence.name = name
        if ramp is None:
            sequence.colorspace_settings.name = "Non-Color"
        return sequence

    return Job(lambda _advance: None, lambda _nothing: steps(), frames)


def normal_method_for(spec: NoiseSpec, method: str = str(NORMAL_METHOD.default)) -> str:
    """``"ANALYTIC"`` or ``"DIFFERENCES"``: how ``bake`` computes a normal map of ``spec`` with ``method``
    (``AUTO``: analytic derivatives where the kind has them); ``UserError`` naming ``normal_method``."""
    method = check(NORMAL_METHOD, method)
    try:
        return normal_maps.normal_method(spec, method.lower()).upper()
    except ValueError as error:
        raise UserError(f"normal_{error}") from None


def bake_domain(settings: NoiseSettings, noise_dimensions: str = "PLANE_2D") -> Domain:
    """The domain a bake reads: the settings' domain, with 2D noise on its plane for ``"PLANE_2D"``
    (whatever the settings' dimensions, even one the kind does not have, such as 1D cellular)."""
    if noise_dimensions == "SETTINGS":
        return to_domain(settings)
    if 2 not in kind_info(settings.kind).dims:
        raise UserError(f"noise_dimensions: kind {settings.kind!r} has no 2D noise; bake it As Settings")
    return to_domain(settings, dimensions=2)


class NOISEWRIGHT_OT_bake_texture(JobOperator, NoiseOperator, bpy.types.Operator):
    """Bake the noise into an image (new or existing), optionally saving it to a file or packing it"""

    bl_idname = "noisewright.bake_texture"
    bl_label = "Bake Noise Texture"
    __annotations__ = properties_of(*OPTIONS, *OPERATOR_OPTIONS)

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "target")
        if self.target == "EXISTING":
            layout.prop_search(self, "image_name", bpy.data, "images")
        else:
            layout.prop(self, "image_name")
        for name in ("width", "height"):
            layout.prop(self, name)
        if self.target == "NEW":
            layout.prop(self, "use_float")
        layout.prop(self, "map_type")
        if self.map_type == "NORMAL":
            for name in ("normal_strength", "normal_convention", "normal_method"):
                layout.prop(self, name)
            layout.label(text=self._normal_source(), icon="INFO")
        else:
            layout.prop(self, "color_mode")
            for name in ("color_low", "color_high") if self.color_mode == "RAMP" else ():
                layout.prop(self, name)
        layout.prop(self, "loop_frames")
        if self.loop_frames > 0:
            layout.prop(self, "loop_radius")
        layout.prop(self, "save_format")
        if self.save_format != "NONE":
            layout.prop(self, "filepath")
        if self.loop_frames > 0:
            layout.label(text="Loops are saved as name.0001.png ... and loaded as an image sequence", icon="INFO")
        else:
            layout.prop(self, "pack")
        layout.prop(self, "noise_dimensions")
        draw_noise_settings(layout.box(), self.noise)

    def _normal_source(self) -> str:
        """Which way the normals are computed for the current kind, said in the panel."""
        analytic = self.noise.kind in DERIVABLE_KINDS
        if self.normal_method == "ANALYTIC" and not analytic:
            return f"{self.noise.kind} has no analytic gradient: choose Auto or Central Differences"
        use_analytic = self.normal_method == "ANALYTIC" or (self.normal_method == "AUTO" and analytic)
        return f"Normals from {METHOD_TEXT['analytic' if use_analytic else 'differences']}"

    def _existing_image(self) -> bpy.types.Image | str:
        """The image to bake into: the existing one named ``image_name``, or the name of a new one."""
        if self.target == "NEW":
            return self.image_name
        image = bpy.data.images.get(self.image_name)
        if image is None:
            raise UserError(f"image_name: there is no image {self.image_name!r}")
        return image

    def job_key(self, _context) -> str:
        return f"image {self.image_name}"

    def prepare(self, context):
        """A job (``jobs``): in the UI the pixels (a loop's frames) are made in a worker thread and Esc cancels;
        in background mode and from scripts (``execute``) it runs in the foreground."""
        settings = operator_settings(self, context)
        job = bake_job(
            to_spec(settings),
            bake_domain(settings, self.noise_dimensions),
            image=self._existing_image(),
            warn=lambda message: self.report({"WARNING"}, message),
            **self.keywords("target", "image_name", "noise_dimensions"),
        )

        def apply(result: Any) -> Steps:
            image = yield from job.apply(result)
            self._baked(image)
            return image

        return Job(job.compute, apply, job.total)

    def _baked(self, image: bpy.types.Image) -> None:
        """Show the baked image in the Image Editor the operator ran from, and say what was made."""
        space: Any = bpy.context.space_data
        if space is not None and space.type == "IMAGE_EDITOR":
            space.image = image
        saved = self.save_format != "NONE"
        if self.loop_frames > 0:
            first = loops.frame_path(image_io.saved_path(self.filepath, self.save_format), 0)
            self.report(
                {"INFO"}, f"Baked a {self.loop_frames}-frame loop into {image.name!r}, saved from {str(first)!r}"
            )
            return
        self.report(
            {"INFO"},
            f"Baked {image.name!r}"
            + (f" and saved {image_io.saved_path(self.filepath, self.save_format)!r}" if saved else ""),
        )


def menu_entry(menu, _context) -> None:
    menu.layout.operator(NOISEWRIGHT_OT_bake_texture.bl_idname, icon="TEXTURE")


CLASSES = (NOISEWRIGHT_OT_bake_texture,)
