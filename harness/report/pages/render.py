"""Turning a run summary into ``report.md`` and a self-contained ``report.html``.

Both come from one list of blocks (heading, paragraph, list, table, image), so they
always say the same thing. The HTML embeds every plot as base64 PNG and carries its own
style: it opens from disk with no server and no network. Every text is written as text
in both: escaped for HTML or Markdown, its non-printing characters shown escaped.

This module is the rendering's face; its parts: :mod:`~.formats` (numbers as text, a dash
for an undefined one), :mod:`~.page` (the blocks, and writing them as Markdown, HTML or a
terminal table), :mod:`~.run_page` (a run's report, and its rows the terminal shares) and
:mod:`~.compare_page` (the comparison of several runs). Every name is importable from here.
"""

from __future__ import annotations

from harness.report.pages.compare_page import (
    compare_blocks,
    compare_legend,
    compare_notes,
    compared_how,
    diff_cells,
    luck_cells,
    pair_cells,
)
from harness.report.pages.formats import DASH, count, los_text, num, pct, points, signed_span, span
from harness.report.pages.page import (
    CSS,
    Block,
    bullets,
    fit_table,
    h1,
    h2,
    image,
    para,
    table,
    terminal_width,
    text_table,
    to_html,
    to_markdown,
    wrap,
)
from harness.report.pages.run_page import (
    FORFEIT_HEADER,
    TIMING_HEADER,
    forfeit_rows,
    gauntlet_blocks,
    output_lines,
    report_blocks,
    reproduce_hint,
    standings_lines,
    timing_notes,
    timing_rows,
)

__all__ = [
    "Block",
    "CSS",
    "DASH",
    "FORFEIT_HEADER",
    "TIMING_HEADER",
    "bullets",
    "compare_blocks",
    "compare_legend",
    "compare_notes",
    "compared_how",
    "count",
    "diff_cells",
    "forfeit_rows",
    "gauntlet_blocks",
    "h1",
    "h2",
    "image",
    "los_text",
    "luck_cells",
    "num",
    "output_lines",
    "pair_cells",
    "para",
    "pct",
    "points",
    "report_blocks",
    "reproduce_hint",
    "signed_span",
    "span",
    "standings_lines",
    "table",
    "fit_table",
    "terminal_width",
    "text_table",
    "wrap",
    "timing_notes",
    "timing_rows",
    "to_html",
    "to_markdown",
]
