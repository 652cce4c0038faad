"""The SPRT experiment: play A against B on a tourney's chunks until the test decides.

Pure parts first, then the one loop that drives a backend:

* :func:`make_setup` resolves and checks everything (entrants as tourney configs name
  them, rules, bounds) before a game is played: :class:`SprtSetup`.
* A **deal** (the word of :mod:`harness.game.seating`) is one set of duplicate dice, seeded
  like a tourney's deal from (seed, deal) only, played in every cyclic seat rotation
  (``seating: cyclic``). With 2 players that is the pentanomial game pair. With N > 2
  it is played in every rotation of two seat orders, (A, B, fillers...) and (B, A,
  fillers...), 2N games: with cyclic rotations alone A would always sit just before B,
  and in Pickomino the next player is the first who may steal your top tile (R7) --
  measured here, tactician against itself with a random filler scored 0.511 +- 0.006
  (about +8 Elo) from that seat order alone.
  With both orders, swapping A and B maps a deal onto itself: equal strategies score
  exactly 1/2 in expectation, as H0 requires (and every deal, if they play alike).
* A deal's score is A's share of its games in which A finished ahead of B (ties
  half): a multiple of 1/(2g) for g games a deal, fed to :class:`~harness.stats.Sprt`.
  Forfeits are results (the forfeiting seat is last); a deal with a turn-capped game
  is left out and counted. The JSON summary keeps its older key names for scripts:
  ``blocks``, ``blocks_counted``, ``blocks_capped`` and ``games_per_block`` count deals.
* **Determinism.** The deals are cut into checks of a fixed number of deals (about
  :data:`CHECK_GAMES` games), one chunk per check and seat order. Finished chunks are
  applied to the test strictly in deal order and the stopping rule is looked at only
  after a whole check: chunks played beyond the deciding check are discarded. Verdict,
  games and Elo are therefore the same for any number of workers.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from itertools import count
from pathlib import Path
from typing import Any

from harness.errors import HarnessError, RunFailed
from harness.game.engine import DEFAULT_MAX_TURNS
from harness.game.rules import MAX_PLAYERS, MIN_PLAYERS, Rules
from harness.game.seating import by_entrant
from harness.seats.settings import HoldsSeatSettings, SeatSettings, settings_from
from harness.stats import AdjustedSprt, Sprt
from harness.tourney import plan
from harness.tourney.chunk_result import win_control_of
from harness.tourney.chunks import ChunkResult
from harness.tourney.config import (
    Entrant,
    TourneyConfig,
    check_bounds,
    resolve_entrant,
)

# Games between two looks at the test: 50 deals with 2 players, a tenth of a second of
# fast strategies (half a second of `optimal`): far above a chunk's cost to hand out,
# and fine enough that stopping at a check wastes little.
CHECK_GAMES = 100
DEFAULT_FILLER = "greedy"
ROLES = ("A", "B", "filler")


class SprtError(HarnessError):
    """A bad setting, or a chunk that could not be played: one line for people."""


# -- the setup ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SprtSetup(HoldsSeatSettings):
    """Everything that decides the test's games and verdict (not the worker count)."""

    a: Entrant
    b: Entrant
    fillers: tuple[Entrant, ...]
    rules: Rules
    seed: int = 1
    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    # Seat limits, isolation, engine and the luck and skill account, as a tourney
    # config's (harness.seats.settings). With the account kept, the test runs on
    # luck-adjusted deal scores (stats.AdjustedSprt).
    settings: SeatSettings = SeatSettings()

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def same(self) -> bool:
        """A and B are one strategy with the same parameters."""
        return self.a.key == self.b.key

    @property
    def orders(self) -> tuple[tuple[Entrant, ...], ...]:
        """The seat orders a deal is played in (each in every cyclic rotation: the chunks'
        ``seating: cyclic``); see the module docstring."""
        if self.players == 2:
            return ((self.a, self.b),)
        return ((self.a, self.b, *self.fillers), (self.b, self.a, *self.fillers))

    @property
    def games_per_deal(self) -> int:
        return self.players * len(self.orders)

    @property
    def deals_per_check(self) -> int:
        return max(1, round(CHECK_GAMES / self.games_per_deal))

    @property
    def max_deals(self) -> int | None:
        """The most deals ``max_games`` allows (whole deals only); None: no limit."""
        return None if self.max_games is None else self.max_games // self.games_per_deal

    @cached_property
    def table(self) -> plan.Table:
        """The table as a tourney plans it: its id and seeding key (all entrants)."""
        return plan.table_of((self.a, self.b, *self.fillers))

    @cached_property
    def config(self) -> TourneyConfig:
        """A tourney config for :func:`plan.spec_for`: rules, dice, seed, turn cap."""
        return TourneyConfig(
            name="sprt",
            rules=self.rules,
            format="round_robin",
            entrants=(self.a, self.b, *self.fillers),
            games=self.max_deals or 0,  # not read by spec_for: the checks set the deals
            seed=self.seed,
            max_turns=self.max_turns,
            settings=self.settings,
            # Its own two seat orders, each in every rotation (see the module docstring).
            seating="cyclic",
        )

    @cached_property
    def engines(self) -> tuple[str, ...]:
        """The engine of each seat order's chunks (:func:`plan.table_engine`)."""
        base = self.table
        return tuple(
            plan.table_engine(self.config, plan.Table(base.id, base.key, order))
            for order in self.orders
        )

    @cached_property
    def order_settings(self) -> tuple[SeatSettings, ...]:
        """The seat settings of each seat order's chunks: the engine its own."""
        return tuple(self.settings.with_overrides(engine=engine) for engine in self.engines)

    @cached_property
    def adjusted(self) -> bool:
        """Whether the deals keep the account, so the test runs on luck-adjusted scores
        (:func:`plan.table_luck` of the table: ``auto`` keeps it for a plugin or optimal)."""
        return plan.table_luck(self.config, self.table)

    def sprt(self) -> Sprt:
        """An empty test with this setup's bounds."""
        return Sprt(self.elo0, self.elo1, self.alpha, self.beta, self.games_per_deal)

    def adjusted_sprt(self) -> AdjustedSprt:
        """An empty luck-adjusted test with this setup's bounds."""
        return AdjustedSprt(self.elo0, self.elo1, self.alpha, self.beta, self.games_per_deal)

    def to_dict(self) -> dict[str, Any]:
        """The setup as the JSON summary gives it (``describe()`` elsewhere is text)."""
        return {
            "a": self.a.identity(),
            "b": self.b.identity(),
            "fillers": [f.identity() for f in self.fillers],
            "players": self.players,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "max_games": self.max_games,
            "max_turns": self.max_turns,
            **self.settings.limit_values(),  # move_time, game_time, isolation
            "engine": self.settings.engine,
            "engine_plays": "python" if "python" in self.engines else "native",
            "table": self.table.id,
            "games_per_block": self.games_per_deal,  # the key's old name: scripts read it
            "deals_per_check": self.deals_per_check,
        }


def make_setup(
    a: str,
    b: str,
    *,
    players: int = 2,
    fillers: tuple[str, ...] | list[str] = (),
    rules: Rules | None = None,
    seed: int = 1,
    elo0: float = 0.0,
    elo1: float = 10.0,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_games: int | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    base: Path | None = None,
    move_time: float | None = None,
    game_time: float | None = None,
    isolation: str | None = None,
    engine: str | None = None,
    luck: str | None = None,
    settings: SeatSettings | None = None,
) -> SprtSetup:
    """Check every setting and resolve the strategies; SprtError/ConfigError: one line.

    ``fillers`` fill seats 3 and up: one strategy for all of them (default
    :data:`DEFAULT_FILLER`) or one per seat. ``rules`` defaults to the official rules;
    its player count is set to ``players``. ``move_time``, ``game_time`` (seconds) and
    ``isolation`` ("none" or "process") limit every seat as in a tourney config;
    ``engine`` ("auto", "python", "native") as a tourney config's (the same games each
    way; "native" for a test it cannot play is one line here, before any game); ``luck``
    ("auto", "on", "off", "win") as a tourney config's: kept, the test runs on
    luck-adjusted deal scores (the same error rates, fewer games: docs/luck.md), the
    control the win luck's vector under "win", else the win-weighted worm luck (per game:
    :func:`~harness.stats.win_control`). Not given: no limits,
    "none", "auto", "auto". ``settings`` (a :class:`~harness.seats.settings.SeatSettings`)
    gives all five as one value instead (not with them).
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise SprtError(f"players: {players}; a table seats {MIN_PLAYERS} to {MAX_PLAYERS} (R3)")
    for name, value in (("elo0", elo0), ("elo1", elo1)):
        if not math.isfinite(value):
            raise SprtError(f"{name}: {value}; give a finite Elo difference")
    if elo1 <= elo0:
        raise SprtError(f"elo1 ({elo1:g}) must be above elo0 ({elo0:g}): H1 is 'A is stronger'")
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not 0 < value < 0.5:
            raise SprtError(f"{name}: {value:g}; an error rate lies strictly between 0 and 0.5")
    check_bounds(seed=seed, max_turns=max_turns, max_games=max_games)
    settings = settings_from(
        settings,
        move_time=move_time,
        game_time=game_time,
        isolation=isolation,
        engine=engine,
        luck=luck,
    )
    fillers = tuple(fillers)
    if players == 2 and fillers:
        raise SprtError("filler: fills seats 3 and up; give 3 or more players to use one")
    if players > 2:
        if not fillers:
            fillers = (DEFAULT_FILLER,)
        if len(fillers) == 1:
            fillers *= players - 2
        elif len(fillers) != players - 2:
            raise SprtError(
                f"filler: {len(fillers)} given for {players - 2} seats; give one for all "
                "or one per seat"
            )
    entrant_a = resolve_entrant(a, "A", base)
    entrant_b = resolve_entrant(b, "B", base)
    filler_entrants = tuple(resolve_entrant(f, "filler", base) for f in fillers)
    if entrant_a.name == entrant_b.name:  # tell them apart in forfeit messages
        entrant_a = replace(entrant_a, name=f"{entrant_a.name} (A)")
        entrant_b = replace(entrant_b, name=f"{entrant_b.name} (B)")
    rules = (rules or Rules.preset("official")).with_players(players)
    setup = SprtSetup(
        entrant_a,
        entrant_b,
        filler_entrants,
        rules,
        seed=seed,
        elo0=elo0,
        elo1=elo1,
        alpha=alpha,
        beta=beta,
        max_games=max_games,
        max_turns=max_turns,
        settings=settings,
    )
    setup.engines  # noqa: B018 - "native" that cannot play: one line now, not mid-test
    if max_games is not None and setup.max_deals < 1:
        raise SprtError(
            f"max_games: {max_games}; a deal is {setup.games_per_deal} games, allow at least one"
        )
    return setup


# -- the work: chunk specs, lazily ----------------------------------------------------------
def check_range(setup: SprtSetup, check: int) -> tuple[int, int] | None:
    """The deals ``first``..``stop - 1`` of check number ``check`` (None past the limit)."""
    first = check * setup.deals_per_check
    stop = first + setup.deals_per_check
    limit = setup.max_deals
    if limit is not None:
        if first >= limit:
            return None
        stop = min(stop, limit)
    return first, stop


def check_specs(setup: SprtSetup, check: int) -> list[plan.ChunkSpec]:
    """The chunks of one check: its deals, once per seat order (empty past the limit)."""
    deals = check_range(setup, check)
    if deals is None:
        return []
    base = setup.table
    return [
        # Every order keeps the table's seeding key (the same deal, the same dice) but
        # has an id of its own: backends may name a chunk by table id and first deal.
        plan.spec_for(setup.config, plan.Table(base.id + suffix, base.key, order), *deals, how)
        for suffix, order, how in zip(("", "-BA"), setup.orders, setup.order_settings, strict=False)
    ]


def all_specs(setup: SprtSetup) -> Iterator[tuple[int, plan.ChunkSpec]]:
    """Every chunk in deal order with its seat order, lazily: without a limit, for ever."""
    for check in count():
        specs = check_specs(setup, check)
        if not specs:
            return
        yield from enumerate(specs)


# -- a chunk's deals -------------------------------------------------------------------------
@dataclass
class ChunkScores:
    """What one chunk adds to the test: per deal, A's half-points against B and whether
    a game was turn-capped; forfeits by role (A, B, filler) with examples."""

    points: list[int]
    capped: list[bool]
    forfeits: dict[str, int] = field(default_factory=dict)
    examples: list[dict[str, Any]] = field(default_factory=list)
    # Per deal, the sum over its games here of W_A - W_B (W: harness.stats.win_control,
    # the win luck's vector where the chunk kept it, docs/luck.md); None: the chunk kept
    # no account.
    control: list[float] | None = None


def roles_of(setup: SprtSetup, order: int) -> list[str]:
    """The role of each table entrant (the chunk's ``entrants[e]``) in seat order ``order``."""
    roles = ["A", "B"] if order == 0 else ["B", "A"]
    return roles + ["filler"] * (setup.players - 2)


def chunk_scores(
    setup: SprtSetup, order: int, spec: plan.ChunkSpec, result: ChunkResult
) -> ChunkScores:
    """Half-points of A against B per deal of a played chunk (rows: deal, then the index
    of the game's order in ``spec.orders``)."""
    roles = roles_of(setup, order)
    a, b = roles.index("A"), roles.index("B")
    deals = spec.stop - spec.first
    points, capped = [0] * deals, [False] * deals
    scores = ChunkScores(points, capped, {role: 0 for role in ROLES})
    games = result.games
    ranks = [s["rank"] for s in result.seats]
    control = win_control_of(result)
    if control is not None:
        scores.control = [0.0] * deals
    for row in range(result.rows):
        d, k = games["deal"][row] - spec.first, games["seating"][row]
        if games["status"][row] == 1:  # turn cap: the game never finished
            capped[d] = True
            continue
        # Seat i holds table entrant seats[i]; a lower rank is a better place.
        seats = spec.orders[k]
        rank = by_entrant([r[row] for r in ranks], seats)
        rank_a, rank_b = rank[a], rank[b]
        points[d] += 2 if rank_a < rank_b else 1 if rank_a == rank_b else 0
        if control is not None:
            luck = by_entrant(control[row].tolist(), seats)
            scores.control[d] += luck[a] - luck[b]  # type: ignore[index]
        seat = games["error_seat"][row]
        if seat >= 0:
            role = roles[seats[seat]]
            scores.forfeits[role] += 1
            if len(scores.examples) < 3:
                scores.examples.append(
                    {
                        "deal": games["deal"][row],
                        "order": order,
                        "seating": k,
                        "role": role,
                        "error": result.errors.get(row, ""),
                    }
                )
    return scores


# -- the test, applied in deal order --------------------------------------------------------
@dataclass
class Tally:
    """The test so far: deals applied in order, checks made, what was left out."""

    setup: SprtSetup
    sprt: Sprt = field(init=False)
    # The luck-adjusted test, fed the same deals (None: the deals keep no account); when
    # there is one, its verdict is the test's.
    adjusted: AdjustedSprt | None = field(init=False)
    deals: int = 0  # deals played and applied (counted or left out)
    checks: int = 0
    capped: int = 0  # deals left out: a game hit the turn cap
    forfeits: dict[str, int] = field(default_factory=lambda: {role: 0 for role in ROLES})
    examples: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.sprt = self.setup.sprt()
        self.adjusted = self.setup.adjusted_sprt() if self.setup.adjusted else None

    def apply(self, parts: list[ChunkScores]) -> None:
        """Add one whole check: its chunks, one per seat order, over the same deals."""
        games = self.setup.games_per_deal
        g2 = 2 * games
        for deal in range(len(parts[0].points)):
            if any(p.capped[deal] for p in parts):
                self.capped += 1
                continue
            score = sum(p.points[deal] for p in parts) / g2
            self.sprt.add(score)
            if self.adjusted is not None:
                known = all(p.control is not None for p in parts)
                control = sum(p.control[deal] for p in parts) / games if known else None  # type: ignore[index]
                self.adjusted.add(score, control)
        for p in parts:
            for role, k in p.forfeits.items():
                self.forfeits[role] += k
            self.examples.extend(p.examples[: 3 - len(self.examples)])
        self.deals += len(parts[0].points)
        self.checks += 1

    @property
    def games(self) -> int:
        """Games played in the applied deals (left-out deals included)."""
        return self.deals * self.setup.games_per_deal

    @property
    def test(self) -> Sprt | AdjustedSprt:
        """The test whose verdict counts: the luck-adjusted one where the deals keep the
        account, else the raw one."""
        return self.adjusted if self.adjusted is not None else self.sprt

    @property
    def llr(self) -> float:
        """The test's log-likelihood ratio after the last check (0 before the first)."""
        return self.test.llr

    @property
    def status(self) -> str:
        """The test's status (H1, H0, continue), or inconclusive at the game limit."""
        status = self.test.status
        limit = self.setup.max_deals
        if status == "continue" and limit is not None and self.deals >= limit:
            return "inconclusive"
        return status

    def elo(self) -> tuple[float, float, float]:
        """A's Elo over B with its 95% interval, from the counted deals (luck-adjusted
        where the deals keep the account)."""
        return self.test.elo()

    def summary(self) -> dict[str, Any]:
        """The deterministic part of the JSON summary (nan/inf as they are): the test's own
        numbers (:meth:`Sprt.summary`) with the deals played, left out and checked. Its
        ``blocks*`` keys count deals (older names, kept for the scripts that read them)."""
        raw = self.sprt.summary()
        test = self.test.summary()
        return {
            "verdict": self.status,
            "llr": test["llr"],
            "lower": test["lower"],
            "upper": test["upper"],
            "games": self.games,  # left-out deals included, unlike the test's own count
            "blocks": self.deals,
            "blocks_counted": test["deals"],
            "blocks_capped": self.capped,
            "checks": self.checks,
            "elo": test["elo"],
            "elo_low": test["elo_low"],
            "elo_high": test["elo_high"],
            "counts": raw["counts"],
            "forfeits": {"count": sum(self.forfeits.values()), **self.forfeits},
            "forfeit_examples": self.examples,
            # The luck-adjusted test (what decided) and the raw one beside it.
            "adjusted": None if self.adjusted is None else test,
            "raw": {k: raw[k] for k in ("status", "llr", "elo", "elo_low", "elo_high")},
        }


# The summary's keys about the luck-adjusted test (after the older keys, in this order).
LUCK_KEYS = ("adjusted", "raw")


# -- the loop -------------------------------------------------------------------------------
@dataclass
class SprtResult:
    """What a test did: the tally at its end and how it ended."""

    setup: SprtSetup
    tally: Tally
    verdict: str  # H1 | H0 | inconclusive | interrupted
    wall: float
    workers: int

    @property
    def games_per_second(self) -> float:
        return self.tally.games / self.wall if self.wall > 0 else 0.0

    def summary(self) -> dict[str, Any]:
        """What ``--json`` prints (numbers may be nan or inf: clean them for JSON). Keys
        added since scripts first read it come last (the luck account's)."""
        tally = self.tally.summary()
        luck = {key: tally.pop(key) for key in LUCK_KEYS}
        return {
            **self.setup.to_dict(),
            **tally,
            "verdict": self.verdict,
            "workers": self.workers,
            "wall_seconds": round(self.wall, 3),
            "games_per_second": round(self.games_per_second, 1),
            "luck": self.setup.luck,
            "luck_adjusted": self.setup.adjusted,
            **luck,
        }


def run_sprt(
    setup: SprtSetup,
    *,
    workers: int = 0,
    backend: Any = None,
    on_check: Callable[[Tally], None] | None = None,
    on_tick: Callable[[], None] | None = None,
) -> SprtResult:
    """Play deals until the test decides (or the game limit, or Ctrl-C).

    ``workers`` processes play the chunks (0: in this process), or any tourney
    ``backend`` (``results(specs)`` yielding Done/Failed/None) when given. ``on_check``
    sees the tally after every check; ``on_tick`` is called now and then while nothing
    finishes. Raises RunFailed if a chunk fails twice (the test cannot skip deals).
    """
    from harness.tourney.backends import Done, Failed, local_backend

    started = time.monotonic()
    tally = Tally(setup)
    per_check = len(setup.orders)
    if backend is None:
        # Workers' log records (a chunk that raised) go nowhere: the failure comes back
        # as a Failed outcome and is told in one line.
        backend = local_backend(workers, logging.NullHandler())
    waiting: dict[int, list[ChunkScores | None]] = {}  # check -> its chunks, by order
    order_of: dict[str, int] = {}  # spec key -> seat order, while the chunk is out

    def specs() -> Iterator[plan.ChunkSpec]:
        for order, spec in all_specs(setup):
            order_of[spec.key] = order
            yield spec

    outcomes = backend.results(specs())
    failed: dict[int, Failed] = {}  # check -> a chunk of it that failed twice
    verdict = "continue"
    try:
        for outcome in outcomes:
            if outcome is None:
                if on_tick is not None:
                    on_tick()
                continue
            spec = outcome.spec
            order = order_of.pop(spec.key)
            check = spec.first // setup.deals_per_check
            if isinstance(outcome, Failed):
                failed[check] = outcome  # fatal only once the test gets there
            else:
                assert isinstance(outcome, Done)
                slot = waiting.setdefault(check, [None] * per_check)
                slot[order] = chunk_scores(setup, order, spec, outcome.result)
            # Apply every check that is now whole, in deal order, and look at the test.
            while verdict == "continue":
                if tally.checks in failed:
                    lost = failed[tally.checks]
                    raise RunFailed(
                        f"deals {lost.spec.first}-{lost.spec.stop - 1} could not be played: "
                        f"{lost.reason}; the test stops after {tally.games:,} games, "
                        "without a verdict"
                    )
                parts = waiting.get(tally.checks)
                if parts is None or any(p is None for p in parts):
                    break
                tally.apply(waiting.pop(tally.checks))  # type: ignore[arg-type]
                if on_check is not None:
                    on_check(tally)
                if tally.status != "continue":
                    verdict = tally.status
            if verdict != "continue":
                break
    except KeyboardInterrupt:
        verdict = "interrupted"
    finally:
        outcomes.close()  # stops the workers, and whatever they were playing beyond the stop
    if verdict == "continue":  # the specs ran out: only at the game limit
        verdict = tally.status if tally.status != "continue" else "inconclusive"
    used = getattr(backend, "workers", workers)
    return SprtResult(setup, tally, verdict, time.monotonic() - started, used)
