"""Every relative link of the README and the docs resolves: the file exists, and a
``#anchor`` names a heading of the page it points to (as GitHub spells heading anchors);
and every repository path the pages quote as code (`harness/seating.py`) exists.

A guide that moves, a heading that is renamed or a module that moves breaks the docs
silently otherwise.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "benchmarks").glob("*.md")]
)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
CODE = re.compile(r"(`+).*?\1", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", re.M)
TOP = "harness|configs|tests|benchmarks|examples|docs"
QUOTED = re.compile(rf"`((?:{TOP})/[^`\s]*)`")
PLACEHOLDER = re.compile(r"[<>*{}]|\.\.\.|-N\b")


def _prose(text: str) -> str:
    """The page without its code: fenced blocks and inline code spans hold no links."""
    return CODE.sub("", FENCE.sub("", text))


def anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the headings of a Markdown page."""
    seen: dict[str, int] = {}
    found = set()
    for title in HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8"))):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)  # a link keeps its text
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def links(page: Path) -> list[str]:
    return LINK.findall(_prose(page.read_text(encoding="utf-8")))


def broken(page: Path) -> list[str]:
    bad = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: ...
            continue
        path, _, anchor = target.partition("#")
        where = (page.parent / path).resolve() if path else page
        if not where.exists():
            bad.append(f"{target}: no such file")
        elif anchor and where.suffix == ".md" and anchor not in anchors(where):
            bad.append(f"{target}: no heading #{anchor} in {where.name}")
    return bad


def missing_paths(page: Path, root: Path = ROOT) -> list[str]:
    """Repository paths quoted as code on the page (`harness/seating.py`, a `file.py:Class`
    reference) that do not exist; placeholders (`<run id>`, `*.parquet`) are skipped."""
    gone = []
    for quoted in QUOTED.findall(page.read_text(encoding="utf-8")):
        path = re.split(r"[:(]", quoted)[0].rstrip(".,;")
        if not PLACEHOLDER.search(path) and not (root / path).exists():
            gone.append(path)
    return gone


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert broken(page) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_quoted_repository_path_exists(page):
    assert missing_paths(page) == []


def test_the_checker_sees_a_broken_link_and_a_broken_anchor(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## A `code` heading: too\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n[ok](other.md#a-code-heading-too) [self](#page) [gone](missing.md)\n"
        "[bad anchor](other.md#nowhere) `[in code](missing.md)`\n\n"
        "```\n[in a fence](missing.md)\n```\n"
    )
    assert broken(page) == [
        "missing.md: no such file",
        "other.md#nowhere: no heading #nowhere in other.md",
    ]


def test_the_path_check_sees_a_moved_module(tmp_path):
    (tmp_path / "harness").mkdir()
    (tmp_path / "harness" / "here.py").write_text("")
    page = tmp_path / "page.md"
    page.write_text(
        "`harness/here.py` `harness/here.py:Class` `harness/gone.py`, "
        "`results/<name>/<run id>/` `harness/*.py` `examples/example-N.json`\n"
    )
    assert missing_paths(page, tmp_path) == ["harness/gone.py"]
