"""Writing a run's report: the summary, the plots and report.md/.html/.json.

Imported on first use through :mod:`harness.report`, so that commands which never
report do not pay for pandas and scipy.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.report.aggregate import Progress, load_run
from harness.report.aggregate import aggregate as aggregate_games
from harness.report.files import write_text_atomic
from harness.report.summary import SUMMARY_VERSION, summarise

PLOTS_DIR = "plots"


@dataclass
class Report:
    """What :func:`write_report` wrote: the summary and the files' paths."""

    summary: dict[str, Any]
    folder: Path
    markdown: Path
    html: Path
    json: Path
    plots: dict[str, Path] = field(default_factory=dict)


def summarise_run(path: str | Path, progress: Progress | None = None) -> dict[str, Any]:
    """The summary of a run folder (read fresh from its games), with its fingerprint."""
    info = load_run(path)
    summary = summarise(aggregate_games(info, progress))
    summary["fingerprint"] = info.fingerprint()
    return summary


def cached_summary(path: str | Path, progress: Progress | None = None) -> dict[str, Any]:
    """The run's ``report.json`` if it is current (same games, same format), else fresh."""
    info = load_run(path)
    cached = info.path / "report.json"
    if cached.is_file():
        try:
            data = json.loads(cached.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        if (
            isinstance(data, dict)
            and data.get("summary_version") == SUMMARY_VERSION
            and data.get("fingerprint") == json.loads(json.dumps(info.fingerprint()))
        ):
            return data
    return summarise_run(info.path, progress)


def write_report(
    path: str | Path, progress: Progress | None = None, *, plots: bool = True
) -> Report:
    """Write ``report.md``, ``report.html``, ``report.json`` and ``plots/*.png`` into a run.

    Idempotent: the same games give the same files. Every file is written atomically
    (temporary file + rename); plots a run no longer has data for are removed.
    """
    from harness.report.plots import PLOTS, plot_all
    from harness.report.render import report_blocks, to_html, to_markdown

    info = load_run(path)
    summary = summarise_run(info.path, progress)
    folder = info.path
    plot_dir = folder / PLOTS_DIR
    made = plot_all(summary, plot_dir) if plots else {}
    for name in PLOTS:
        stale = plot_dir / f"{name}.png"
        if name not in made and stale.exists():
            stale.unlink()
    blocks = report_blocks(summary, made)
    title = f"{summary['run']['name']} / {summary['run']['run_id']}"
    md = write_text_atomic(folder / "report.md", to_markdown(blocks, folder))
    page = write_text_atomic(folder / "report.html", to_html(blocks, f"Report: {title}"))
    data = write_text_atomic(
        folder / "report.json", json.dumps(summary, indent=1, sort_keys=False) + "\n"
    )
    return Report(summary, folder, md, page, data, made)
