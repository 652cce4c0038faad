"""run.json's content: what a run folder says of its run (the begin and sum-up phases
of a run write it: "running", then its status and summary)."""

from __future__ import annotations

import platform
import time
from typing import Any

from harness import __version__
from harness.runfolder import schema
from harness.tourney import plan
from harness.tourney.config import TourneyConfig
from harness.tourney.grouping import GroupedPlan
from harness.tourney.storage import RunFolder


def run_json(
    config: TourneyConfig,
    folder: RunFolder,
    the_plan: plan.Plan | GroupedPlan,
    status: str,
    created: str,
    summary: dict[str, Any] | None = None,
    engine_used: dict[str, int] | None = None,
    tables_file: dict[str, Any] | None = None,
) -> dict[str, Any]:
    tables, engines = the_plan.tables, the_plan.engines
    grouped = {"tables_per_chunk": config.tables_per_chunk} if tables_file is not None else {}
    return {
        "name": config.name,
        "run_id": folder.path.name,
        "key": the_plan.run_key,
        "status": status,
        "created": created,
        "updated": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "config_file": config.source,
        "version": __version__,
        "python": platform.python_version(),
        "engine": plan.engine_digest(),
        "engine_choice": config.settings.engine,
        # Chunks of this folder played by each engine, over every call (not reused ones).
        "engine_used": dict(engine_used or {}),
        "schema": schema.SCHEMA_VERSION,
        "rules": config.rules.to_dict(),
        "players": config.players,
        "format": config.format,
        "dice": config.dice,
        "games": config.games,
        "seed": config.seed,
        # Seat i of a row with seating k held table entrant design[k][i] (tables[].entrants).
        "seating": config.seating,
        "design": plan.design_of(config),
        "max_turns": config.max_turns,
        **plan.limits_of(config),  # move_time, game_time, isolation
        # The luck and skill account: the setting, and the tables that keep it (docs/luck.md).
        "luck": config.settings.luck,
        "chunk": config.deals_per_chunk,
        **grouped,
        "challenger": config.challenger.name if config.challenger else None,
        "entrants": [e.identity() for e in config.all_entrants()],
        # A plan of more tables than CHUNK_CAP lists them in a file of their own.
        "tables": tables_file
        if tables_file is not None
        else [
            {
                "id": t.id,
                "entrants": t.names,
                "engine": shown_engine(engines.get(t.id)),
                "luck": the_plan.luck[t.id],
            }
            for t in tables
        ],
        "totals": {
            "tables": len(tables),
            "deals": len(tables) * config.games,
            "games": the_plan.games,
            "chunks": len(the_plan.planned),
        },
        "summary": summary,
    }


def shown_engine(engine: str | None) -> str:
    """A table's engine as run.json says it: native or python."""
    return "python" if engine in (None, "python") else "native"


__all__ = ["run_json", "shown_engine"]
