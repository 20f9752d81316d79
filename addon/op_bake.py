"""``noisewright.bake_texture``: Image > Bake Noise Texture, over ``api.bake``.

By default the bake reads 2D noise on the settings' plane whatever the settings' dimensions (even one the
kind lacks, like 1D cellular), so with no rotation or scale and no offset on the plane's axes (the default
offset moves Z only) the image is exactly ``evaluate_grid(spec, (H, W))`` (what ``python -m noise_core
bake`` writes) and tiles when tiling is on; ``noise_dimensions="SETTINGS"`` reads the settings' dimensions
instead (3D noise sliced through the plane, at the offset on the third axis, 1D noise along its axis).
See ``api.bake`` for pixels, colours, files and what a failed bake leaves behind.
"""

from __future__ import annotations

import bpy
from bpy.props import (
    BoolProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from . import api, image_io
from .errors import UserError
from .mapping import Domain, kind_info, to_domain, to_spec
from .noise_core import loops
from .noise_core.derivatives import DERIVABLE_KINDS
from .noise_core.loops import MAX_FRAMES
from .noise_core.normal_maps import MAX_STRENGTH, METHOD_TEXT
from .properties import NoiseSettings, loop_radius_property, operator_settings
from .ui import draw_noise_settings

PATH_OPTIONS = {"PATH_SUPPORTS_BLEND_RELATIVE"} if bpy.app.version >= (4, 5, 0) else set()
"""File paths may start with ``//`` (Blender 4.5+ asks properties to declare it)."""


SAVE_ITEMS = [
    ("NONE", "Don't Save", "Keep the image in Blender only"),
    ("PNG", "PNG 16-bit", "16-bit PNG (grey or RGB)"),
    ("PNG_8", "PNG 8-bit", "8-bit PNG (grey or RGB)"),
    ("OPEN_EXR", "OpenEXR", "32-bit float OpenEXR, ZIP compressed"),
]
"""The bakes' file formats (``api.SAVE_FORMATS``)."""

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


class NOISEWRIGHT_OT_bake_texture(bpy.types.Operator):
    """Bake the noise into an image (new or existing), optionally saving it to a file or packing it"""

    bl_idname = "noisewright.bake_texture"
    bl_label = "Bake Noise Texture"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

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
        name="Save", description="Also write the image to File Path", items=SAVE_ITEMS, default="NONE"
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
    map_type: EnumProperty(  # type: ignore[valid-type]
        name="Map",
        description="What the image holds",
        items=[
            ("HEIGHT", "Height", "The noise mapped to 0..1"),
            ("NORMAL", "Normal Map", "Tangent-space normal map of that height (non-colour RGB, for a Normal Map node)"),
        ],
        default="HEIGHT",
    )
    normal_strength: FloatProperty(  # type: ignore[valid-type]
        name="Strength",
        description="Height of the surface from noise 0 to 1, in image widths",
        default=0.1,
        min=0.0,
        max=MAX_STRENGTH,
        soft_max=2.0,
    )
    normal_convention: EnumProperty(  # type: ignore[valid-type]
        name="Green",
        description="Which way the green channel points",
        items=[
            ("OPENGL", "OpenGL (+Y)", "Green up the image: Blender, Godot, Unity"),
            ("DIRECTX", "DirectX (-Y)", "Green down the image: Unreal Engine, Substance's DirectX preset"),
        ],
        default="OPENGL",
    )
    normal_method: EnumProperty(  # type: ignore[valid-type]
        name="Slopes",
        description="How the normals' slopes are computed",
        items=[
            ("AUTO", "Auto", "Analytic derivatives where the kind has them, else central differences"),
            ("ANALYTIC", "Analytic", "The noise's exact gradient (value, Perlin, simplex kinds)"),
            ("DIFFERENCES", "Central Differences", "Differences of the height one pixel apart (every kind)"),
        ],
        default="AUTO",
    )
    loop_frames: IntProperty(  # type: ignore[valid-type]
        name="Loop Frames",
        description="Bake a seamless loop of this many frames, saved as name.0001.png, ... and loaded as an image "
        "sequence (0: one still image). 2D noise loops through 4D noise (value, Perlin, simplex kinds)",
        default=0,
        min=0,
        max=MAX_FRAMES,
        soft_max=240,
    )
    loop_radius: loop_radius_property()  # type: ignore[valid-type]
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
        layout.prop(self, "map_type")
        if self.map_type == "NORMAL":
            layout.prop(self, "normal_strength")
            layout.prop(self, "normal_convention")
            layout.prop(self, "normal_method")
            layout.label(text=self._normal_source(), icon="INFO")
        else:
            layout.prop(self, "color_mode")
            if self.color_mode == "RAMP":
                layout.prop(self, "color_low")
                layout.prop(self, "color_high")
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

    def execute(self, context):
        try:
            settings = operator_settings(self, context)
            image = api.bake(
                context,
                to_spec(settings),
                bake_domain(settings, self.noise_dimensions),
                image=self._existing_image(),
                width=self.width,
                height=self.height,
                use_float=self.use_float,
                color_mode=self.color_mode,
                color_low=tuple(self.color_low),
                color_high=tuple(self.color_high),
                save_format=self.save_format,
                filepath=self.filepath,
                pack=self.pack,
                warn=lambda message: self.report({"WARNING"}, message),
                map_type=self.map_type,
                normal_strength=self.normal_strength,
                normal_convention=self.normal_convention,
                normal_method=self.normal_method,
                loop_frames=self.loop_frames,
                loop_radius=self.loop_radius,
            )
        except UserError as error:
            self.report({"ERROR"}, str(error))
            return {"CANCELLED"}
        space = context.space_data
        if space is not None and space.type == "IMAGE_EDITOR":
            space.image = image
        saved = self.save_format != "NONE"
        if self.loop_frames > 0:
            first = loops.frame_path(image_io.saved_path(self.filepath, self.save_format), 0)
            self.report(
                {"INFO"}, f"Baked a {self.loop_frames}-frame loop into {image.name!r}, saved from {str(first)!r}"
            )
            return {"FINISHED"}
        self.report(
            {"INFO"},
            f"Baked {image.name!r}"
            + (f" and saved {image_io.saved_path(self.filepath, self.save_format)!r}" if saved else ""),
        )
        return {"FINISHED"}


def menu_entry(menu, _context) -> None:
    menu.layout.operator(NOISEWRIGHT_OT_bake_texture.bl_idname, icon="TEXTURE")


CLASSES = (NOISEWRIGHT_OT_bake_texture,)
