"""Shared start-up of the headless entry points: arguments, loading the Noisewright add-on, running its operators.

The entry points run as ``python scripts/<name>.py <args>`` with the ``bpy`` module and inside the Blender
binary (below). They load the add-on the way a user would: an enabled, installed ``noisewright`` extension is
used as it is; otherwise the checkout is staged (``build_extension.stage_extension``) into a local extension
repository under ``build/`` that is registered in the preferences, and the extension is enabled from there. The
staged copy is kept while the sources are unchanged; Numba's on-disk cache lives in the extension's user folder
(``addon/preferences.py``) and survives between runs.

The noise options (``--kind``, ``--seed``, ``--octaves`` ...) are generated from the add-on's noise
settings, so they match the panels field for field; they are applied to the scene's settings, which
the operators read when called without their own.

Entry points load this module by its path (``importlib.util.spec_from_file_location``, a few lines at their top, unless
it is in ``sys.modules`` already) and their other siblings with ``sibling``: ``blender --python scripts/x.py`` runs the
file without putting ``scripts/`` on ``sys.path`` (and Blender's Python ignores ``PYTHONPATH`` unless started with
``--python-use-system-env``), so the scripts run as ``python scripts/<name>.py <args>`` and as ``blender --background
--python scripts/<name>.py -- <args>`` (docs/cli.md) alike. The tests import them through pytest's ``pythonpath``.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import bpy
import numpy as np

SCRIPTS = Path(__file__).resolve().parent


def sibling(name: str) -> ModuleType:
    """``scripts/<name>.py`` imported by its path (the module's docstring), once: shared through ``sys.modules``."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = sys.modules[name] = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
    return sys.modules[name]


build_extension = sibling("build_extension")
ROOT = SCRIPTS.parent
EXTENSION_ID = "noisewright"
LOCAL_REPOSITORY = ROOT / "build" / "blender_extensions"
LOCAL_REPOSITORY_NAME = "Noisewright checkout"

Log = Callable[[str], None]


class AddonError(RuntimeError):
    """The add-on could not be found, staged or enabled, or one of its operators failed."""


def script_arguments(argv: Sequence[str] | None = None) -> list[str]:
    """The script's own arguments: those after ``--``, else all but the script path under plain Python.

    Inside the Blender binary without ``--`` every argument is Blender's, so there are none.
    """
    argv = list(sys.argv if argv is None else argv)
    if "--" in argv:
        return argv[argv.index("--") + 1 :]
    if argv and argv[0].endswith(".py"):
        return argv[1:]
    return []


def _enabled_extension_module() -> str | None:
    for addon in bpy.context.preferences.addons:
        if addon.module.startswith("bl_ext.") and addon.module.rpartition(".")[2] == EXTENSION_ID:
            return addon.module
    return None


def _stage_checkout(repository: Path, log: Log) -> None:
    """Stage the checkout's extension into ``repository`` (``build_extension.stage_extension``) unless the copy
    there is current."""
    staged = repository / EXTENSION_ID
    if build_extension.staged_copy_is_current(staged):
        return
    log(f"staging the checkout's extension into {staged}")
    build_extension.stage_extension(repository)


def _local_repository(directory: Path):
    """The preferences' extension repository kept in ``directory``, added when missing."""
    repos = bpy.context.preferences.extensions.repos
    for repo in repos:
        if repo.use_custom_directory and Path(repo.custom_directory).resolve() == directory.resolve():
            return repo
    result = bpy.ops.preferences.extension_repo_add(
        name=LOCAL_REPOSITORY_NAME,
        type="LOCAL",
        use_custom_directory=True,
        custom_directory=str(directory),
    )
    if result != {"FINISHED"}:
        raise AddonError(f"could not add the local extension repository {directory} ({result})")
    return repos[-1]


def _raise(error: Exception) -> None:
    raise error


class ScriptParser(argparse.ArgumentParser):
    """``argparse`` with the project's error style: ``error: --option: what is allowed`` and exit status 2
    (argparse itself writes ``argument --option: ...``)."""

    def error(self, message: str):  # type: ignore[override]
        super().error(re.sub(r"^argument (-[\w-]+)(?:/-[\w-]+)*: ", r"\1: ", message))


def number(low: float | None = None, high: float | None = None, *, above: bool = False) -> Callable[[str], float]:
    """An argparse ``type``: a finite float, ``low`` (or above it, with ``above``) to ``high`` when given."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
        too_low = low is not None and (value <= low if above else value < low)
        if too_low or (high is not None and value > high):
            lower = "" if low is None else (f"> {low:g}" if above else f">= {low:g}")
            upper = "" if high is None else f"<= {high:g}"
            raise argparse.ArgumentTypeError(f"must be {' and '.join(filter(None, (lower, upper)))}, got {text}")
        return value

    parse.__name__ = "number"
    return parse


def integer(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type``: a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, got {value}")
        return value

    parse.__name__ = "integer"
    return parse


def output_file(parser: argparse.ArgumentParser, option: str, path: Path, suffixes: Sequence[str]) -> Path:
    """``path`` resolved, after making sure a file with one of ``suffixes`` can be written there: its folder
    is created if missing and a temporary file is created and removed in it. Otherwise ``parser.error``
    (exit status 2) names ``option`` and the problem."""
    path = Path(path).resolve()
    if path.is_dir():
        parser.error(f"{option}: {str(path)!r} is a folder; give a file path ending in {' or '.join(suffixes)}")
    if path.suffix.lower() not in suffixes:
        parser.error(f"{option}: unsupported file type {path.suffix or '(none)'!r}; use {' or '.join(suffixes)}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path.parent):
            pass
    except OSError as error:
        parser.error(f"{option}: cannot write into the folder {str(path.parent)!r} ({error.strerror or error})")
    return path


def save_blend(path: Path) -> None:
    """Save the open file as a copy at ``path``, whole or not at all (``noise_core.io.files.replacing``).

    ``copy=True`` leaves ``bpy.data.filepath`` alone; relative paths stay valid because the temporary file
    is in ``path``'s folder. ``AddonError`` if Blender could not write it (an existing file is kept).
    """
    replacing = addon_package().noise_core.io.files.replacing
    try:
        with replacing(path) as temporary:
            temporary.unlink()  # Blender would keep the empty placeholder as a backup (.blend1)
            bpy.ops.wm.save_as_mainfile(filepath=str(temporary), check_existing=False, copy=True)
    except (RuntimeError, OSError) as error:
        raise AddonError(f"could not save {str(path)!r}: {str(error).strip()}") from error


def add_addon_arguments(parser: argparse.ArgumentParser) -> None:
    """The options every entry point shares."""
    parser.add_argument(
        "--extension-repo",
        type=Path,
        default=LOCAL_REPOSITORY,
        help="local extension repository the checkout is staged into when no installed noisewright extension "
        f"is enabled (default: {LOCAL_REPOSITORY})",
    )


def load_addon(repository: Path = LOCAL_REPOSITORY, log: Log = print) -> str:
    """Make sure the Noisewright add-on is enabled; return its module name (``bl_ext.<repo>.noisewright``)."""
    module = _enabled_extension_module()
    if module is not None:
        log(f"using the enabled extension {module}")
        return module
    repository = Path(repository).resolve()
    repository.mkdir(parents=True, exist_ok=True)
    _stage_checkout(repository, log)
    module = f"bl_ext.{_local_repository(repository).module}.{EXTENSION_ID}"
    import addon_utils  # Blender's own module: importable only once bpy is

    if addon_utils.enable(module, default_set=True, handle_error=_raise) is None:
        raise AddonError(f"Blender did not enable {module}; see the messages above")
    log(f"enabled {module} from {repository / EXTENSION_ID}")
    return module


_SKIPPED_SETTINGS = ("rna_type", "name")


def _noise_properties():
    """The RNA properties of the scene's noise settings, ``kind`` first (the option menus depend on it)."""
    properties = [p for p in bpy.context.scene.noisewright.bl_rna.properties if p.identifier not in _SKIPPED_SETTINGS]
    return sorted(properties, key=lambda prop: prop.identifier != "kind")


def _add_noise_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("noise settings (the add-on's Noise panel; unset ones keep their defaults)")
    for prop in _noise_properties():
        option = "--" + prop.identifier.replace("_", "-")
        options: dict = {"default": argparse.SUPPRESS, "help": prop.description, "dest": prop.identifier}
        if prop.type == "ENUM":
            items = [item.identifier for item in prop.enum_items]
            options["choices" if items else "metavar"] = items or prop.identifier.upper()
        elif prop.type == "BOOLEAN":
            options["action"] = argparse.BooleanOptionalAction
        elif prop.type in ("INT", "FLOAT"):
            options["type"] = int if prop.type == "INT" else number()
            if prop.array_length:
                options.update(nargs=prop.array_length, metavar=tuple("XYZW"[: prop.array_length]))
        group.add_argument(option, **options)


def parse_arguments(
    description: str,
    add_arguments: Callable[[argparse.ArgumentParser], None],
    argv: Sequence[str] | None = None,
) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """Load the add-on, then parse the script's arguments (its own, ``--extension-repo`` and the noise options).

    The add-on comes first because the noise options are generated from its settings.
    """
    arguments = script_arguments(argv)
    common = ScriptParser(add_help=False)
    add_addon_arguments(common)
    known, _ = common.parse_known_args(arguments)
    try:
        load_addon(known.extension_repo)
    except (AddonError, OSError) as error:
        raise SystemExit(f"error: could not load the Noisewright add-on: {error}") from error
    parser = ScriptParser(description=description, parents=[common])
    add_arguments(parser)
    _add_noise_arguments(parser)
    return parser, parser.parse_args(arguments)


def set_noise_settings(values: dict) -> None:
    """Set the scene's noise settings from ``{field: value}`` (``kind`` first); ``ValueError`` names a bad field."""
    settings = bpy.context.scene.noisewright
    for name in sorted(values, key=lambda name: name != "kind"):
        try:
            setattr(settings, name, values[name])
        except (TypeError, ValueError) as error:
            raise ValueError(f"{_option(name)}: {error}") from error


def _option(field: str) -> str:
    return "--" + field.replace("_", "-")


def _as_option_message(message: str) -> str:
    """A ``NoiseSpec``/add-on message ``"field: ..."`` as ``"--field: ..."``, the option's spelling."""
    field, separator, rest = message.partition(":")
    return _option(field) + separator + rest if separator and field.split("[")[0].isidentifier() else message


def addon_package():
    """The enabled Noisewright add-on package (its ``mapping`` and bundled ``noise_core``)."""
    module = _enabled_extension_module()
    if module is None:
        raise AddonError("the Noisewright add-on is not enabled")
    return importlib.import_module(module)


def _check_spec(package, values: dict) -> None:
    """Build the ``NoiseSpec`` of the spec fields in ``values`` (the scene's kind unless given), before Blender
    clamps anything: ``ValueError`` with ``NoiseSpec``'s message, which starts with the field name."""
    fields = package.mapping.spec_fields()
    spec_values = {fields[name]: value for name, value in values.items() if name in fields}
    spec_values.setdefault("kind", bpy.context.scene.noisewright.kind)
    try:
        if "sizes" in spec_values:
            spec_values["sizes"] = package.mapping.parse_sizes(spec_values["sizes"])
        package.noise_core.NoiseSpec(**spec_values)
    except (package.errors.UserError, TypeError, ValueError) as error:
        raise ValueError(str(error)) from None


def _check_stored(given: dict) -> None:
    """``ValueError`` naming the first given value Blender did not store as given (clamped to its range)."""
    settings = bpy.context.scene.noisewright
    for name, value in given.items():
        prop = settings.bl_rna.properties[name]
        stored = getattr(settings, name)
        if prop.type == "FLOAT":
            same = np.array_equal(np.asarray(value, dtype=np.float32), np.asarray(stored, dtype=np.float32))
        else:
            same = (tuple(stored) if prop.type in ("INT", "BOOLEAN") and prop.array_length else stored) == (
                tuple(value) if isinstance(value, list) else value
            )
        if not same:
            limits = f"allowed: {prop.hard_min:g} to {prop.hard_max:g}" if prop.type in ("INT", "FLOAT") else ""
            raise ValueError(f"{name}: {value!r} is out of range ({limits or 'Blender changed it'})")


def _check_applicable(package, given: dict) -> None:
    """``ValueError`` naming the first given kind option that does not take effect with the settings."""
    mapping = package.mapping
    settings = bpy.context.scene.noisewright
    kind_options = set(package.noise_core.registry.kind_option_names())
    applicable = mapping.applicable_options(settings)
    for name in given:
        if name not in kind_options or name in applicable:
            continue
        option = mapping.kind_info(settings.kind).option(name)
        if option is None:
            users = ", ".join(repr(kind) for kind in package.noise_core.registry.option_kinds(name))
            raise ValueError(f"{name}: not an option of kind {settings.kind!r} (it applies to kind {users})")
        requires = option.requires
        if requires is not None and requires.value is not None:
            raise ValueError(f"{name}: only used with --{requires.option} {requires.value}")
        raise ValueError(f"{name}: unused when --{requires.option if requires else 'sizes'} is given; leave it out")


def apply_noise_arguments(
    parser: argparse.ArgumentParser, args: argparse.Namespace, defaults: dict | None = None
) -> None:
    """Set the scene's noise settings: ``defaults`` first, then the noise options given on the command line.

    Any given value that is invalid (checked by ``NoiseSpec`` before Blender could clamp it), that Blender
    clamps, or that does not apply to the chosen kind, and settings the add-on refuses, end the script with
    ``parser.error("--<field>: ...")`` (exit code 2) naming the option and what is allowed.
    """
    given = {p.identifier: getattr(args, p.identifier) for p in _noise_properties() if hasattr(args, p.identifier)}
    package = addon_package()
    values = {**(defaults or {}), **given}
    try:
        _check_spec(package, values)
        set_noise_settings(values)
        _check_stored(given)
        _check_applicable(package, given)
        settings = bpy.context.scene.noisewright
        package.mapping.to_spec(settings)
        package.mapping.to_domain(settings)
    except (ValueError, package.errors.UserError) as error:
        parser.error(_as_option_message(str(error)))


def run_api(function: str, *, noise_dimensions: str | None = None, **arguments):
    """``api.<function>(bpy.context, spec, domain, **arguments)`` (``add_terrain``, ``displace``, ``bake``) with
    the scene's noise settings as ``spec`` and ``domain`` (a bake's domain per ``noise_dimensions``, see
    ``bake.bake_domain``); the API's ``UserError`` becomes ``AddonError``. Returns what the function does."""
    package = addon_package()
    settings = bpy.context.scene.noisewright
    try:
        spec = package.mapping.to_spec(settings)
        if noise_dimensions is None:
            domain = package.mapping.to_domain(settings)
        else:
            domain = package.bake.bake_domain(settings, noise_dimensions)
        objects = (arguments.pop("objects"),) if "objects" in arguments else ()  # displace's second argument
        return getattr(package.api, function)(bpy.context, *objects, spec, domain, **arguments)
    except package.errors.UserError as error:
        raise AddonError(f"{function}: {error}") from None


def run_operator(idname: str, **properties) -> None:
    """Run ``bpy.ops.<idname>`` (e.g. ``noisewright.displace``); raise ``AddonError`` unless it finished."""
    category, _, name = idname.partition(".")
    operator = getattr(getattr(bpy.ops, category), name)
    try:
        result = operator(**properties)
    except (RuntimeError, TypeError) as error:
        raise AddonError(f"{idname}: {str(error).strip()}") from error
    if result != {"FINISHED"}:
        raise AddonError(f"{idname} did not finish ({', '.join(sorted(result))}); see the messages above")


@contextmanager
def step(message: str, log: Log = print) -> Iterator[None]:
    """Print ``message``, run the block, then print how long it took."""
    log(f"{message} ...")
    started = time.perf_counter()
    yield
    log(f"  done in {time.perf_counter() - started:.1f} s")
