"""A run's results from Python (a notebook): ``harness.load_run(path)`` -> :class:`Run`.

This room is the reading side of a run for people at a prompt. It reads nothing itself:
the games come through the run folder's verified reader (:func:`harness.runfolder.reader.
open_run` and :func:`~harness.runfolder.games.iter_games`: only chunks the manifest lists
and that verify), the numbers from the report's summary (:func:`harness.report.api.
cached_summary`: the same figures as ``report.json``), the charts from
:mod:`harness.report.charts.plots`. :func:`harness.tourney.run_tournament` returns the same
:class:`Run`, with what its call did (played, reused, wall time...) filled in::

    import harness
    run = harness.load_run("results/round_robin")     # the newest run of that config
    run.standings                                      # a DataFrame: intervals and ratings
    run.seats().groupby("strategy").win_share.mean()   # one row per game and seat
    run.plot_standings()                               # a matplotlib Figure

Everything is read on first use and kept: a Run is a snapshot of the folder as it was
then (call :func:`load_run` again after a resume).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.errors import HarnessError, plural

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from harness.runfolder.reader import RunInfo

SEAT_COLUMNS = (
    "table",
    "deal",
    "seating",
    "seat",
    "strategy",
    "opponents",
    "worms",
    "rank",
    "win_share",
    "busts",
    "steals",
    "stolen",
    "status",
    # the luck and skill account (docs/luck.md): NaN where the game kept none
    "margin",
    "par",
    "luck",
    "wluck",
    "winluck",
    "winvec",
    "regret",
    "regret_pick",
    "regret_stop",
    "regret_claim",
    "rolls",
    "picks",
    "stops",
    "claims",
)
"""The columns of :meth:`Run.seats`, in order."""

STANDINGS_COLUMNS = (
    "place",
    "strategy",
    "games",
    "win_share",
    "win_low",
    "win_high",
    "worms",
    "worms_low",
    "worms_high",
    "mean_rank",
    "elo",
    "elo_low",
    "elo_high",
)
"""The first columns of :attr:`Run.standings` (the report's other figures follow: report.json)."""


class ResultsError(HarnessError):
    """A result that cannot be given: e.g. a chart the run has no data for."""


@dataclass(eq=False)
class Run:
    """A run folder's results, and what the call that made it did (from ``run_tournament``).

    Reading (lazy, kept once read):

    - ``games``: a DataFrame of the stored games, one row per game (columns:
      docs/schema.md), verified chunks only.
    - ``seats()``: one row per game and seat (:data:`SEAT_COLUMNS`).
    - ``standings``: a DataFrame of the report's standings, one row per entrant, best
      first: win share, mean worms and rating with their 95% intervals
      (:data:`STANDINGS_COLUMNS` first); ``head_to_head``: one row per ordered pair
      (a, b): the share of their games a finished ahead of b, its 95% interval.
    - ``report``: the report's whole summary (report.json's content).
    - ``plot_standings()``, ``plot_head_to_head()``, ``plot_worms()``: matplotlib Figures.
    - ``path`` (= ``run_dir``), ``config`` (run.json: the resolved config), ``info`` (the
      verified folder: its part files, notes).

    What the call did (a Run from :func:`load_run` has the counts of the last call that
    wrote the folder, from its run.json, and ``played`` etc. of that call): ``status``,
    ``planned``, ``stored``, ``played``, ``reused``, ``resumed``, ``wall``, ``workers``,
    ``forfeits``, ``forfeit_examples``, ``failed``, ``sandbox_missing`` (what the isolated
    seats' sandbox lacked on this machine), ``summary()`` (run.json's summary), and
    ``counts``: the runner's counts per entrant, best first, a list of dicts (rank,
    strategy, games, wins, win_share, mean_worms, mean_rank, forfeits, capped;
    ``harness tourney`` adds the report's intervals and ratings to them in place): what
    ``summary()["standings"]``, run.json's summary and the terminal table hold.
    """

    run_dir: Path
    name: str
    format: str  # round_robin | gauntlet (the config's)
    status: str  # complete | incomplete (failed chunks) | stopped (--fail-fast) | interrupted
    counts: list[dict[str, Any]]  # the runner's counts per entrant, best first
    planned: int = 0  # games in the whole tournament
    stored: int = 0  # games stored in the run folder now
    played: int = 0  # games played by this call
    reused: int = 0  # games taken from earlier runs' chunks
    resumed: int = 0  # games already in this run folder when this call started
    wall: float = 0.0
    workers: int = 0
    forfeits: int = 0
    forfeit_examples: list[dict[str, Any]] = field(default_factory=list)
    failed: list[dict[str, Any]] = field(default_factory=list)
    worker_wait: float = 0.0  # share of the workers' time spent waiting for a chunk
    engine: str = "auto"  # the engine asked for (auto | python | native)
    engine_used: dict[str, int] = field(default_factory=dict)  # chunks played now, by engine
    report_file: Path | None = None  # report.html, once written (run_tournament(report=True))
    recount: bool = False  # the report's numbers counted afresh, never read from report.json
    # The protections the isolated seats' sandbox could not apply on this machine
    # (harness.seats.sandbox.probe; empty when none is missing or nothing is isolated).
    sandbox_missing: list[str] = field(default_factory=list)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.run_dir = Path(self.run_dir)

    # -- what the call did ------------------------------------------------------------------
    @property
    def path(self) -> Path:
        """The run folder (``results/<config name>/<run id>``)."""
        return self.run_dir

    @property
    def games_per_second(self) -> float:
        return self.played / self.wall if self.wall > 0 else 0.0

    def summary(self) -> dict[str, Any]:
        """What the call did, as JSON (run.json's ``summary``; ``harness tourney --json``)."""
        return {
            "run_dir": str(self.run_dir),
            "name": self.name,
            "format": self.format,
            "status": self.status,
            "games": self.stored,
            "planned": self.planned,
            "played": self.played,
            "reused": self.reused,
            "resumed": self.resumed,
            "wall_seconds": round(self.wall, 3),
            "games_per_second": round(self.games_per_second, 1),
            "workers": self.workers,
            "worker_wait": round(self.worker_wait, 5),
            "engine": self.engine,
            "engine_used": dict(self.engine_used),
            "standings": self.counts,  # the same list: harness tourney's figures show in it
            "forfeits": {"count": self.forfeits, "examples": self.forfeit_examples},
            "failed_chunks": self.failed,
            "sandbox_missing": list(self.sandbox_missing),
        }

    # -- the folder -------------------------------------------------------------------------
    def _once(self, key: str, make: Callable[[], Any]) -> Any:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    @property
    def info(self) -> RunInfo:
        """The verified folder (harness.runfolder.reader.RunInfo): part files, notes.

        Raises ReportError (DamagedRun) when a stored chunk does not verify.
        """
        from harness.runfolder.reader import open_run

        return self._once("info", lambda: open_run(self.run_dir))

    @property
    def config(self) -> dict[str, Any]:
        """run.json: the fully resolved config, entrants, tables, seating design."""
        return self.info.config

    @property
    def report(self) -> dict[str, Any]:
        """The report's summary of the run: report.json's content (read if current), or,
        for a Run of ``load_run(path, recount=True)``, counted afresh from the games."""
        from harness.report.api import cached_summary

        return self._once("report", lambda: cached_summary(self.run_dir, recount=self.recount))

    @property
    def games(self) -> pd.DataFrame:
        """Every stored game (verified chunks only), one row per game; see docs/schema.md."""
        return self._once("games", self._read_games)

    def _read_games(self) -> pd.DataFrame:
        import pandas as pd

        from harness.runfolder.games import iter_games
        from harness.runfolder.schema import columns

        info = self.info
        frames = list(iter_games(info, columns(info.players)))
        if frames:
            frame = pd.concat(frames, ignore_index=True)
        else:
            frame = pd.DataFrame({c: pd.Series(dtype=object) for c in columns(info.players)})
        frame = frame.sort_values(["table", "deal", "seating"], kind="stable")
        return frame.reset_index(drop=True)

    def seats(self) -> pd.DataFrame:
        """One row per game and seat (:data:`SEAT_COLUMNS`), in game order then seat order.

        ``opponents`` is a tuple of the other seats' strategies in seat order;
        ``win_share`` is 1 for a sole first place, 1/k for a first place shared by k seats,
        0 otherwise, and NaN in a turn-capped game (unfinished: not a result), so
        ``seats().groupby("strategy").win_share.mean()`` is the report's win share.
        ``margin`` is the seat's worms minus the mean of the others'; ``par`` .. ``claims``
        its luck and skill account (``regret`` the sum of the three kinds; NaN where the
        game kept none, docs/luck.md), so with two players ``par + luck - regret`` of one
        seat minus the other's is the margin. ``winluck`` (its own rolls' luck in its chance
        to win) and ``winvec`` (every roll's luck in its chance: 0 summed over a game's
        seats) are the win account's, NaN where the game did not keep it (only ``luck:
        win`` does; ``winvec`` since schema 6): the win share's control is ``winvec`` where
        stored, else ``winluck``, else ``wluck`` (:func:`harness.stats.win_control`).
        """
        return self._once("seats", lambda: seat_table(self.games, self.info.players)).copy()

    @property
    def standings(self) -> pd.DataFrame:
        """The report's standings, one row per entrant, best first (report.json's order).

        :data:`STANDINGS_COLUMNS` first, then the report's other figures. A run with no
        scored game has the columns and no rows.
        """
        return self._once("standings", self._standings_frame)

    def _standings_frame(self) -> pd.DataFrame:
        import pandas as pd

        frame = pd.DataFrame(self.report.get("standings") or [])
        if frame.empty:
            return pd.DataFrame(columns=list(STANDINGS_COLUMNS))
        first = [c for c in STANDINGS_COLUMNS if c in frame.columns]
        return frame[first + [c for c in frame.columns if c not in first]]

    @property
    def head_to_head(self) -> pd.DataFrame:
        """One row per ordered pair: a, b, games, share (a ahead of b), low, high, se."""
        import pandas as pd

        pairs = (self.report.get("head_to_head") or {}).get("pairs") or []
        columns = ["a", "b", "games", "share", "low", "high", "se"]
        frame = pd.DataFrame(pairs)
        if frame.empty:
            return pd.DataFrame(columns=columns)
        return frame[[c for c in columns if c in frame] + [c for c in frame if c not in columns]]

    # -- charts -----------------------------------------------------------------------------
    def plot_standings(self) -> Figure:
        """Win share and mean worms per strategy with 95% intervals (the report's chart)."""
        return self._plot("standings")

    def plot_head_to_head(self) -> Figure:
        """The head-to-head heatmap: share of games the row finished ahead of the column."""
        return self._plot("head_to_head")

    def plot_worms(self) -> Figure:
        """The worms each strategy ended its games with, as violins (the report's chart)."""
        return self._plot("worms")

    def _plot(self, name: str) -> Figure:
        figure = report_figure(name, self.report)
        if figure is None:
            why = {
                "standings": "no scored games, or a gauntlet (its chart is the challenger's: "
                "harness report)",
                "head_to_head": "fewer than two strategies met",
                "worms": "no scored games",
            }[name]
            raise ResultsError(f"{self.run_dir}: no {name.replace('_', ' ')} chart: {why}")
        return figure

    def __repr__(self) -> str:
        """What a person reads at a prompt (a notebook cell's last line): the run, its
        state, the standings as counted (with the report's intervals, luck-adjusted win
        share and rating once it has them: the table ``harness tourney`` prints), and
        where to look next; nothing is read from the folder."""
        from harness.report.pages.standings_text import standings_text

        lines = [
            f"Run {self.name!r}: {self.status}, {self.stored:,} of {plural(self.planned, 'game')}"
            + (f", {plural(self.forfeits, 'forfeit')}" if self.forfeits else ""),
            f"  folder: {self.run_dir}",
        ]
        if self.counts:
            # The terminal's standings table (intervals, luck-adjusted share and rating
            # once the report's figures are in the counts), in 100 columns.
            table = standings_text(self.counts, 98, said=100)
            lines += ["  " + line if line else "" for line in table]
        if self.report_file is not None:
            lines.append(f"  report: {self.report_file}")
        lines.append("  tables: run.standings, run.head_to_head, run.seats(), run.games")
        lines.append("  charts: run.plot_standings(), run.plot_head_to_head(), run.plot_worms()")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        import html

        head = f"<b>{html.escape(self.name)}</b> · {html.escape(str(self.run_dir))} · "
        head += f"{self.status} · {self.stored:,} of {plural(self.planned, 'game')}"
        return f"<p>{head}</p>" + (self.standings._repr_html_() or "")


def seat_table(games: pd.DataFrame, players: int) -> pd.DataFrame:
    """The long table of :meth:`Run.seats` from a games frame of ``players`` seats."""
    import numpy as np
    import pandas as pd

    from harness.runfolder.schema import STATUSES, TURN_CAP, seat_column

    g = len(games)

    def seat_values(field_name: str, dtype: Any = None) -> np.ndarray:
        cols = [seat_column(i, field_name) for i in range(players)]
        if not set(cols) <= set(games.columns):  # a frame from before the account: NaN
            return np.full(g * players, np.nan)
        return games[cols].to_numpy(dtype).ravel()  # row-major: game by game, seat by seat

    names = games[[seat_column(i, "strategy") for i in range(players)]].to_numpy(object)
    ranks = games[[seat_column(i, "rank") for i in range(players)]].to_numpy(np.int64)
    firsts = (ranks == 1).sum(axis=1, keepdims=True)
    share = np.where(ranks == 1, 1.0 / np.maximum(firsts, 1), 0.0)
    capped = games["status"].astype(str).to_numpy() == STATUSES[TURN_CAP]
    share[capped] = np.nan
    # A run has few distinct seatings of names (tables x seat orders): one tuple per
    # distinct seating and seat, shared by every row that has it.
    inverse, codes = pd.MultiIndex.from_arrays(list(names.T)).factorize()
    distinct = np.empty(len(codes) * players, dtype=object)
    distinct[:] = [tuple(row[:i]) + tuple(row[i + 1 :]) for row in codes for i in range(players)]
    opponents = distinct[(inverse.reshape(-1, 1) * players + np.arange(players)).ravel()]
    frame = pd.DataFrame(
        {
            "table": np.repeat(games["table"].to_numpy(object), players),
            "deal": np.repeat(games["deal"].to_numpy(), players),
            "seating": np.repeat(games["seating"].to_numpy(), players),
            "seat": np.tile(np.arange(players, dtype=np.int8), g),
            "strategy": names.ravel(),
            "opponents": opponents,
            "worms": seat_values("worms"),
            "rank": ranks.ravel().astype(np.int8),
            "win_share": share.ravel(),
            "busts": seat_values("busts"),
            "steals": seat_values("steals"),
            "stolen": seat_values("stolen"),
            "status": np.repeat(games["status"].to_numpy(object), players),
            "margin": _versus_others(games, players, "worms").ravel(),
            **{
                name: seat_values(name, np.float64)
                for name in (
                    "par",
                    "luck",
                    "wluck",
                    "winluck",
                    "winvec",
                    "regret_pick",
                    "regret_stop",
                    "regret_claim",
                )
            },
            "regret": sum(
                seat_values(f"regret_{k}", np.float64) for k in ("pick", "stop", "claim")
            ),
            **{
                name: seat_values(name, np.float64)
                for name in ("rolls", "picks", "stops", "claims")
            },
        },
        columns=list(SEAT_COLUMNS),
    )
    return frame


_KINDS = ("pick", "stop", "claim")
_ACCOUNT = (
    "par",
    "luck",
    "wluck",
    *(f"regret_{k}" for k in _KINDS),
    "rolls",
    "picks",
    "stops",
    "claims",
)


def _versus_others(games: pd.DataFrame, players: int, field_name: str) -> Any:
    """(games, seats): each seat's value minus the mean of the other seats'."""
    import numpy as np

    from harness import stats
    from harness.runfolder.schema import seat_column

    cols = [seat_column(i, field_name) for i in range(players)]
    return stats.versus_others(games[cols].to_numpy(np.float64))


# -- the report's charts as figures --------------------------------------------------------
def report_figure(name: str, summary: dict[str, Any]) -> Figure | None:
    """The report's chart ``name`` (a key of plots.FIGURES) as a Figure, or None without data.

    Drawn by the report's own function (same colours: plots.strategy_colour); nothing is
    written, and the figure is not pyplot's (a notebook shows it once, as the value
    returned, and the user's backend is left as it was).
    """
    from harness.report.charts import plots

    return plots.FIGURES[name](summary)


# -- opening a folder ----------------------------------------------------------------------
def load_run(path: str | Path, *, recount: bool = False) -> Run:
    """The run in ``path``: a run folder, or a config's folder (then its newest run).

    The folder is verified at once (a damaged chunk is one line: ``harness report PATH
    --repair`` plays it again); games and the report's numbers are read on first use:
    from report.json when it is current and whole, or, with ``recount=True``, counted
    afresh from the verified games (report.json's digest shows damage, not a deliberate
    edit sealed again by whoever can write the folder: docs/trust.md).
    """
    from harness.runfolder.reader import open_run

    info = open_run(path)
    config = info.config
    summary = config.get("summary") if isinstance(config.get("summary"), dict) else {}
    stored = _stored_games(info)
    totals = config.get("totals") if isinstance(config.get("totals"), dict) else {}
    forfeits = summary.get("forfeits") if isinstance(summary.get("forfeits"), dict) else {}

    def number(value: Any) -> Any:
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0

    counts = _rows(summary.get("standings"))
    report = _current_report(info) if counts else None
    if report is not None:  # the report's figures in the counts, as harness tourney has them
        from harness.report.pages.standings_text import with_report

        counts = with_report(counts, report)
    run = Run(
        run_dir=info.path,
        name=info.name,
        format=str(config.get("format") or "round_robin"),
        status=str(config.get("status") or "unknown"),
        counts=counts,
        planned=number(totals.get("games")),
        stored=stored,
        played=number(summary.get("played")),
        reused=number(summary.get("reused")),
        resumed=number(summary.get("resumed")),
        wall=float(number(summary.get("wall_seconds"))),
        workers=number(summary.get("workers")),
        forfeits=number(forfeits.get("count")),
        forfeit_examples=_rows(forfeits.get("examples")),
        failed=_rows(summary.get("failed_chunks")),
        worker_wait=float(number(summary.get("worker_wait"))),
        engine=str(config.get("engine_choice") or "auto"),
        engine_used=dict(summary.get("engine_used") or {}),
        recount=recount,
        sandbox_missing=_texts(summary.get("sandbox_missing")),
    )
    run._cache["info"] = info
    if report is not None and not recount:
        run._cache["report"] = report
    return run


def _current_report(info: RunInfo) -> dict[str, Any] | None:
    """The run's report.json when it is current and whole (nothing is counted), else None."""
    from harness.report.api import current_summary

    return current_summary(info)


def _texts(value: Any) -> list[str]:
    return [t for t in value if isinstance(t, str)] if isinstance(value, list) else []


def _rows(value: Any) -> list[dict[str, Any]]:
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []


def _stored_games(info: RunInfo) -> int:
    """Games in the verified parts (from the Parquet footers: nothing else is read)."""
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(part).metadata.num_rows for part in info.parts)


__all__ = [
    "Run",
    "ResultsError",
    "SEAT_COLUMNS",
    "STANDINGS_COLUMNS",
    "load_run",
    "report_figure",
    "seat_table",
]
