"""Every fenced snippet of README.md and docs/*.md runs as written.

A fence's first word is its language. ``python`` blocks run as they are; ``sh``/``bash``/``console`` blocks are
commands, run one by one (``\\`` continues a line, ``#`` starts a comment, a ``$ `` prompt is dropped); a block
whose language is followed by a file name (``json rules.json``) is written to that file for the commands after it;
``text`` blocks are output and are not run. Every block needs a language: a bare fence fails (label output
``text``). The snippets of one file run in order in one folder, a copy of the repository root as a user has it
(its folders linked, ``python`` the venv's), each file in one process: ``python -m noise_core`` and
``python -m scripts.X`` through ``runpy`` as ``-m`` runs them, ``python scripts/X.py`` in a process of its own.
What needs Blender (a ``python`` block importing ``bpy``, ``blender --background --python scripts/X.py``, a script
importing ``bpy``) runs through the bpy module in a second process per file (``blender`` marker): the extension
installed in a throw-away user folder's ``user_default`` repository, as a user installs it.

Commands that cannot run here (a benchmark of minutes, a cluster, the whole test suite) are listed in ``SKIPPED``
with the reason; a listed command that no document has any more fails, so the list stays true. A failure names
the file and line of the snippet.
"""

from __future__ import annotations

import json
import os
import re
import resource
import runpy
import shlex
import subprocess
import sys
import time
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
LINKED = ("noise_core", "scripts", "tests", "addon", "docs", "README.md", "pyproject.toml", "blender_manifest.toml")
"""What the copy of the repository root links to (the checkout's own files)."""
COMMAND_LANGUAGES = ("sh", "bash", "console", "shell")
SKIPPED = {
    "bash scripts/run.sh": "sets up the venv and runs the demo or the whole test suite (what CI itself runs)",
    "scripts/bench.py": "a benchmark of minutes (docs/benchmarks.md's numbers)",
    "scripts/bench_operators.py": "a benchmark of minutes",
    "scripts.bench_maps": "a benchmark of a 4097² cancel",
    "scripts/build_peers.py": "compiles FastNoise2 and FastNoiseLite from sources not in the repository",
    "scripts/build_extension.py": "downloads the wheels of seven platforms",
    "dask ": "starts a cluster's scheduler or worker",
    "--scheduler tcp://": "needs a running Dask cluster",
    "terrain --preset alpine_ridges --size 2017": "a 58 km landscape at an engine size, ~20 s of CPU each, run "
    "by hand (tests/test_terrain_recipe.py runs the terrain command with every engine and tiles at small sizes)",
    "terrain --preset alpine_ridges --size 1025": "as the 2017 one: ~20 s of CPU",
    "terrain --preset alpine_ridges --size 1024": "as the 2017 one: ~20 s of CPU",
}
"""Commands not run (a text in the command -> why)."""
PYTHON = re.compile(r"^(?:\S*/)?python3?$")
BLENDER_RUN = (
    "import runpy, sys; sys.argv = ['blender', '--background', '--python', *sys.argv[1:]]; "
    "runpy.run_path(sys.argv[3], run_name='__main__')"
)
"""What ``blender --background --python SCRIPT -- ARGS`` does with the script: runs the file by its path."""


@dataclass(frozen=True)
class Step:
    """One thing a document asks to run: ``kind`` is ``python`` (code), ``module`` (``-m`` and its arguments),
    ``process`` (a command of its own), ``file`` (``name`` written with ``text``)."""

    document: str
    line: int
    kind: str
    text: str = ""
    arguments: tuple[str, ...] = ()
    name: str = ""
    blender: bool = False

    @property
    def where(self) -> str:
        return f"{self.document}:{self.line}"


@dataclass(frozen=True)
class Block:
    document: str
    line: int
    info: str
    text: str


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of ``path``: their info string, first line (of the fence) and text."""
    found, inside, lines = [], None, path.read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines, 1):
        fence = re.match(r"^(\s*)```(.*)$", line)
        if fence is None:
            if inside is not None:
                inside[2].append(line)
            continue
        if inside is None:
            inside = (number, fence.group(2).strip(), [])
        else:
            start, info, text = inside
            found.append(Block(path.name if path.parent == ROOT else f"docs/{path.name}", start, info, "\n".join(text)))
            inside = None
    return found


def _commands(block: Block) -> list[tuple[int, str]]:
    """The commands of a shell block with their lines: continuations joined, prompts and comments dropped."""
    commands: list[tuple[int, str]] = []
    pending, start = "", 0
    for offset, raw in enumerate(block.text.split("\n"), block.line + 1):
        line = raw.removeprefix("$ ") if block.info == "console" else raw
        if not pending:
            start = offset
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        text = (pending + line).strip()
        pending = ""
        if text and not text.startswith("#"):
            commands.append((start, text))
    return commands


def _uses_bpy(script: Path) -> bool:
    """Whether the script runs Blender: it imports ``bpy`` or the add-on's start-up (``_blender_addon``)."""
    start_up = r"^import bpy|spec_from_file_location\(\"_blender_addon\""
    return re.search(start_up, script.read_text(encoding="utf-8"), flags=re.M) is not None


def _command_step(block: Block, line: int, command: str) -> Step | None:
    """The step of one shell command, None for a ``SKIPPED`` one; ``AssertionError`` naming the file and line of
    a command of no known form."""
    where = f"{block.document}:{line}"
    if any(text in command for text in SKIPPED):
        return None
    words = shlex.split(command, comments=True)
    while words and re.match(r"^\w+=", words[0]):  # VARIABLE=value prefixes
        words.pop(0)
    if words[:3] == ["blender", "--background", "--python"] and "--" in words:
        script = words[3]
        return Step(block.document, line, "process", arguments=("blender", script, *words[words.index("--") + 1 :]),
                    blender=True)  # fmt: skip
    assert words and PYTHON.match(words[0]), f"{where}: not a command the docs test runs: {command!r}"
    if words[1] == "-m":
        blender = words[2].startswith("scripts.") and _uses_bpy(ROOT / (words[2].replace(".", "/") + ".py"))
        return Step(block.document, line, "module", arguments=tuple(words[2:]), blender=blender)
    assert words[1].startswith("scripts/") and words[1].endswith(".py"), f"{where}: not a script: {command!r}"
    return Step(block.document, line, "process", arguments=("python", *words[1:]), blender=_uses_bpy(ROOT / words[1]))


def steps(path: Path) -> list[Step]:
    """What ``path`` asks to run, in order (the module's docstring); ``AssertionError`` naming the file and line
    of a block without a language or of a command of no known form."""
    found: list[Step] = []
    for block in blocks(path):
        where = f"{block.document}:{block.line}"
        language, _, name = block.info.partition(" ")
        assert language, f"{where}: a fence without a language; label output ```text and commands ```sh"
        if name:
            found.append(Step(block.document, block.line, "file", text=block.text + "\n", name=name.strip()))
        elif language == "python":
            blender = re.search(r"^import bpy", block.text, flags=re.M) is not None
            found.append(Step(block.document, block.line, "python", text=block.text, blender=blender))
        elif language in COMMAND_LANGUAGES:
            found += [step for line, text in _commands(block) if (step := _command_step(block, line, text))]
    return found


def _copy_root(folder: Path) -> Path:
    """A copy of the repository root in ``folder``: its files linked (a command's ``python`` is this interpreter)."""
    for name in LINKED:
        (folder / name).symlink_to(ROOT / name)
    return folder


# --- the runner: ``python -m tests.test_docs_snippets STEPS.json`` in the copy --------------------------------


def _fail(step: Step, what: str) -> None:
    sys.stderr.write(f"{step.where}: {what}\n")
    raise SystemExit(1)


def _run_module(step: Step) -> None:
    saved = sys.argv
    sys.argv = [step.arguments[0], *step.arguments[1:]]
    try:
        runpy.run_module(step.arguments[0], run_name="__main__", alter_sys=True)
    except SystemExit as exit_info:
        if exit_info.code not in (None, 0):
            _fail(step, f"python -m {shlex.join(step.arguments)} exited with {exit_info.code}")
    finally:
        sys.argv = saved


def _run_process(step: Step) -> None:
    program, *rest = step.arguments
    if program == "blender":
        command = [sys.executable, "-c", BLENDER_RUN, rest[0], "--", *rest[1:]]
    else:
        command = [sys.executable, *rest]
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=environment)
    if done.returncode:
        _fail(step, f"{shlex.join(step.arguments)} exited with {done.returncode}:\n{done.stdout[-2000:]}"
                    f"{done.stderr[-4000:]}")  # fmt: skip


BLENDER_PRELUDE = """
import importlib.util, sys
from pathlib import Path
import bpy
import addon_utils  # Blender's own: importable once bpy is
_spec = importlib.util.spec_from_file_location("build_extension", Path("scripts/build_extension.py").resolve())
_build = sys.modules["build_extension"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_build)
_build.stage_extension(Path(bpy.utils.user_resource("EXTENSIONS", path="user_default", create=True)))
bpy.ops.extensions.repo_refresh_all()
addon_utils.enable("bl_ext.user_default.noisewright", default_set=True, handle_error=lambda error: sys.exit(str(error)))
"""
"""What a user has done before a Blender snippet: the extension installed in ``user_default`` and enabled."""


def run_steps(path: Path) -> None:
    """Run the steps recorded in ``path`` (JSON) here, in order; exit 1 naming the first that fails."""
    prepared = False
    for record in json.loads(path.read_text(encoding="utf-8")):
        step = Step(**{**record, "arguments": tuple(record["arguments"])})
        started = time.process_time()
        if step.kind == "file":
            Path(step.name).write_text(step.text, encoding="utf-8")
        elif step.kind == "module":
            _run_module(step)
        elif step.kind == "process":
            _run_process(step)
        else:
            if step.blender and not prepared:
                exec(compile(BLENDER_PRELUDE, "<the extension installed>", "exec"), {})
                prepared = True
            try:
                exec(compile(step.text, step.where, "exec"), {"__name__": "__main__"})
            except Exception:
                _fail(step, "the snippet raised\n" + traceback.format_exc())
        print(f"{step.where}: ran in {time.process_time() - started:.2f} s CPU", flush=True)


# --- the tests ------------------------------------------------------------------------------------------------


def _run_document(document: Path, tmp_path: Path, blender_user: Path | None) -> None:
    blender = blender_user is not None
    chosen = [step for step in steps(document) if step.blender == blender]
    if not chosen:
        pytest.skip(f"{document.name}: no snippet {'needs' if blender else 'runs without'} Blender")
    folder = _copy_root(tmp_path)
    record = tmp_path / "steps.json"
    record.write_text(json.dumps([asdict(step) for step in chosen]), encoding="utf-8")
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    if blender_user is not None:  # one for the session: the extension's kernels compile once
        environment["BLENDER_USER_RESOURCES"] = str(blender_user)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "tests.test_docs_snippets", str(record)],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
        env=environment,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(f"{document.name}: {len(chosen)} snippets in {cpu:.1f} s CPU (its processes)\n{done.stdout}")
    assert done.returncode == 0, done.stderr[-6000:] + done.stdout[-2000:]


@pytest.mark.once_per_run
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_snippets_run_as_written(document: Path, tmp_path: Path) -> None:
    _run_document(document, tmp_path, None)


@pytest.fixture(scope="session")
def blender_user(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A throw-away Blender user folder (``BLENDER_USER_RESOURCES``) for the documents' Blender snippets."""
    return tmp_path_factory.mktemp("docs-blender-user")


@pytest.mark.once_per_run
@pytest.mark.blender
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_blender_snippets_run_as_written(document: Path, tmp_path: Path, blender_user: Path) -> None:
    _run_document(document, tmp_path, blender_user)


def test_every_block_has_a_language_and_every_command_a_form() -> None:
    for document in DOCUMENTS:
        steps(document)  # AssertionError naming the file and line


def test_every_skipped_command_is_still_in_the_docs() -> None:
    commands = [text for document in DOCUMENTS for block in blocks(document)
                if block.info.partition(" ")[0] in COMMAND_LANGUAGES for _, text in _commands(block)]  # fmt: skip
    for text in SKIPPED:
        assert any(text in command for command in commands), f"SKIPPED lists {text!r}, which no document runs"


def test_a_failure_names_the_file_and_line(tmp_path: Path) -> None:
    document = tmp_path / "broken.md"
    document.write_text(
        "Intro\n\n```python\nx = 1\n```\n\n```sh\npython -m noise_core bake --octaves 0 --out x.png\n```\n"
    )
    record = tmp_path / "steps.json"
    record.write_text(json.dumps([asdict(step) for step in steps(document)]), encoding="utf-8")
    root = tmp_path / "root"
    root.mkdir()
    environment = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "tests.test_docs_snippets", str(record)], cwd=_copy_root(root),
                          capture_output=True, text=True, check=False, env=environment)  # fmt: skip
    assert done.returncode == 1
    assert "docs/broken.md:8: python -m noise_core bake --octaves 0 --out x.png exited with 2" in done.stderr
    assert "--octaves: must be between 1 and 16" in done.stderr
    with pytest.raises(AssertionError, match=r"^docs/bare.md:1: a fence without a language"):
        (tmp_path / "bare.md").write_text("```\noutput\n```\n")
        steps(tmp_path / "bare.md")


if __name__ == "__main__":
    run_steps(Path(sys.argv[1]))
