"""Drawing the noise settings (panels and operator redo panels share it)."""

from __future__ import annotations

import bpy

from .errors import UserError
from .mapping import applicable_common, applicable_options, to_domain, to_spec
from .noise_core.registry import KINDS
from .properties import NoiseSettings, check_finite, property_name


def draw_noise_settings(layout: bpy.types.UILayout, settings: NoiseSettings) -> None:
    """Kind, fractal fields, the domain warp, the kind's own options, the domain, and the settings' error if any."""
    layout.use_property_split = True
    layout.use_property_decorate = False
    column = layout.column()
    column.prop(settings, "kind")
    column.prop(settings, "seed")
    column.prop(settings, "frequency")
    column.prop(settings, "octaves")
    if settings.octaves > 1:
        column.prop(settings, "lacunarity")
        column.prop(settings, "persistence")
    column.prop(settings, "fractal")
    for option in applicable_common(settings):
        if option.name in ("turbulence", "offset", "gain"):
            column.prop(settings, property_name(option))
    if shows_tiling(settings):
        column.prop(settings, "tiling")
    column.prop(settings, "warp")
    if settings.warp != "none":
        warp = column.box()
        for name in WARP_FIELDS:
            warp.prop(settings, name)
    options = applicable_options(settings)
    if options:
        box = column.box()
        for name in options:
            box.prop(settings, name)
    domain = column.column(heading="Noise Space")
    domain.prop(settings, "dimensions", expand=True)
    if settings.dimensions == "2":
        domain.prop(settings, "plane", expand=True)
    elif settings.dimensions == "1":
        domain.prop(settings, "axis", expand=True)
    elif settings.dimensions == "4":
        domain.prop(settings, "w")
    domain.prop(settings, "offset")
    domain.prop(settings, "rotation")
    domain.prop(settings, "scale")
    message = settings_error(settings)
    if message:
        column.label(text=message, icon="ERROR")


WARP_FIELDS = ("warp_kind", "warp_amplitude", "warp_frequency", "warp_octaves")
"""The domain-warp settings the panels show when a warp mode is chosen."""


def shows_tiling(settings: NoiseSettings) -> bool:
    """Whether the panels offer the tiling checkbox: for kinds that tile, and whenever it is on (so it can be
    turned off should it be set for a kind that cannot tile, which ``to_spec`` refuses)."""
    return KINDS[settings.kind].tiling or settings.tiling


def settings_error(settings: NoiseSettings) -> str:
    """The message that makes ``settings`` unusable, or ``""``."""
    try:
        check_finite(settings)
        to_spec(settings)
        to_domain(settings)
    except UserError as error:
        return str(error)
    return ""
