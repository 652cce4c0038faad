"""Writing a run's report: the summary, the plots and report.md/.html/.json.

Imported on first use through :mod:`harness.report`, so that commands which never
report do not pay for pandas and scipy. A report is only ever made of verified chunks
(:func:`harness.runfolder.reader.open_run`). Repairing a run (``harness report
--repair``) plays chunks, so it lives above the runner: :mod:`harness.tourney.repair`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.jsonsafe import loads_bounded
from harness.report.files import write_text_atomic
from harness.report.summaries.aggregate import aggregate as aggregate_games
from harness.report.summaries.summary import SUMMARY_VERSION, summarise
from harness.runfolder.reader import ProgressCallback, RunInfo, open_run

PLOTS_DIR = "plots"
#: report.json's own check: a sha256 of the rest of its content. A report.json is a cache
#: of numbers that compare, Run.report and --no-report serve without reading the games,
#: so a damaged one (a flipped bit in a win share, a file cut short, an edit by a program
#: that does not know the digest) must never be served. The digest has no key: whoever
#: can write the folder can edit a number and seal it again, and that is not what it
#: guards against; ``recount`` (``harness compare --recount``, ``open_run(path,
#: recount=True)``) counts the numbers afresh from the verified games instead.
DIGEST_KEY = "digest"


def summary_digest(summary: dict[str, Any]) -> str:
    """The digest of a summary as report.json holds it: its JSON (keys sorted, the digest
    left out) after a JSON round trip, so the written and the read summary agree."""
    plain = json.loads(json.dumps(summary))
    plain.pop(DIGEST_KEY, None)
    text = json.dumps(plain, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class Report:
    """What :func:`write_report` wrote: the summary and the files' paths."""

    summary: dict[str, Any]
    folder: Path
    markdown: Path
    html: Path
    json: Path
    plots: dict[str, Path] = field(default_factory=dict)


def summarise_run(
    path: str | Path | RunInfo, progress: ProgressCallback | None = None
) -> dict[str, Any]:
    """The summary of a run folder (read fresh from its verified games), with its fingerprint."""
    info = path if isinstance(path, RunInfo) else open_run(path)
    summary = summarise(aggregate_games(info, progress))
    summary["fingerprint"] = info.fingerprint()
    return summary


def cached_summary(
    path: str | Path, progress: ProgressCallback | None = None, *, recount: bool = False
) -> dict[str, Any]:
    """The run's ``report.json`` if it is current (same games, same format) and whole
    (its digest matches its content), else fresh; always fresh with ``recount``.

    The chunks are verified either way (open_run): a cached report of a run whose chunks
    were damaged since is never handed out as the run's numbers, nor one whose own
    content was damaged (:data:`DIGEST_KEY`: not a deliberate edit sealed again, which
    only ``recount`` rules out); a report.json written before it had a digest is not
    served either.
    """
    info = open_run(path)
    data = None if recount else current_summary(info)
    return data if data is not None else summarise_run(info, progress)


def current_summary(info: RunInfo) -> dict[str, Any] | None:
    """The verified run's ``report.json`` if it is current (same games, same format) and
    whole (its digest matches), else None: nothing is counted."""
    cached = info.path / "report.json"
    if not cached.is_file():
        return None
    try:
        data = loads_bounded(cached.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # unreadable or nested too deep: not served
        return None
    if (
        isinstance(data, dict)
        and data.get("summary_version") == SUMMARY_VERSION
        and data.get("fingerprint") == json.loads(json.dumps(info.fingerprint()))
        and data.get(DIGEST_KEY) == summary_digest(data)
    ):
        del data[DIGEST_KEY]
        return data
    return None


REPORT_ATTEMPTS = 3
"""Times a report is written before it is left as it is while its run goes on."""


def write_report(
    path: str | Path, progress: ProgressCallback | None = None, *, plots: bool = True
) -> Report:
    """Write ``report.md``, ``report.html``, ``report.json`` and ``plots/*.png`` into a run.

    Idempotent: the same games give the same files. Every file is written atomically
    (temporary file + rename); plots a run no longer has data for are removed. A folder
    that cannot be written (read-only, disk full) is one line; what was there stays.

    A run that changed while its report was written (a run in progress that ended
    meanwhile and wrote its own report) is reported again, so that what is left is never
    an older report over a newer one: the run's files are looked at again after the
    report's are written (up to :data:`REPORT_ATTEMPTS` times; a run still going on then
    keeps a report that says it is not complete).
    """
    for _ in range(REPORT_ATTEMPTS):
        info = open_run(path)
        seen = _state(info)
        report = _write_once(info, progress, plots)
        if seen is not None and _state(info) == seen:
            break
    return report


def _state(info: RunInfo) -> list[list[Any]] | None:
    """The run's files as they are now (None: one went away, so the run changed)."""
    try:
        return info.fingerprint()
    except OSError:
        return None


def _write_once(info: RunInfo, progress: ProgressCallback | None, plots: bool) -> Report:
    from harness.report.charts.plots import PLOTS, plot_all
    from harness.report.pages.render import report_blocks, to_html, to_markdown

    summary = summarise_run(info, progress)
    folder = info.path
    try:
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
        sealed = {**summary, DIGEST_KEY: summary_digest(summary)}
        data = write_text_atomic(
            folder / "report.json", json.dumps(sealed, indent=1, sort_keys=False) + "\n"
        )
    except OSError as exc:
        from harness.runfolder.layout import describe_os_error

        raise describe_os_error(exc, exc.filename or folder, "write the report") from None
    return Report(summary, folder, md, page, data, made)
