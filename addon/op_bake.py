"""``noisewright.bake_texture``: bake the noise on the domain's plane (0..1 square) into an image.

Pixel ``(c, r)`` (row 0 at the bottom, as Blender stores images) holds the noise at
``((c + .5) / W, (r + .5) / H)`` on the plane, mapped to 0..1 (see ``mapping``). By default the bake reads
2D noise on the plane whatever the settings' dimensions (even one the kind lacks, like 1D cellular), so with
no rotation or scale and no offset on the plane's axes (the default offset moves Z only) the image is exactly
``evaluate_grid(spec, (H, W))`` (what ``python -m noise_core bake`` writes) and tiles when tiling is on;
``noise_dimensions="SETTINGS"`` reads the settings' dimensions instead (3D noise sliced through the plane,
at the offset on the third axis, 1D noise along its axis). Grayscale images are
non-colour data; a two-colour ramp blends scene-linear colours. Files are written by Blender itself
(PNG 16-bit, OpenEXR 32-bit float, ZIP) through a temporary scene's output settings, with the Standard
view transform, so grayscale values land in the file unchanged; whole or not at all (``save_image``).
A bake that fails (a save included) leaves an existing image as it was, colour space and ``is_dirty``
included, and removes a new one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import bpy
import numpy as np
from bpy.props import BoolProperty, EnumProperty, FloatVectorProperty, IntProperty, PointerProperty, StringProperty

from .errors import UserError
from .mapping import Domain, kind_info, to_domain, to_spec
from .noise_core.files import check_writable, replacing
from .pixels import noise01_image, pixel_array, to_rgba
from .progress import window_progress
from .properties import NoiseSettings, operator_settings
from .ui import draw_noise_settings

MAX_PIXELS = 1 << 26
"""Largest image (8192 x 8192; 1 GiB of float RGBA inside Blender): bigger requests are refused."""
EXTENSIONS = {"PNG": ".png", "OPEN_EXR": ".exr"}
DEPTHS = {"PNG": "16", "OPEN_EXR": "32"}
PATH_OPTIONS = {"PATH_SUPPORTS_BLEND_RELATIVE"} if bpy.app.version >= (4, 5, 0) else set()
"""File paths may start with ``//`` (Blender 4.5+ asks properties to declare it)."""


NOISE_DIMENSION_ITEMS = [
    ("PLANE_2D", "2D on Plane", "2D noise on the settings' plane: seamless when tiling is on (as noise_core bake)"),
    ("SETTINGS", "As Settings", "The settings' dimensions: 3D noise sliced through the plane, 1D along its axis"),
]


def bake_domain(settings: NoiseSettings, noise_dimensions: str = "PLANE_2D") -> Domain:
    """The domain a bake reads: the settings' domain, with 2D noise on its plane for ``"PLANE_2D"``
    (whatever the settings' dimensions, even one the kind does not have, such as 1D cellular)."""
    if noise_dimensions == "SETTINGS":
        return to_domain(settings)
    if 2 not in kind_info(settings.kind).dims:
        raise UserError(f"noise_dimensions: kind {settings.kind!r} has no 2D noise; bake it As Settings")
    return to_domain(settings, dimensions=2)


PNG_END = b"\x00\x00\x00\x00IEND\xaeB`\x82"
"""The last 12 bytes of every complete PNG file: the empty IEND chunk and its CRC."""


def check_written(path: str, file_format: str) -> None:
    """``OSError`` unless ``path`` holds a complete file: Blender's PNG writer reports no error when the
    file is cut short (a full disk, a file-size limit), so a PNG must end with its IEND chunk. Blender's
    OpenEXR writer raises on such errors itself (and reading a cut EXR back can crash Blender)."""
    size = os.path.getsize(path)
    if size == 0:
        raise OSError(f"{path!r}: nothing was written")
    if file_format == "PNG":
        with open(path, "rb") as written:
            written.seek(max(size - len(PNG_END), 0))
            if written.read() != PNG_END:
                raise OSError(f"{path!r}: the PNG was cut short (disk full or file-size limit?)")


def save_image(image: bpy.types.Image, path: str, file_format: str, grayscale: bool) -> None:
    """Write ``image`` to ``path`` with Blender's image writer: PNG 16-bit or OpenEXR 32-bit float.

    Written whole or not at all (``noise_core.files.replacing``): into a temporary file beside ``path``,
    checked (``check_written``), then renamed over it; on failure an existing file at ``path`` is kept
    and ``RuntimeError`` (Blender's writer) or ``OSError`` is raised.
    """
    scene = bpy.data.scenes.new(".noisewright_save")
    try:
        scene.view_settings.view_transform = "Standard"
        scene.view_settings.look = "None"
        settings = scene.render.image_settings
        settings.file_format = file_format  # type: ignore[assignment]
        settings.color_mode = "BW" if grayscale else "RGB"
        settings.color_depth = DEPTHS[file_format]  # type: ignore[assignment]
        if file_format == "OPEN_EXR":
            settings.exr_codec = "ZIP"
        with replacing(path) as temporary:
            image.save_render(str(temporary), scene=scene)
            check_written(str(temporary), file_format)
    finally:
        bpy.data.scenes.remove(scene)


def resize(image: bpy.types.Image, width: int, height: int) -> None:
    """Give ``image`` a ``width`` x ``height`` buffer (generated images are regenerated at that size)."""
    if tuple(image.size) == (width, height):
        return
    if image.source == "GENERATED":
        image.generated_width = width
        image.generated_height = height
    else:
        image.scale(width, height)


class NOISEWRIGHT_OT_bake_texture(bpy.types.Operator):
    """Bake the noise into an image (new or existing), optionally saving it to a file or packing it"""

    bl_idname = "noisewright.bake_texture"
    bl_label = "Bake Noise Texture"
    bl_options = {"REGISTER", "UNDO"}

    target: EnumProperty(  # type: ignore[valid-type]
        name="Target",
        description="Which image receives the noise",
        items=[
            ("NEW", "New Image", "Create a new image named Image"),
            ("EXISTING", "Existing Image", "Bake into the image named Image (resized; it keeps its bit depth)"),
        ],
        default="NEW",
    )
    image_name: StringProperty(  # type: ignore[valid-type]
        name="Image", description="Name of the new image, or the existing image to bake into", default="Noise"
    )
    width: IntProperty(  # type: ignore[valid-type]
        name="Width", description="Width in pixels", default=1024, min=1, max=65536, soft_max=8192
    )
    height: IntProperty(  # type: ignore[valid-type]
        name="Height", description="Height in pixels", default=1024, min=1, max=65536, soft_max=8192
    )
    use_float: BoolProperty(  # type: ignore[valid-type]
        name="32-bit Float", description="A new image stores 32-bit floats (else 8 bits per channel)", default=True
    )
    color_mode: EnumProperty(  # type: ignore[valid-type]
        name="Colors",
        description="How noise values become colours",
        items=[
            ("GRAYSCALE", "Grayscale", "Noise 0..1 as grey, non-colour data (height maps)"),
            ("RAMP", "Two-Color Ramp", "Blend from the low to the high colour"),
        ],
        default="GRAYSCALE",
    )
    color_low: FloatVectorProperty(  # type: ignore[valid-type]
        name="Low",
        description="Colour of noise value 0",
        size=3,
        default=(0.02, 0.04, 0.1),
        min=0.0,
        soft_max=1.0,
        subtype="COLOR",
    )
    color_high: FloatVectorProperty(  # type: ignore[valid-type]
        name="High",
        description="Colour of noise value 1",
        size=3,
        default=(0.9, 0.8, 0.6),
        min=0.0,
        soft_max=1.0,
        subtype="COLOR",
    )
    save_format: EnumProperty(  # type: ignore[valid-type]
        name="Save",
        description="Also write the image to File Path",
        items=[
            ("NONE", "Don't Save", "Keep the image in Blender only"),
            ("PNG", "PNG 16-bit", "16-bit PNG (grey or RGB)"),
            ("OPEN_EXR", "OpenEXR", "32-bit float OpenEXR, ZIP compressed"),
        ],
        default="NONE",
    )
    filepath: StringProperty(  # type: ignore[valid-type]
        name="File Path",
        description="Where to save (the extension is added if missing)",
        default="",
        subtype="FILE_PATH",
        options=PATH_OPTIONS,
    )
    pack: BoolProperty(  # type: ignore[valid-type]
        name="Pack", description="Pack the image into the .blend file", default=False
    )
    noise_dimensions: EnumProperty(  # type: ignore[valid-type]
        name="Noise", description="Which noise the image holds", items=NOISE_DIMENSION_ITEMS, default="PLANE_2D"
    )
    noise: PointerProperty(type=NoiseSettings, options={"SKIP_SAVE"})  # type: ignore[valid-type]

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(self, "target")
        if self.target == "EXISTING":
            layout.prop_search(self, "image_name", bpy.data, "images")
        else:
            layout.prop(self, "image_name")
        layout.prop(self, "width")
        layout.prop(self, "height")
        if self.target == "NEW":
            layout.prop(self, "use_float")
        layout.prop(self, "color_mode")
        if self.color_mode == "RAMP":
            layout.prop(self, "color_low")
            layout.prop(self, "color_high")
        layout.prop(self, "save_format")
        if self.save_format != "NONE":
            layout.prop(self, "filepath")
        layout.prop(self, "pack")
        layout.prop(self, "noise_dimensions")
        draw_noise_settings(layout.box(), self.noise)

    def _existing_image(self) -> bpy.types.Image | None:
        if self.target == "NEW":
            return None
        image = bpy.data.images.get(self.image_name)
        if image is None:
            raise UserError(f"image_name: there is no image {self.image_name!r}")
        if not image.is_editable:
            raise UserError(f"image_name: {image.name!r} is linked library data and cannot be changed")
        if 0 in tuple(image.size):
            raise UserError(f"image_name: {image.name!r} has no pixels (its file could not be loaded)")
        if image.source not in ("GENERATED", "FILE"):
            raise UserError(f"image_name: {image.name!r} is a {image.source.lower()} image; bake into a still image")
        return image

    def _save_path(self) -> str:
        if self.save_format == "NONE":
            return ""
        if not self.filepath.strip():
            raise UserError("filepath: give a file path to save the image to")
        if self.filepath.startswith("//") and not bpy.data.filepath:
            raise UserError("filepath: a path relative to the .blend (//) needs the .blend saved first")
        path = bpy.path.ensure_ext(bpy.path.abspath(self.filepath), EXTENSIONS[self.save_format])
        directory = os.path.dirname(path) or os.curdir
        if not os.path.isdir(directory):
            raise UserError(f"filepath: the folder {directory!r} does not exist")
        if os.path.isdir(path) or (os.path.exists(path) and not os.access(path, os.W_OK)):
            raise UserError(f"filepath: cannot write {path!r}")
        try:  # what the save does first: a new file in the folder (os.access cannot tell for root)
            check_writable(directory)
        except OSError as error:
            raise UserError(f"filepath: cannot write into the folder {directory!r} ({error.strerror})") from None
        return path

    def execute(self, context):
        try:
            settings = operator_settings(self, context)
            spec, domain = to_spec(settings), bake_domain(settings, self.noise_dimensions)
            if self.width * self.height > MAX_PIXELS:
                raise UserError(f"width, height: {self.width}x{self.height} exceeds the limit of {MAX_PIXELS} pixels")
            image = self._existing_image()
            path = self._save_path()
            with window_progress(context, self.width * self.height) as advance:
                values = noise01_image(spec, domain, self.width, self.height, advance)
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        if spec.tiling and not domain.keeps_tiling():
            self.report({"WARNING"}, "tiling: rotation or a fractional plane scale breaks the seamless tiling")
        snapshot = _snapshot(image)
        if image is None:
            image = bpy.data.images.new(self.image_name, self.width, self.height, float_buffer=self.use_float)
        try:  # on any failure the image is put back as it was (a new one removed)
            self._fill(image, values)
            if path:
                try:
                    save_image(image, path, self.save_format, self.color_mode == "GRAYSCALE")
                except (RuntimeError, OSError) as error:
                    raise UserError(f"filepath: Blender could not save {path!r}: {error}") from None
        except BaseException as error:
            _restore(image, snapshot)
            if not isinstance(error, UserError):
                raise
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        if self.pack:
            image.pack()
        space = context.space_data
        if space is not None and space.type == "IMAGE_EDITOR":
            space.image = image
        self.report({"INFO"}, f"Baked {image.name!r}" + (f" and saved {path!r}" if path else ""))
        return {"FINISHED"}

    def _fill(self, image: bpy.types.Image, values: np.ndarray) -> None:
        grayscale = self.color_mode == "GRAYSCALE"
        # The colour space first: changing it reloads a file image's buffer, which would undo the resize.
        if grayscale:
            image.colorspace_settings.name = "Non-Color"
        else:
            image.colorspace_settings.name = "Linear Rec.709" if image.is_float else "sRGB"
        resize(image, self.width, self.height)
        if tuple(image.size) != (self.width, self.height):
            raise UserError(
                f"image_name: {image.name!r} could not be resized to {self.width}x{self.height} "
                f"(it is {image.size[0]}x{image.size[1]})"
            )
        ramp = None if grayscale else (tuple(self.color_low), tuple(self.color_high))
        pixel_array(image).foreach_set(to_rgba(values, ramp, encode_srgb=not image.is_float))
        image.update()


@dataclass(frozen=True)
class Snapshot:
    """What a bake changes in an existing image, to put it back if the bake fails."""

    size: tuple[int, int]
    generated_size: tuple[int, int]
    colorspace: str
    pixels: np.ndarray | None
    """Only for images with unsaved changes (``is_dirty``); clean ones are reloaded from their source."""


def _snapshot(image: bpy.types.Image | None) -> Snapshot | None:
    if image is None:
        return None
    pixels = None
    if image.is_dirty:
        pixels = np.empty(len(pixel_array(image)), dtype=np.float32)
        pixel_array(image).foreach_get(pixels)
    generated = (image.generated_width, image.generated_height)
    return Snapshot((image.size[0], image.size[1]), generated, image.colorspace_settings.name, pixels)


def _restore(image: bpy.types.Image, snapshot: Snapshot | None) -> None:
    """Undo a failed bake: remove a new image; put an existing one back, clean (``is_dirty`` False) if it was.

    A clean image equals its file or generated pattern, so reloading restores it and keeps it clean;
    an image with unsaved changes gets its pixels back (and stays dirty, as it was).
    """
    if snapshot is None:
        bpy.data.images.remove(image)
        return
    image.colorspace_settings.name = snapshot.colorspace
    if image.source == "GENERATED":
        image.generated_width, image.generated_height = snapshot.generated_size
    if snapshot.pixels is None:
        image.reload()
        return
    resize(image, *snapshot.size)
    pixel_array(image).foreach_set(snapshot.pixels)
    image.update()


def menu_entry(menu, _context) -> None:
    menu.layout.operator(NOISEWRIGHT_OT_bake_texture.bl_idname, icon="TEXTURE")


CLASSES = (NOISEWRIGHT_OT_bake_texture,)
