"""Every link and picture in README.md and docs/ points at a file (and heading) that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _without_code(text: str) -> str:
    """The text with fenced code blocks and inline code removed (links there are not links)."""
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return re.sub(r"`[^`\n]*`", "", text)


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {_slug(match) for match in re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)}


def _links(page: Path) -> list[str]:
    return [target for target in LINK.findall(_without_code(page.read_text(encoding="utf-8")))]


def test_the_pages_have_links() -> None:
    assert (ROOT / "docs" / "noise-library.md") in PAGES
    assert len(_links(ROOT / "README.md")) >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_link_and_picture_exists(page: Path) -> None:
    broken = []
    for target in _links(page):
        if re.match(r"^[a-z]+:", target):  # https:, mailto:
            continue
        path_part, _, anchor = target.partition("#")
        resolved = (page.parent / path_part).resolve() if path_part else page
        if not resolved.exists():
            broken.append(f"{target}: no such file")
        elif anchor and resolved.suffix == ".md" and anchor not in _anchors(resolved):
            broken.append(f"{target}: no heading with that anchor")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_slug_rule() -> None:
    assert _slug("Cache, threads and numba versions") == "cache-threads-and-numba-versions"
    assert _slug("4D noise and seamless loops") == "4d-noise-and-seamless-loops"
    assert _slug("`python -m noise_core bake`") == "python--m-noise_core-bake"


def test_the_landscape_history_index_lists_every_section() -> None:
    """docs/landscape-history.md's "By preset" index links every section of the page (a new section is found)."""
    text = (ROOT / "docs" / "landscape-history.md").read_text(encoding="utf-8")
    index, _, sections = text.partition("## The presets, in order")
    listed = {target.lstrip("#") for target in LINK.findall(_without_code(index.partition("## By preset")[2]))}
    headings = {_slug(title) for title in re.findall(r"^### (.+)$", sections, flags=re.MULTILINE)}
    assert headings, "no sections found after '## The presets, in order'"
    assert headings - listed == set(), f"sections missing from the index: {sorted(headings - listed)}"
