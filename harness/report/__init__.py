"""Reports on tournament runs: statistics, plots and the report files of a run folder.

The room reads stored results only (``run.json`` and ``games/*.parquet``, see
:mod:`harness.runfolder`); it never imports the runner. The runner calls
:func:`write_report` at the end of ``harness tourney``::

    from harness.report import write_report
    report = write_report("results/round_robin/<run id>")
    report.html, report.summary["standings"]

Rooms: :mod:`~.aggregate` (reading games into fixed-size sums), :mod:`~.summary` (the
numbers; the gauntlet's and the mirror matches' sections in :mod:`~.summary_gauntlet` and
:mod:`~.summary_mirrors`), :mod:`~.paired` (paired differences), :mod:`~.plots` (the
charts: one run's in :mod:`~.run_charts`, a comparison's in :mod:`~.compare_charts`, their
shared style in :mod:`~.chart_style`; with :mod:`~.colours`, the strategies' colours, and
:mod:`~.order`, the one order of charts and comparisons), :mod:`~.render` (markdown and
HTML: :mod:`~.formats` for numbers, :mod:`~.page` for the blocks and their writers,
:mod:`~.run_page` and :mod:`~.compare_page` for the two reports), :mod:`~.compare`
(several runs). :mod:`~.plots`, :mod:`~.render` and :mod:`~.summary` re-export their
parts' public names. The commands are :mod:`harness.commands.report`. The statistics
themselves are the ground floor's, :mod:`harness.stats`, shared with ``harness sprt``.
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

__all__ = ["Report", "ReportError", "cached_summary", "summarise_run", "write_report"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:  # a submodule: harness.report.summary and friends
        try:
            return importlib.import_module(f"harness.report.{name}")
        except ModuleNotFoundError:
            raise AttributeError(f"module 'harness.report' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from harness.report.api import Report, cached_summary, summarise_run, write_report
    from harness.runfolder.reader import ReportError
