"""Reports on tournament runs: statistics, plots and the report files of a run folder.

The room reads stored results only (``run.json`` and ``games/*.parquet``, see
:mod:`harness.runfolder`); it never imports the runner. The runner calls
:func:`write_report` at the end of ``harness tourney``::

    from harness.report import write_report
    report = write_report("results/round_robin/<run id>")
    report.html, report.summary["standings"]

Sub-rooms, each named for what it holds:

* :mod:`~.summaries`: the numbers. ``aggregate`` (reading games into fixed-size sums),
  ``summary`` (the one JSON-ready summary; re-exports its parts' public names), with the
  gauntlet's and the mirror matches' sections (``summary_gauntlet``,
  ``summary_mirrors``), the luck-adjusted estimates (``luck``) and the entrants that
  played the same games (``same_games``).
* :mod:`~.charts`: the pictures. ``plots`` (the face: every chart of a report), one
  run's (``run_charts``, ``luck_charts``), a comparison's (``compare_charts``), their
  shared style (``chart_style``) and the strategies' colours (``colours``).
* :mod:`~.pages`: the words. ``render`` (report.md and report.html; re-exports its
  parts), ``formats`` for numbers, ``page`` for the blocks and their writers (Markdown,
  HTML, the terminal's tables and width), ``run_page`` and ``compare_page`` for the two
  reports, ``standings_text`` (the one terminal standings table).
* :mod:`~.comparisons`: several runs. ``compare`` (what they share and what differs),
  ``compare_twins`` (which games are twins), ``paired`` (paired differences by deal).

Beside them: :mod:`~.api` (:func:`write_report` and the cached summary: this face's
names), :mod:`~.files` (atomic writes) and :mod:`~.order` (the one order of charts and
comparisons). The commands are :mod:`harness.commands.report`. The statistics
themselves are the ground floor's, :mod:`harness.stats`, shared with ``harness sprt``.
``harness.report.<module>`` of the flat room before the sub-rooms still reaches the
module (``harness.report.summary``); ``harness.report.colours`` is importable as well, as
docs/report.md named it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "Report": "harness.report.api",
    "cached_summary": "harness.report.api",
    "summarise_run": "harness.report.api",
    "write_report": "harness.report.api",
    "ReportError": "harness.runfolder.reader",
}

# The flat modules' old names (harness.report.summary) and the sub-room each moved into.
_ROOMS = {
    "summaries": (
        "aggregate",
        "summary",
        "summary_gauntlet",
        "summary_mirrors",
        "luck",
        "same_games",
    ),
    "charts": ("plots", "chart_style", "run_charts", "luck_charts", "compare_charts", "colours"),
    "pages": ("render", "page", "formats", "run_page", "compare_page", "standings_text"),
    "comparisons": ("compare", "compare_twins", "paired"),
}
_MOVED = {name: f"{room}.{name}" for room, names in _ROOMS.items() for name in names}

__all__ = ["Report", "ReportError", "cached_summary", "summarise_run", "write_report"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:  # a submodule (harness.report.summaries), or a flat module's old name
        try:
            return importlib.import_module(f"harness.report.{_MOVED.get(name, name)}")
        except ModuleNotFoundError:
            raise AttributeError(f"module 'harness.report' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from harness.report.api import Report, cached_summary, summarise_run, write_report
    from harness.runfolder.reader import ReportError
