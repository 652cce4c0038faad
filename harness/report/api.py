"""Writing a run's report: the summary, the plots and report.md/.html/.json; repairing a run.

Imported on first use through :mod:`harness.report`, so that commands which never
report do not pay for pandas and scipy. A report is only ever made of verified chunks
(:func:`harness.report.aggregate.load_run`); :func:`repair_run` is ``harness report
--repair``: it plays damaged chunks again through the runner, with the run's own config.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from harness.errors import HarnessError, RunFailed, safe_text
from harness.report.aggregate import Progress, ReportError, RunInfo, load_run
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


def summarise_run(path: str | Path | RunInfo, progress: Progress | None = None) -> dict[str, Any]:
    """The summary of a run folder (read fresh from its verified games), with its fingerprint."""
    info = path if isinstance(path, RunInfo) else load_run(path)
    summary = summarise(aggregate_games(info, progress))
    summary["fingerprint"] = info.fingerprint()
    return summary


def cached_summary(path: str | Path, progress: Progress | None = None) -> dict[str, Any]:
    """The run's ``report.json`` if it is current (same games, same format), else fresh.

    The chunks are verified either way (load_run): a cached report of a run whose chunks
    were damaged since is never handed out as the run's numbers.
    """
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
    return summarise_run(info, progress)


def write_report(
    path: str | Path, progress: Progress | None = None, *, plots: bool = True
) -> Report:
    """Write ``report.md``, ``report.html``, ``report.json`` and ``plots/*.png`` into a run.

    Idempotent: the same games give the same files. Every file is written atomically
    (temporary file + rename); plots a run no longer has data for are removed. A folder
    that cannot be written (read-only, disk full) is one line; what was there stays.
    """
    from harness.report.plots import PLOTS, plot_all
    from harness.report.render import report_blocks, to_html, to_markdown

    info = load_run(path)
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
        data = write_text_atomic(
            folder / "report.json", json.dumps(summary, indent=1, sort_keys=False) + "\n"
        )
    except OSError as exc:
        from harness.tourney.storage import describe_os_error

        raise describe_os_error(exc, exc.filename or folder, "write the report") from None
    return Report(summary, folder, md, page, data, made)


# -- repair: play damaged chunks again -----------------------------------------------------
@dataclass
class Repair:
    """What :func:`repair_run` found and did: the problems, and the resumed run (or None)."""

    problems: list[str]
    run: Any = None  # harness.tourney.runner.TourneyRun, when the run was resumed


def repair_run(path: str | Path, *, echo: Any = None, workers: int | None = None) -> Repair:
    """Verify every stored chunk of a run; play again each that fails, then finish the run.

    The damaged chunks are dropped by the runner's own resume (which verifies every chunk
    it keeps, exactly as the report does) and played again through
    :func:`harness.tourney.runner.run_tournament` with the run's own config, rebuilt from
    its ``run.json``; nothing is done when every chunk verifies and the run is complete.
    Raises ReportError when the config cannot be rebuilt as the same run (the strategies'
    or harness's code changed since), RunFailed when the resumed run does not complete.
    """
    say = echo or (lambda text: None)
    info = load_run(path, check=False)
    if not info.verified:
        raise ReportError(
            f"{info.path}: not a folder harness tourney wrote (run.json has no run_format): "
            "there is no manifest to repair it from"
        )
    status = info.config.get("status")
    if not info.problems and status == "complete":
        say(f"Nothing to repair: every stored chunk of {info.path} verifies.")
        return Repair([])
    for problem in info.problems[:10]:
        say(f"damaged: {problem}")
    if len(info.problems) > 10:
        say(f"... and {len(info.problems) - 10} more")
    config = config_from_run(info)
    from harness.tourney.runner import run_tournament

    say(f"Repairing {info.path}: verifying every chunk, playing the damaged and missing ones.")
    run = run_tournament(config, out=info.path.parent.parent, workers=workers, echo=say)
    if run.status != "complete":
        failed = "; ".join(f["reason"] for f in run.failed[:1])
        raise RunFailed(
            f"{info.path}: the repaired run is still {run.status}"
            + (f" ({len(run.failed)} chunk(s) failed: {failed})" if failed else "")
            + f"; run `harness report {info.path} --repair` again"
        )
    return Repair(info.problems, run)


def config_from_run(info: RunInfo) -> Any:
    """The run's own config (a TourneyConfig), rebuilt from its ``run.json``.

    File plugins are found relative to the config file's folder, as when the run was
    made. The result must plan as the same run (same run key, same folder), or a resume
    would play something else: then one line says why it cannot be repaired.
    """
    from harness.tourney import plan
    from harness.tourney.config import load_config
    from harness.tourney.storage import RunFolder

    c = info.config
    try:
        items = [_entrant_item(e) for e in c["entrants"]]
        data: dict[str, Any] = {
            key: c[key] for key in ("name", "rules", "players", "format", "dice", "games", "seed")
        }
        data["max_turns"] = c["max_turns"]
        data["chunk"] = c["chunk"]
        if c["format"] == "gauntlet":
            data["challenger"], data["entrants"] = items[0], items[1:]
        else:
            data["entrants"] = items
    except (KeyError, TypeError, IndexError) as exc:
        raise ReportError(
            f"{info.path}/run.json: cannot rebuild the run's config from it (no {exc}); "
            "play it again with harness tourney"
        ) from None
    for key in ("move_time", "game_time", "isolation"):
        if c.get(key) is not None:
            data[key] = c[key]
    # File plugins are relative to the config file's folder (a mapping config: the cwd).
    source = c.get("config_file")
    base = Path(source).parent if isinstance(source, str) and source != "config" else Path()
    try:
        with contextlib.chdir(base if base.is_dir() else Path()):
            config = load_config(data)
    except HarnessError as exc:
        raise ReportError(
            f"{info.path}: cannot repair: the run's config no longer loads ({safe_text(exc)})"
        ) from None
    if isinstance(source, str):
        config = replace(config, source=source)
    if plan.run_key(config) != c.get("key"):
        raise ReportError(
            f"{info.path}: cannot repair: its config plans another run now (the strategies' "
            "or harness's code, or the config, changed since it was played); "
            "play it again with harness tourney"
        )
    root, name = info.path.parent.parent, str(c["name"])
    found = RunFolder.find(root, name, plan.run_key(config))
    if found is None or os.path.realpath(found) != os.path.realpath(info.path):
        raise ReportError(
            f"{info.path}: cannot repair: harness tourney would resume "
            f"{found or 'a new folder'} for this config instead (the folder was moved or "
            "renamed, or a newer run of the same config is there)"
        )
    return config


def _entrant_item(identity: dict[str, Any]) -> dict[str, Any]:
    """A config entrant from its run.json identity: the reference as written, name, params."""
    item: dict[str, Any] = {"strategy": identity["ref"], "name": identity["name"]}
    if identity.get("params"):
        item["params"] = dict(identity["params"])
    return item
