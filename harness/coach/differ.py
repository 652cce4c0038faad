"""``diff(a, b)``: two bots on the same deals, where they decide differently and what it is worth.

Both bots play the same deals against the same opponents in every seat order: A's games
with B as A's shadow, B's games with A as B's shadow (:class:`~harness.coach.shadow.
Shadowed`). Every question where the two answer differently is a *parting*; both
answers are valued exactly under the shadow's own play for the rest of the turn, and B's
*gain* there is the value of B's answer minus A's. Summed over a turn, the gains are an
unbiased estimate of how much more B's play of the turn is worth than A's (the
performance difference identity, :mod:`harness.coach.shadow`), in worms of swing; per
game, with a 95% interval clustered by deal (:class:`harness.stats.Moments`), over A's
games, B's games, and both.

The answer, :class:`Diff`, says how often they part (per game, per question), B's gain
per game with its interval and split into where B gains and where it loses, the same per
kind of decision, the situations where B gains or loses most (the coach's situation key
with each bot's move), and example positions played again with their records. No game
outcome enters: a diff converges far faster than a compare of results
(benchmarks/diff_speed.py measures how much).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.coach import stopping
from harness.coach.audit import situation_of
from harness.coach.deals import Field, make_field, replay_game, resolve_all, shown_names
from harness.coach.setup import DiffSetup
from harness.coach.shadow import Parting, Shadowed
from harness.coach.situations import KINDS, Situation, move_text, risk_text
from harness.coach.tally import GAME_FIELDS, DealTally, Where
from harness.coach.valuing import Moment
from harness.coach.workers import Output, call_contained, forfeit_note, play_sides
from harness.game.rules import Rules
from harness.plugins import StrategySpec
from harness.seats.settings import SeatSettings
from harness.stats import Moments

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_DEALS: int = stopping.MAX_DEALS  # the most it plays unless told: its old name
SIDES = ("A", "B")  # whose games: A's (B its shadow) or B's (A its shadow)
PER_KIND = ("asked", "parted", "gain", "gained", "lost")
FIELDS = (*GAME_FIELDS, "failed", *(f"{k}_{f}" for k in KINDS for f in PER_KIND))

#: A parting's key: where, what A does, what B does.
Key = tuple[Situation, str, str]


@dataclass
class Spot:
    """A parting key's count, B's summed gain there, and its extreme instances."""

    count: int = 0
    gain: float = 0.0
    high: float = float("-inf")
    high_at: tuple[str, Where] | None = None  # (side, where) of the largest gain
    low: float = float("inf")
    low_at: tuple[str, Where] | None = None

    def add(self, gain: float, where: tuple[str, Where]) -> None:
        self.count += 1
        self.gain += gain
        if gain > self.high:
            self.high, self.high_at = gain, where
        if gain < self.low:
            self.low, self.low_at = gain, where

    def merge(self, other: Spot) -> None:
        self.count += other.count
        self.gain += other.gain
        if other.high > self.high:
            self.high, self.high_at = other.high, other.high_at
        if other.low < self.low:
            self.low, self.low_at = other.low, other.low_at


class DiffTally(DealTally):
    """One side's sums over some deals (A's games or B's), per deal, kind and key."""

    FIELDS = FIELDS

    def __init__(self, side: str = "A", catch: int | None = None) -> None:
        super().__init__(catch)
        self.side = side
        self.spots: dict[Key, Spot] = {}
        self.failures: list[str] = []  # the shadow's failures, a line each

    # -- what the seat reports (harness.coach.shadow.Watcher) ---------------------------------
    def asked(self, kind: str) -> None:
        self.game_row[self.index(f"{kind}_asked")] += 1

    def failed(self, message: str) -> None:
        self.game_row[self.index("failed")] += 1
        deal, table, order = self._game
        line = f"deal {deal}, table {table}, seat order {order}, {message}"
        self.later(lambda: self.failures.append(line))

    def parted(self, moment: Moment, parting: Parting) -> None:
        row = self.game_row
        kind = parting.kind
        a, b = parting.primary, parting.shadow
        if self.side == "B":
            a, b = b, a
        # B's gain: the value of B's answer minus A's, under the shadow's play.
        gain = parting.shadow_value - parting.primary_value
        if self.side == "B":
            gain = -gain
        base = self.index(f"{kind}_parted")
        row[base] += 1
        row[base + 1] += gain
        row[base + (2 if gain > 0 else 3)] += gain
        key = (situation_of(moment, kind), move_text(kind, a), move_text(kind, b))
        where = (self.side, self.place(moment, parting))
        self.later(lambda: self._spot(key, gain, where))

    def _spot(self, key: Key, gain: float, where: tuple[str, Where]) -> None:
        """A parting, counted once its game has completed."""
        spot = self.spots.get(key)
        if spot is None:
            spot = self.spots[key] = Spot()
        spot.add(gain, where)

    def merge(self, other: DealTally) -> None:
        assert isinstance(other, DiffTally)
        super().merge(other)
        for key, spot in other.spots.items():
            found = self.spots.get(key)
            if found is None:
                self.spots[key] = Spot(
                    spot.count, spot.gain, spot.high, spot.high_at, spot.low, spot.low_at
                )
            else:
                found.merge(spot)
        self.failures += other.failures


@dataclass
class DiffSubject:
    """One side's seat: the primary bot with the other as its shadow."""

    primary: StrategySpec
    shadow: StrategySpec
    name: str
    shadow_name: str = "the shadow"
    unit: str = "worms"

    @property
    def bots(self) -> tuple[StrategySpec, ...]:
        return (self.primary, self.shadow)

    @property
    def extra_names(self) -> tuple[str, ...]:
        """What the shadow's output is labelled with."""
        return (f"{self.shadow_name} (shadow)",)

    def seat(self, bots: list[Any], tally: DiffTally, failed: str | None = None) -> Shadowed:
        return Shadowed(bots[0], bots[1] if len(bots) > 1 else None, tally, failed, self.unit)


@dataclass(frozen=True)
class DiffExample:
    """One parting played again with its game's record."""

    key: Key
    side: str
    where: Where
    seat: int
    seats: list[str]
    seed: int
    moment: Moment
    parting: Parting
    gain: float
    record: dict[str, Any] = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        situation, a, b = self.key
        p = self.parting
        values = (
            (p.primary_value, p.shadow_value)
            if self.side == "A"
            else (p.shadow_value, p.primary_value)
        )
        return {
            **situation.to_json(),
            "a": a,
            "b": b,
            "side": self.side,
            "deal": self.where.deal,
            "table": self.where.table,
            "seating": self.where.order,
            "seat": self.seat,
            "seats": self.seats,
            "seed": self.seed,
            "turn": self.moment.turn,
            "a_value": values[0],
            "b_value": values[1],
            "gain": self.gain,
            "valued_with": "B" if self.side == "A" else "A",
            "grill": list(self.moment.grill),
            "tops": list(self.moment.tops),
            "set_aside": list(self.moment.before),
            "roll": list(self.moment.roll),
            "analyze": self.moment.analyze_command(),
            "play": f"harness play {' '.join(_quoted(s) for s in self.seats)} --seed "
            f"{self.seed} --dice duplicate",
        }


def _quoted(text: str) -> str:
    return text if all(c.isalnum() or c in "-_.:/=" for c in text) else f"'{text}'"


def _interval(m: Moments) -> dict[str, float | None]:
    low, high = m.interval()
    est = m.estimate
    nan = est != est
    return {
        "estimate": None if nan else est,
        "low": None if low != low else low,
        "high": None if high != high else high,
        "deals": int(m.deals),
    }


@dataclass
class Diff:
    """What the diff found (see the module docstring)."""

    a: str
    b: str
    opponents: list[str]
    rules: Rules
    deals: int
    seed: int
    engine: str
    sides: dict[str, DiffTally]
    examples: list[DiffExample] = field(default_factory=list)
    cpu: float = 0.0
    wall: float = 0.0
    top: int = DiffSetup.situations
    output: Output = field(default_factory=Output)
    notes: list[str] = field(default_factory=list)
    settings: SeatSettings = field(default_factory=SeatSettings)
    rule: stopping.Look | None = None  # the sequential rule's last look (None: a fixed --deals)
    unit: str = "worms"  # what B's gain is in: chances to win ("win") or worms of swing

    def _columns(self, name: str, sides: Sequence[str]) -> list[float]:
        cols = [self.sides[s].column(name) for s in sides]
        return [sum(v) for v in zip(*cols, strict=True)]

    def _kinds(self, what: str, kinds: Sequence[str], sides: Sequence[str]) -> list[float]:
        cols = [self._columns(f"{k}_{what}", sides) for k in kinds]
        return [sum(v) for v in zip(*cols, strict=True)]

    def games(self, sides: Sequence[str] = SIDES) -> int:
        """The games that completed (every figure is per completed game)."""
        return int(sum(self._columns("games", sides)))

    def forfeits(self, sides: Sequence[str] = SIDES) -> int:
        """The games that did not complete (any seat's forfeit), left out of the figures."""
        return int(sum(self._columns("forfeits", sides)))

    def forfeit_rows(self) -> list[dict[str, Any]]:
        """Who forfeited how many games and why, in whose games (A's or B's)."""
        rows = [{"games_of": s, **r} for s in SIDES for r in self.sides[s].forfeit_rows()]
        return sorted(rows, key=lambda r: (-r["games"], r["games_of"], r["strategy"]))

    def __repr__(self) -> str:
        """What a person reads at a prompt (a notebook cell's last line): the setting, the
        verdict and where to look next."""
        from harness.coach.render import diff_summary

        return "\n".join(diff_summary(self.to_json()))

    def _repr_html_(self) -> str:
        """A notebook's view: the summary, then the table of gains."""
        from harness.coach.render import summary_html

        return summary_html(self.__repr__(), self.gains)

    def gain_rows(self) -> list[dict[str, Any]]:
        """B's gain over A per game (and partings), for A's games, B's games and both, by
        kind of decision and all kinds."""
        rows = []
        for label, sides in (("both", SIDES), ("A's games", ("A",)), ("B's games", ("B",))):
            games = self._columns("games", sides)
            for kind in (*KINDS, "all"):
                kinds = KINDS if kind == "all" else (kind,)
                asked = self._kinds("asked", kinds, sides)
                parted = self._kinds("parted", kinds, sides)

                def per_game(what: str, ks: Sequence[str] = kinds, ss: Sequence[str] = sides,
                             gs: list[float] = games) -> dict[str, Any]:  # fmt: skip
                    return _interval(Moments.of(self._kinds(what, ks, ss), gs))

                rows.append(
                    {
                        "games": label,
                        "kind": kind,
                        "asked": int(sum(asked)),
                        "parted": int(sum(parted)),
                        "part_rate": _interval(Moments.of(parted, asked)),
                        "partings_per_game": _interval(Moments.of(parted, games)),
                        "gain_per_game": _interval(
                            Moments.of(self._kinds("gain", kinds, sides), games)
                        ),
                        "gained_per_game": _interval(
                            Moments.of(self._kinds("gained", kinds, sides), games)
                        ),
                        "lost_per_game": _interval(
                            Moments.of(self._kinds("lost", kinds, sides), games)
                        ),
                    }
                )
        return rows

    @property
    def verdict(self) -> dict[str, Any]:
        """B's gain per game over both sides, and what its 95% interval says."""
        row = next(r for r in self.gain_rows() if r["games"] == "both" and r["kind"] == "all")
        gain = row["gain_per_game"]
        low, high = gain["low"], gain["high"]
        if self.rule is not None:
            says = stopping.says(self.rule, self.unit)
        elif row["parted"] == 0:
            says = "identical: A and B never decide differently on these deals"
        elif low is None or high is None:
            says = "too few deals for an interval"
        elif low > 0:
            says = "B is better (95%)"
        elif high < 0:
            says = "A is better (95%)"
        else:
            says = "not separated at 95%"
        return {**gain, "says": says, "partings": row["parted"]}

    def spots(self) -> dict[Key, Spot]:
        merged: dict[Key, Spot] = {}
        for side in SIDES:
            for key, spot in self.sides[side].spots.items():
                found = merged.get(key)
                if found is None:
                    merged[key] = Spot(
                        spot.count, spot.gain, spot.high, spot.high_at, spot.low, spot.low_at
                    )
                else:
                    found.merge(spot)
        return merged

    def lessons(self) -> dict[Key, Spot]:
        """The parting keys grouped into lessons: keys that differ only in the tile at
        risk are one lesson (what the bots do there does not turn on that tile), its
        ``at_risk`` the tiles seen, its spot the keys' spots merged."""
        merged: dict[Key, Spot] = {}
        risks: dict[Key, set[str]] = {}
        for (situation, a, b), spot in sorted(self.spots().items()):
            key = (replace(situation, at_risk=""), a, b)
            risks.setdefault(key, set()).add(situation.at_risk)
            found = merged.get(key)
            if found is None:
                merged[key] = Spot(
                    spot.count, spot.gain, spot.high, spot.high_at, spot.low, spot.low_at
                )
            else:
                found.merge(spot)
        return {
            (replace(s, at_risk=risk_text(risks[s, a, b])), a, b): spot
            for (s, a, b), spot in merged.items()
        }

    def ranked(self, gains: bool, lessons: bool = True) -> list[tuple[Key, Spot]]:
        """Lessons (``lessons``; else parting keys) where B gains (``gains``) or loses in
        all, most first."""
        found = self.lessons() if lessons else self.spots()
        spots = [(k, s) for k, s in found.items() if (s.gain > 0 if gains else s.gain < 0)]
        sign = -1 if gains else 1
        return sorted(spots, key=lambda ks: (sign * ks[1].gain, ks[0]))

    def spot_rows(
        self, gains: bool, top: int | None = None, lessons: bool = True
    ) -> list[dict[str, Any]]:
        ranked = self.ranked(gains, lessons)
        return self._rows(ranked[: self.top if top is None else top])

    def _rows(self, spots: Sequence[tuple[Key, Spot]]) -> list[dict[str, Any]]:
        games = max(self.games(), 1)
        return [
            {
                **situation.to_json(),
                "a": a,
                "b": b,
                "describe": situation.describe(),
                "count": spot.count,
                "mean_gain": spot.gain / spot.count,
                "gain_per_game": spot.gain / games,
            }
            for (situation, a, b), spot in spots
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "unit": self.unit,
            "opponents": self.opponents,
            "rules": self.rules.to_dict(),
            "rules_text": self.rules.describe(),
            "players": self.rules.players,
            "deals": self.deals,
            "games": {"A": self.games(("A",)), "B": self.games(("B",))},
            "seed": self.seed,
            "engine": self.engine,
            "seat_settings": self.settings.limit_values(),
            "verdict": self.verdict,
            "sequential": None
            if self.rule is None
            else {
                "deals": self.rule.deals,
                "settled": self.rule.settled,
                "level": self.rule.level,
                "low": self.rule.low,
                "high": self.rule.high,
                "looks": stopping.looks(stopping.MAX_DEALS),
                "alpha": stopping.ALPHA,
                "delta": stopping.DELTAS[self.unit],
            },
            "gains": self.gain_rows(),
            "where_b_gains": self.spot_rows(True),
            "where_b_loses": self.spot_rows(False),
            "examples": [e.to_json() for e in self.examples],
            "forfeits": {s: self.forfeits((s,)) for s in SIDES},
            "forfeited": self.forfeit_rows(),
            "figures_from": forfeit_note(self.forfeits(), self.games() + self.forfeits())
            if self.forfeits()
            else None,
            "shadow_failures": {s: int(sum(self.sides[s].column("failed"))) for s in SIDES},
            "failure_examples": [f for s in SIDES for f in self.sides[s].failures[:2]],
            "plugin_output": self.output.to_json(),
            "notes": list(self.notes),
            "cpu_seconds": self.cpu,
            "wall_seconds": self.wall,
        }

    @property
    def gains(self) -> pd.DataFrame:
        """One row per (games, kind): questions, partings and B's gain per game with its
        95% interval, split into where B gains and where it loses."""
        import pandas as pd

        rows = []
        for r in self.gain_rows():
            g = r["gain_per_game"]
            rows.append(
                {
                    "games": r["games"],
                    "kind": r["kind"],
                    "asked": r["asked"],
                    "parted": r["parted"],
                    "part_rate": r["part_rate"]["estimate"],
                    "gain_per_game": g["estimate"],
                    "low": g["low"],
                    "high": g["high"],
                    "gained_per_game": r["gained_per_game"]["estimate"],
                    "lost_per_game": r["lost_per_game"]["estimate"],
                }
            )
        return pd.DataFrame(rows).set_index(["games", "kind"])

    @property
    def partings(self) -> pd.DataFrame:
        """Every parting key (where, A's move, B's move): count and B's gain, most gained
        first."""
        import pandas as pd

        # every key, those worth exactly nothing too (in chances to win, two answers that
        # both settle the game alike part at no cost)
        rows = self._rows(sorted(self.spots().items(), key=lambda ks: (-ks[1].gain, ks[0])))
        columns = [*Situation.__dataclass_fields__, "a", "b", "count", "mean_gain", "gain_per_game"]
        return pd.DataFrame(rows, columns=[*columns, "describe"])[columns]

    def write(self, folder: str | Path) -> tuple[dict[str, Any], dict[str, Path]]:
        """diff.md, diff.html, diff.json and the examples' records into ``folder``: the
        JSON written and the files' paths."""
        from harness.coach.render import diff_blocks, write_answer

        records = [e.record for e in self.examples]
        title = f"Diff: {self.a} / {self.b}"
        data = self.to_json()
        return write_answer(
            Path(folder), "diff", title, data, records, diff_blocks, self.output.lines
        )


def named(ref: str) -> tuple[str | None, str]:
    """``NAME=REF`` as (NAME, REF); a plain reference as (None, REF). A ``=`` inside the
    parameters (``threshold(target=26)``) is not a name."""
    head, sep, rest = ref.partition("=")
    if (
        sep
        and head
        and "(" not in head
        and ":" not in head
        and all(c.isalnum() or c in "-_." for c in head)
    ):
        return head, rest
    return None, ref


def diff(
    a: str | StrategySpec,
    b: str | StrategySpec,
    *,
    setup: DiffSetup | None = None,
    progress: Callable[[int, int], None] | None = None,
    note: Callable[[str], None] | None = None,
    **keywords: Any,
) -> Diff:
    """A against B on duplicate deals against the opponents (module docstring), as
    ``setup`` says (a :class:`~harness.coach.setup.DiffSetup`) or its keywords, not both:
    ``deals`` of them, or (None, the default) up to
    :data:`~harness.coach.stopping.MAX_DEALS`, stopping once the answer is settled
    (:mod:`harness.coach.stopping`); ``opponents``, ``rules`` and ``players``, ``seed``,
    ``max_turns``, ``workers``, ``situations``, ``examples`` (positions played again with
    their records, where B gains most and where it loses most: as many of each) and the
    seat settings every seat plays under, as in a tournament (the shadow's calls count
    against its own limits): ``settings`` (a SeatSettings) or ``engine`` (auto, the
    default; python or native), ``move_time``, ``game_time`` and ``isolation``. ``a`` and
    ``b`` may be ``NAME=REF`` (two versions of one bot under names of their own). The bots
    play in worker processes whatever they do: a bot that ends its process forfeits that
    game (a shadow's death is its failure), its output is kept apart
    (:attr:`Diff.output`)."""
    started, wall = time.process_time(), time.perf_counter()
    held = DiffSetup.of(setup, **keywords)
    sequential = held.deals is None
    planned = stopping.MAX_DEALS if held.deals is None else held.deals
    field_ = make_field(held, planned)
    given, specs = [], []
    for what, ref in (("A", a), ("B", b)):
        name, text = named(ref) if isinstance(ref, str) else (None, ref)
        (spec,) = resolve_all([text], what)
        specs.append(spec)
        given.append(name)
    shown = shown_names([*specs, *field_.opponents])
    field_ = replace(field_, opponent_names=tuple(shown[2:]))
    names = [given[i] or shown[i] for i in range(2)]
    if names[0] == names[1]:
        names = [f"A: {names[0]}", f"B: {names[1]}"]
    sides = [
        (DiffSubject(primary, shadow, name, other, held.unit), lambda side=side: DiffTally(side))
        for side, (primary, shadow), name, other in zip(
            SIDES, (specs, specs[::-1]), names, names[::-1], strict=True
        )
    ]
    looks = stopping.looks(planned) if sequential else []
    rule: list[stopping.Look] = []

    def settled(count: int, tallies: list[DiffTally]) -> bool:
        found = _look(tallies, len(looks), count == planned, held.unit)
        rule[:] = [found]
        return found.settled is not None

    played = play_sides(field_, sides, workers=held.workers, progress=progress, looks=looks,
                        settled=settled if sequential else None, note=note)  # fmt: skip
    if sequential and (not rule or rule[0].deals != played.deals):
        rule[:] = [
            _look(played.tallies, len(looks), True, held.unit)
        ]  # the maximum: what it says there
    result = Diff(
        names[0],
        names[1],
        list(shown[2:]),
        field_.rules,
        played.deals,
        held.seed,
        played.engine,
        dict(zip(SIDES, played.tallies, strict=True)),
        top=held.situations,
        output=played.output,
        notes=played.notes,
        settings=held.settings,
        rule=rule[0] if rule else None,
        unit=held.unit,
    )
    picks = [(s.high_at, s.high) for _, s in result.ranked(True)[: held.examples]]
    picks += [(s.low_at, s.low) for _, s in result.ranked(False)[: held.examples]]
    found, output = call_contained(_examples, field_, sides, picks) if picks else ([], Output())
    result.examples = [] if found is None else found
    if len(result.examples) < len(picks):
        result.notes.append(
            f"{len(picks) - len(result.examples)} of {len(picks)} examples did not play "
            "again the same way, and are left out"
        )
    result.output.count(output.by_strategy)
    for line in output.lines:
        result.output.add(line)
    result.cpu = time.process_time() - started + played.cpu
    result.wall = time.perf_counter() - wall
    return result


def _look(
    tallies: Sequence[DiffTally], count: int, last: bool, unit: str = "worms"
) -> stopping.Look:
    """The sequential rule at the deals the tallies hold: B's gain and the games per deal,
    over both sides' games (its indifference zone in ``unit``)."""
    gains, games, parted = deal_gains(tallies)
    parted_deals = sum(p > 0 for p in parted)
    return stopping.look(gains, games, count, last, parted_deals, stopping.DELTAS[unit])


def deal_gains(tallies: Sequence[DiffTally]) -> tuple[list[float], list[float], list[float]]:
    """Per deal, over both sides' games: B's gain, the completed games, the partings."""
    n = len(tallies[0].rows)
    gains, games, parted = [0.0] * n, [0.0] * n, [0.0] * n
    for tally in tallies:
        columns = [tally.column(f"{k}_gain") for k in KINDS]
        partings = [tally.column(f"{k}_parted") for k in KINDS]
        for i, (played, *kinds) in enumerate(zip(tally.column("games"), *columns, strict=True)):
            games[i] += played
            gains[i] += sum(kinds)
            parted[i] += sum(p[i] for p in partings)
    return gains, games, parted


def _examples(
    field_: Field, sides: list[Any], picks: list[Any], *, watch: Any = None
) -> list[DiffExample]:
    """The extreme instance of the lessons where B gains most, and loses most (``picks``:
    (side, where) and B's gain there), played again with their records (in a worker
    process: :mod:`.workers`)."""
    found = []
    for at, gain in picks:
        side, where = at
        subject = sides[SIDES.index(side)][0]
        tally = DiffTally(side, catch=where.index)
        again = replay_game(field_, subject, tally, where, watch)
        if again is None:
            continue
        game, (moment, parting) = again
        a, b = parting.primary, parting.shadow
        if side == "B":
            a, b = b, a
        key = (situation_of(moment, parting.kind), move_text(parting.kind, a),
               move_text(parting.kind, b))  # fmt: skip
        found.append(
            DiffExample(
                key,
                side,
                where,
                field_.seat_of_subject(where.order),
                list(game.names),
                int(game.record["seed"]),  # type: ignore[index]
                moment,
                parting,
                gain,
                game.record,  # type: ignore[arg-type]
            )
        )
    return found


__all__ = ["DEFAULT_DEALS", "Diff", "DiffExample", "DiffSetup", "DiffTally", "diff", "named"]
