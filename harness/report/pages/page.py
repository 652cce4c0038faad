"""The report page's blocks, and writing them as Markdown, HTML or a terminal table.

A page is one list of :class:`Block` (heading, paragraph, list, table, image), written by
:func:`to_markdown` and :func:`to_html`, so that both files always say the same thing. The
HTML embeds every image as base64 PNG and carries its own style (:data:`CSS`): it opens
from disk with no server and no network. Every text is written as text in both: escaped
for HTML or Markdown, its non-printing characters shown escaped.
"""

from __future__ import annotations

import base64
import html
import os
import re
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from harness.errors import printable


# -- blocks ------------------------------------------------------------------------------
@dataclass
class Block:
    kind: str  # h1 h2 p ul table img
    text: str = ""
    items: list[str] | None = None
    header: list[str] | None = None
    rows: list[list[str]] | None = None
    path: Path | None = None
    # How a table fits a terminal (fit_table's keywords: key, left, groups, give_way,
    # fold); the files show every column.
    fit: dict[str, Any] = field(default_factory=dict)


def h1(text: str) -> Block:
    return Block("h1", text)


def h2(text: str) -> Block:
    return Block("h2", text)


def para(text: str) -> Block:
    return Block("p", text)


def bullets(items: list[str]) -> Block:
    return Block("ul", items=items)


def table(header: list[str], rows: list[list[str]], **fit: Any) -> Block:
    """A table; ``fit``: how it fits a terminal (:func:`fit_table`'s keywords)."""
    return Block("table", header=header, rows=rows, fit=fit)


def image(path: Path, alt: str) -> Block:
    return Block("img", alt, path=path)


# -- markdown and HTML -------------------------------------------------------------------
# Markdown that text written by a plugin or a user (display names, exception texts, run
# names) could start: escaped, so that it is shown as written and never rendered as a
# link, an image, emphasis, math, a table cell or HTML (report.md is read in viewers that
# render HTML: a backslash before the "<" of a tag, a comment or an autolink makes it
# text). The report's own text uses none of it ("<0.1%", "p < 0.05" are no tags).
_MD_INLINE = re.compile(r"([\\`*_\[\]|~$#]|<(?=[A-Za-z/!?]))")


_MD_ENTITY = re.compile(r"&(?=#?\w+;)")  # "&lt;" would show as "<": shown as typed


# A quote, a list item, a heading underline or a rule at a line's start:
_MD_BLOCK = re.compile(r"^(\s*)(>|[-+=]+(?=\s|$)|\d+[.)](?=\s|$))")


def _md(text: str, line_start: bool = True) -> str:
    """Plain text as Markdown that shows exactly it (see the escapes above);
    ``line_start`` False for a table cell, which no block marker can start."""
    text = _MD_INLINE.sub(r"\\\1", _MD_ENTITY.sub("&amp;", printable(text)))
    return _MD_BLOCK.sub(_unmarked, text) if line_start else text


def _unmarked(found: re.Match[str]) -> str:
    marker = found.group(2)
    if marker[0].isdigit():  # "1." -> "1\.": the number stays, the list does not
        return found.group(1) + marker[:-1] + "\\" + marker[-1]
    return found.group(1) + "".join("\\" + c for c in marker)


def to_markdown(blocks: list[Block], base: Path) -> str:
    """Markdown; images are linked relative to ``base`` (the report's folder)."""
    lines: list[str] = []
    for b in blocks:
        if b.kind == "h1":
            lines += [f"# {_md(b.text)}", ""]
        elif b.kind == "h2":
            lines += [f"## {_md(b.text)}", ""]
        elif b.kind == "p":
            lines += [_md(b.text), ""]
        elif b.kind == "ul":
            lines += [f"- {_md(item)}" for item in b.items or []] + [""]
        elif b.kind == "table":
            header = b.header or []
            lines.append("| " + " | ".join(_md(h, False) for h in header) + " |")
            lines.append("|" + "|".join("---" for _ in header) + "|")
            for row in b.rows or []:
                lines.append("| " + " | ".join(_md(c, False) for c in row) + " |")
            lines.append("")
        elif b.kind == "img" and b.path is not None:
            lines += [f"![{_md(b.text)}]({b.path.relative_to(base).as_posix()})", ""]
    return "\n".join(lines).rstrip() + "\n"


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1300px;
margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;border-bottom:2px solid #ddd;padding-bottom:.3em}
h2{font-size:1.25em;margin-top:1.8em;border-bottom:1px solid #eee;padding-bottom:.2em}
table{border-collapse:collapse;margin:.8em 0;font-size:.82em}
th,td{border:1px solid #ddd;padding:.22em .42em;text-align:right;white-space:nowrap}
th.t,td.t{text-align:left}
.wide{overflow-x:auto;max-width:100%}
th{background:#f4f4f4}
tr:nth-child(even) td{background:#fafafa}
img{max-width:100%;height:auto;display:block;margin:1em 0}
ul{padding-left:1.3em}
"""


# A cell that reads as a number: a figure, a signed one, a share, a count; a dash.
_NUMBER_CELL = re.compile(r"^(—|[<>]?[+\-−]?\d[\d,]*(\.\d+)?.*)$")


def _text_columns(header: list[str], rows: list[list[str]]) -> list[bool]:
    """Which columns hold words (flush left, as text is read), not figures (flush right,
    so that digits line up): the first column always, then any with a cell that does not
    start as a number."""
    return [
        i == 0 or any(not _NUMBER_CELL.match(str(row[i])) for row in rows if i < len(row))
        for i in range(len(header))
    ]


def to_html(blocks: list[Block], title: str) -> str:
    """One self-contained HTML page: inline style, plots embedded as base64 PNG."""

    def esc(text: str) -> str:
        return html.escape(printable(text))

    body: list[str] = []
    for b in blocks:
        if b.kind in ("h1", "h2"):
            body.append(f"<{b.kind}>{esc(b.text)}</{b.kind}>")
        elif b.kind == "p":
            body.append(f"<p>{esc(b.text)}</p>")
        elif b.kind == "ul":
            body.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in b.items or []) + "</ul>")
        elif b.kind == "table":
            text = _text_columns(b.header or [], b.rows or [])
            head = "".join(
                f"<th{' class=t' if text[i] else ''}>{esc(h)}</th>"
                for i, h in enumerate(b.header or [])
            )
            rows = "".join(
                "<tr>"
                + "".join(
                    f"<td{' class=t' if text[i] else ''}>{esc(c)}</td>" for i, c in enumerate(row)
                )
                + "</tr>"
                for row in b.rows or []
            )
            # In a scrolling box: a wide table scrolls instead of wrapping its cells.
            body.append(
                f'<div class="wide"><table><thead><tr>{head}</tr></thead>'
                f"<tbody>{rows}</tbody></table></div>"
            )
        elif b.kind == "img" and b.path is not None:
            data = base64.b64encode(b.path.read_bytes()).decode("ascii")
            body.append(f'<img alt="{esc(b.text)}" src="data:image/png;base64,{data}">')
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def text_table(header: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    """Lines of a plain-text table for the terminal; the first ``left`` columns flush left."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            str(c).ljust(w) if i < left else str(c).rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    return [line(header), line(["-" * w for w in widths])] + [line(r) for r in rows]


# -- the terminal's width ------------------------------------------------------------------
DEFAULT_WIDTH = 100  # what every terminal table fits when the width is not known
MIN_WIDTH = 40


def terminal_width(stream: TextIO | None = None) -> int:
    """The width the terminal's text fits: ``COLUMNS`` when set (the shell's word for it,
    honoured in a pipe too: ``COLUMNS=160 harness tourney ... | less``), else the width
    of the terminal ``stream`` (stdout) writes to, else :data:`DEFAULT_WIDTH` (a pipe, a
    file, a test); never below :data:`MIN_WIDTH`."""
    given = os.environ.get("COLUMNS", "").strip()
    if given.isdigit() and int(given) > 0:
        return max(MIN_WIDTH, int(given))
    stream = sys.stdout if stream is None else stream
    try:
        if stream.isatty():
            return max(MIN_WIDTH, os.get_terminal_size(stream.fileno()).columns)
    except (AttributeError, OSError, ValueError):  # no file descriptor, or not a terminal
        pass
    return DEFAULT_WIDTH


def wrap(text: str, width: int, indent: str = "", more: str = "  ") -> list[str]:
    """A line of prose in lines of at most ``width`` columns: the first starts with
    ``indent`` (spaces, or a bullet such as ``"- "``), the others are indented as far and
    ``more`` further; paths and numbers are never split."""
    rest = " " * len(indent) + more
    return textwrap.wrap(
        text,
        width=max(width, len(rest) + 20),
        initial_indent=indent,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [indent.rstrip()]


def fit_table(
    header: list[str],
    rows: list[list[str]],
    width: int,
    *,
    key: int = 1,
    left: int = 1,
    groups: Sequence[Sequence[int]] = (),
    give_way: Sequence[tuple[str, Sequence[int]]] = (),
    fold: Sequence[int] = (),
    said: int | None = None,
) -> list[str]:
    """A terminal table in at most ``width`` columns (:func:`text_table`'s style).

    Too wide, it first folds each column of ``fold`` whose cells are all the same into a
    line above it (``compared: paired, 300 deals (every row)``); then leaves out the
    columns of ``give_way``, a (name, column indices)
    at a time in its order, until it fits, and says below it which it left out (a wider
    terminal, or the report, shows them); then, if it still does not fit, it is cut into
    several tables one under the other, each with the ``key`` leading columns (the
    strategy, say) and as many of the rest as fit, never splitting a group of ``groups``
    (a difference and its interval). Nothing is cut when even one group does not fit.
    ``said``: the width the note names (the terminal's, when the table is indented).
    """
    sizes = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]

    def span_of(columns: Sequence[int]) -> int:
        return sum(sizes[c] for c in columns) + 2 * max(len(columns) - 1, 0)

    shown = list(range(len(header)))
    above = []
    for c in fold:
        if span_of(shown) <= width or not rows or len({row[c] for row in rows}) > 1:
            continue
        shown.remove(c)
        above.append(f"{header[c]}: {rows[0][c]}")
    left_out = []
    for name, columns in give_way:
        if span_of(shown) <= width:
            break
        if any(c in shown for c in columns):
            shown = [c for c in shown if c not in columns]
            left_out.append(name)
    keys = [c for c in shown if c < key]
    grouped = {c: g for g in groups for c in g}
    units: list[list[int]] = []  # the rest, in order, a group at a time
    for c in shown[len(keys) :]:
        if units and c in grouped and grouped[c] is grouped.get(units[-1][-1]):
            units[-1].append(c)
        else:
            units.append([c])
    blocks: list[list[int]] = [[]]
    for unit in units:
        if blocks[-1] and span_of(keys + blocks[-1] + unit) > width:
            blocks.append([])
        blocks[-1] += unit
    lines: list[str] = wrap("; ".join(above) + " (every row)", width) if above else []
    for n, block in enumerate(blocks):
        cols = keys + block
        if n:
            lines.append("")
        lines += text_table(
            [header[c] for c in cols],
            [[row[c] for c in cols] for row in rows],
            left=sum(1 for c in cols if c < left),
        )
    if left_out:
        note = f"(left out to fit {said or width} columns: {', '.join(left_out)}; a wider terminal "
        lines += wrap(note + "shows them)", width)
    return lines


def terminal_lines(blocks: list[Block], width: int, indent: str = "  ") -> list[str]:
    """Blocks as the terminal shows them in ``width`` columns: a heading as a line ending
    in a colon, prose wrapped, a list as dashes, a table fitted (:func:`fit_table`, with
    its block's ``fit``) and indented; images are left out."""
    out: list[str] = []
    for b in blocks:
        if b.kind in ("h1", "h2"):
            out += wrap(f"{b.text}:", width)
        elif b.kind == "p":
            out += wrap(b.text, width, indent)
        elif b.kind == "ul":
            for item in b.items or []:
                out += wrap(item, width, indent + "- ", more="")
        elif b.kind == "table" and b.header:
            inner = width - len(indent)
            lines = fit_table(b.header, b.rows or [], inner, said=width, **b.fit)
            out += [indent + line if line else "" for line in lines]
    return out
