"""Repairing a run: ``harness report RUN --repair`` plays its damaged chunks again.

It sits above both rooms it joins: it reads the run as the report does
(:func:`harness.runfolder.reader.open_run`, which verifies every chunk) and plays what
failed through the runner (:func:`harness.tourney.runner.run_tournament`), with the run's
own config rebuilt from its ``run.json``. The report itself never imports the runner.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.errors import HarnessError, RunFailed, plural, safe_text
from harness.results import Run
from harness.runfolder.reader import ReportError, RunInfo, open_run
from harness.tourney.config import TourneyConfig, load_config
from harness.tourney.grouping import run_key
from harness.tourney.runner import run_tournament
from harness.tourney.storage import RunFolder


@dataclass
class Repair:
    """What :func:`repair_run` found and did: the problems, and the resumed run (or None)."""

    problems: list[str]
    run: Run | None = None  # when the run was resumed


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
    info = open_run(path, check=False)
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
    say(
        f"Repairing {info.path}: verifying every chunk, playing the damaged and missing ones "
        "again from their seeds (the same games, their rows and luck account stored afresh)."
    )
    run = run_tournament(config, out=info.path.parent.parent, workers=workers, echo=say)
    if run.status != "complete":
        failed = "; ".join(f["reason"] for f in run.failed[:1])
        raise RunFailed(
            f"{info.path}: the repaired run is still {run.status}"
            + (f" ({plural(len(run.failed), 'chunk')} failed: {failed})" if failed else "")
            + f"; run `harness report {info.path} --repair` again"
        )
    return Repair(info.problems, run)


def config_from_run(info: RunInfo) -> TourneyConfig:
    """The run's own config (a TourneyConfig), rebuilt from its ``run.json``.

    File plugins are found relative to the config file's folder, as when the run was
    made. The result must plan as the same run (same run key, same folder), or a resume
    would play something else: then one line says why it cannot be repaired.
    """
    c = info.config
    try:
        items = [_entrant_item(e) for e in c["entrants"]]
        data: dict[str, Any] = {
            key: c[key] for key in ("name", "rules", "players", "format", "dice", "seed")
        }
        data["deals"] = c["games"]  # run.json's "games": deals per table (the old name)
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
    # Keys of the run key that older run.json files may lack (their defaults then).
    for key in ("move_time", "game_time", "isolation", "seating", "luck"):
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
    if run_key(config) != c.get("key"):
        raise ReportError(
            f"{info.path}: cannot repair: its config plans another run now (the strategies' "
            "or harness's code, or the config, changed since it was played); "
            "play it again with harness tourney"
        )
    root, name = info.path.parent.parent, str(c["name"])
    found = RunFolder.find(root, name, run_key(config))
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
