"""``coach(bot)``: every decision of a bot audited against the exact turn optimum.

The bot plays its deals (:mod:`harness.coach.deals`) with its seat audited
(:class:`~harness.coach.audit.Audited`); :class:`Coaching` is the answer, for programs
(:meth:`Coaching.to_json`), notebooks (DataFrames: :attr:`Coaching.kinds`,
:attr:`~Coaching.situations`, :attr:`~Coaching.bands_frame`) and people (the terminal, Markdown
and HTML of :mod:`harness.coach.render`)::

    from harness.coach import coach
    c = coach("greedy", opponents=["simple"], deals=500, seed=1)
    c.kinds                 # worms lost per game to each kind of decision, 95% intervals
    c.situations.head()     # the costliest recurring situations

What it measures (docs/coach.md): a decision's *regret* is the best option's exact value
minus the chosen one's, in worms of swing, for the payoff ``optimal`` maximises (its
worms, a steal's loss to the victim, a bust's lost tile). The worms a bot loses per game
to a kind of decision is the sum of its regrets there per game, with a 95% interval
clustered by deal (:class:`harness.stats.Moments`). ``optimal`` itself loses nothing
outside its end game (ties only); in its end game it plays for the win instead of the
swing, and the coach counts what that costs in swing apart (the *end game* column).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.analysis.account import Decision
from harness.coach.audit import Audited, CoachTally, Key, Seen, Where, coach_key
from harness.coach.deals import Field, make_field, replay_game, resolve_all, shown_names
from harness.coach.setup import DEFAULT_OPPONENTS, CoachSetup
from harness.coach.situations import BAND_NAMES, BAND_PLURALS, KINDS, Situation
from harness.coach.valuing import Moment
from harness.coach.workers import Output, call_contained, forfeit_note, play_sides
from harness.game.rules import Rules
from harness.plugins import StrategySpec
from harness.seats.settings import SeatSettings
from harness.stats import Moments

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_DEALS: int = CoachSetup.deals  # the value's default, under its old name


@dataclass
class CoachSubject:
    """The audited bot: a fresh :class:`Audited` seat per game around the bot."""

    spec: StrategySpec
    name: str
    unit: str = "worms"

    @property
    def bots(self) -> tuple[StrategySpec, ...]:
        return (self.spec,)

    def seat(self, bots: list[Any], tally: CoachTally, failed: str | None = None) -> Audited:
        return Audited(bots[0], tally.add, self.unit)


@dataclass(frozen=True)
class Example:
    """One decision played again with its game's record: where, what, and the values."""

    key: Key
    where: Where
    seat: int
    seats: list[str]
    seed: int
    moment: Moment
    decision: Decision
    record: dict[str, Any] = field(repr=False)

    def to_json(self) -> dict[str, Any]:
        d = self.decision
        return {
            **_key_json(self.key),
            "deal": self.where.deal,
            "table": self.where.table,
            "seating": self.where.order,
            "seat": self.seat,
            "seats": self.seats,
            "seed": self.seed,
            "turn": self.moment.turn,
            "kind": d.kind,
            "chosen": _plain(d.chosen),
            "best": _plain(d.best.move),
            "regret": d.regret,
            "options": [{"move": _plain(o.move), "value": o.value} for o in d.options],
            "grill": list(self.moment.grill),
            "tops": list(self.moment.tops),
            "set_aside": list(self.moment.before),
            "roll": list(self.moment.roll),
            "analyze": self.moment.analyze_command(),
            "play": self.play_command(),
        }

    def play_command(self) -> str:
        """The ``harness play`` command that plays this game again (told turn by turn)."""
        seats = " ".join(_quoted(s) for s in self.seats)
        return f"harness play {seats} --seed {self.seed} --dice duplicate"


def _key_json(key: Key) -> dict[str, Any]:
    situation, did, better = key
    return {**situation.to_json(), "did": did, "better": better}


def _quoted(text: str) -> str:
    return text if all(c.isalnum() or c in "-_.:/=" for c in text) else f"'{text}'"


def _plain(move: Any) -> Any:
    return list(move) if isinstance(move, tuple) else move


def _interval(m: Moments) -> dict[str, float | None]:
    low, high = m.interval()
    est = m.estimate
    return {"estimate": _num(est), "low": _num(low), "high": _num(high), "deals": int(m.deals)}


def _num(x: float) -> float | None:
    return None if x != x else x  # nan: undefined, shown as a dash


@dataclass
class Coaching:
    """What the coach found (see the module docstring)."""

    bot: str
    opponents: list[str]
    rules: Rules
    deals: int
    seed: int
    engine: str
    bands: tuple[float, float, float]
    tally: CoachTally
    examples: list[Example]
    cpu: float = 0.0
    wall: float = 0.0
    top: int = CoachSetup.situations
    output: Output = field(default_factory=Output)
    notes: list[str] = field(default_factory=list)
    settings: SeatSettings = field(default_factory=SeatSettings)
    unit: str = "worms"  # what a regret is in: chances to win ("win") or worms of swing

    # -- the numbers ------------------------------------------------------------------
    @property
    def games(self) -> int:
        """The games that completed: every figure is per completed game."""
        return int(sum(self.tally.column("games")))

    @property
    def games_played(self) -> int:
        """Every game played, forfeits included."""
        return self.games + self.forfeits()

    def _per_game(self, values: Sequence[float]) -> Moments:
        return Moments.of(values, self.tally.column("games"))

    def _sum(self, fields: Sequence[str]) -> list[float]:
        columns = [self.tally.column(f) for f in fields]
        return [sum(row) for row in zip(*columns, strict=True)] if columns else []

    def kind_rows(self) -> list[dict[str, Any]]:
        """Per kind of decision (and all): decisions and losses per game, errors, bands."""
        rows = []
        for kind in (*KINDS, "all"):
            kinds = KINDS if kind == "all" else (kind,)

            def col(name: str, kinds: tuple[str, ...] = kinds) -> list[float]:
                return self._sum([f"{k}_{name}" for k in kinds])

            decisions = col("decisions")
            row: dict[str, Any] = {
                "kind": kind,
                "decisions": int(sum(decisions)),
                "decisions_per_game": _interval(self._per_game(decisions)),
                "loss_per_game": _interval(self._per_game(col("regret"))),
                "end_game_loss_per_game": _interval(self._per_game(col("end_game"))),
                "mean_regret": _interval(Moments.of(col("regret"), decisions)),
                "not_best": _interval(Moments.of(col("errors"), decisions)),
            }
            for b, (name, plural) in enumerate(zip(BAND_NAMES, BAND_PLURALS, strict=True), 1):
                row[plural] = int(sum(col(f"band{b}")))
                row[f"{name}_rate"] = _interval(Moments.of(col(f"band{b}"), decisions))
            rows.append(row)
        return rows

    def band_rows(self) -> list[dict[str, Any]]:
        """Per band: its range in worms, how many decisions, per game and per decision."""
        decisions = self._sum([f"{k}_decisions" for k in KINDS])
        limits = (*self.bands, float("inf"))
        rows = []
        for b, name in enumerate(BAND_NAMES, 1):
            counts = self._sum([f"{k}_band{b}" for k in KINDS])
            rows.append(
                {
                    "band": name,
                    "from": limits[b - 1],
                    "below": None if limits[b] == float("inf") else limits[b],
                    "count": int(sum(counts)),
                    "per_game": _interval(self._per_game(counts)),
                    "rate": _interval(Moments.of(counts, decisions)),
                }
            )
        return rows

    def ranked(self) -> list[tuple[Key, Seen]]:
        """Every situation where the bot erred, costliest (summed regret) first."""
        return sorted(self.tally.situations.items(), key=lambda kv: (-kv[1].regret, kv[0]))

    def situation_rows(self, top: int | None = None) -> list[dict[str, Any]]:
        games = max(self.games, 1)
        rows = []
        for key, seen in self.ranked()[: top if top is not None else self.top]:
            rows.append(
                {
                    **_key_json(key),
                    "describe": key[0].describe(),
                    "count": seen.count,
                    "mean_regret": seen.regret / seen.count,
                    "loss_per_game": seen.regret / games,
                    "worst": seen.worst,
                }
            )
        return rows

    def forfeits(self) -> int:
        """Games that did not complete (any seat's forfeit), left out of the figures."""
        return int(sum(self.tally.column("forfeits")))

    def __repr__(self) -> str:
        """What a person reads at a prompt (a notebook cell's last line): the setting, the
        loss per game and where to look next."""
        from harness.coach.render import coach_summary

        return "\n".join(coach_summary(self.to_json()))

    def _repr_html_(self) -> str:
        """A notebook's view: the summary, then the table of kinds."""
        from harness.coach.render import summary_html

        return summary_html(self.__repr__(), self.kinds)

    # -- for programs and notebooks -----------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "unit": self.unit,
            "opponents": self.opponents,
            "rules": self.rules.to_dict(),
            "rules_text": self.rules.describe(),
            "players": self.rules.players,
            "deals": self.deals,
            "games": self.games,
            "games_played": self.games_played,
            "seed": self.seed,
            "engine": self.engine,
            "seat_settings": self.settings.limit_values(),
            "bands": dict(zip(BAND_NAMES, self.bands, strict=True)),
            "kinds": self.kind_rows(),
            "band_counts": self.band_rows(),
            "situations": self.situation_rows(),
            "situation_count": len(self.tally.situations),
            "examples": [e.to_json() for e in self.examples],
            "forfeits": self.forfeits(),
            "forfeited": self.tally.forfeit_rows(),
            "figures_from": forfeit_note(self.forfeits(), self.games_played)
            if self.forfeits()
            else None,
            "turn_capped": int(sum(self.tally.column("capped"))),
            "plugin_output": self.output.to_json(),
            "notes": list(self.notes),
            "cpu_seconds": self.cpu,
            "wall_seconds": self.wall,
        }

    @property
    def kinds(self) -> pd.DataFrame:
        """One row per kind of decision (pick, stop, claim, all): decisions, worms lost per
        game with the 95% interval, the end game's part, mean regret, error rates."""
        import pandas as pd

        rows = []
        for r in self.kind_rows():
            rows.append(
                {
                    "kind": r["kind"],
                    "decisions": r["decisions"],
                    "per_game": r["decisions_per_game"]["estimate"],
                    "loss_per_game": r["loss_per_game"]["estimate"],
                    "low": r["loss_per_game"]["low"],
                    "high": r["loss_per_game"]["high"],
                    "end_game_loss": r["end_game_loss_per_game"]["estimate"],
                    "mean_regret": r["mean_regret"]["estimate"],
                    "not_best": r["not_best"]["estimate"],
                    **{n: r[n] for n in BAND_PLURALS},
                }
            )
        return pd.DataFrame(rows).set_index("kind")

    @property
    def situations(self) -> pd.DataFrame:
        """Every situation where the bot erred (one row each, costliest first): its key,
        count, mean regret and worms lost per game."""
        import pandas as pd

        rows = self.situation_rows(top=len(self.tally.situations))
        columns = [*Situation.__dataclass_fields__, "did", "better"]
        columns += ["count", "mean_regret", "loss_per_game"]
        return pd.DataFrame(rows, columns=[*columns, "describe", "worst"])[columns]

    @property
    def bands_frame(self) -> pd.DataFrame:
        """One row per error band: its range, count, per game and per decision."""
        import pandas as pd

        rows = [
            {
                "band": r["band"],
                "from": r["from"],
                "below": r["below"],
                "count": r["count"],
                "per_game": r["per_game"]["estimate"],
                "rate": r["rate"]["estimate"],
            }
            for r in self.band_rows()
        ]
        return pd.DataFrame(rows).set_index("band")

    def write(self, folder: str | Path) -> tuple[dict[str, Any], dict[str, Path]]:
        """coach.md, coach.html, coach.json and the examples' records into ``folder``: the
        JSON written and the files' paths."""
        from harness.coach.render import coach_blocks, write_answer

        records = [e.record for e in self.examples]
        return write_answer(
            Path(folder),
            "coach",
            f"Coach: {self.bot}",
            self.to_json(),
            records,
            coach_blocks,
            self.output.lines,
        )


def coach(
    bot: str | StrategySpec,
    *,
    setup: CoachSetup | None = None,
    progress: Callable[[int, int], None] | None = None,
    note: Callable[[str], None] | None = None,
    **keywords: Any,
) -> Coaching:
    """Audit every decision ``bot`` takes on duplicate deals against its opponents (see
    the module docstring), as ``setup`` says (a :class:`~harness.coach.setup.CoachSetup`)
    or its keywords, not both: ``opponents`` (default simple), ``rules`` and ``players``,
    ``deals`` (1,000), ``seed``, ``max_turns``, ``workers``, ``bands``, ``situations``
    and ``examples`` (how many of the costliest situations get an example played again
    with its record), and the seat settings every seat plays under, as in a tournament:
    ``settings`` (a SeatSettings) or ``engine`` (auto, the default; python or native),
    ``move_time``, ``game_time`` and ``isolation``. The bots play in worker processes
    (``workers``) whatever they do: a bot that ends its process or runs over its time
    forfeits that game, its output is kept apart (:attr:`Coaching.output`); ``note``
    hears what a person should know as it plays, ``progress`` the games done."""
    started, wall = time.process_time(), time.perf_counter()
    held = CoachSetup.of(setup, **keywords)
    field_ = make_field(held, held.deals)
    (spec,) = resolve_all([bot], "BOT")
    shown = shown_names([spec, *field_.opponents])
    field_ = replace(field_, opponent_names=tuple(shown[1:]))
    subject = CoachSubject(spec, shown[0], held.unit)
    sides = [(subject, lambda: CoachTally(held.bands))]
    played = play_sides(field_, sides, workers=held.workers, progress=progress, note=note)
    result = Coaching(
        subject.name,
        list(shown[1:]),
        field_.rules,
        held.deals,
        held.seed,
        played.engine,
        held.bands,
        played.tallies[0],
        [],
        top=held.situations,
        output=played.output,
        notes=played.notes,
        settings=held.settings,
        unit=held.unit,
    )
    wheres = [seen.where for _, seen in result.ranked()[: held.examples]]
    found, output = (
        call_contained(_examples, field_, sides, wheres, held.bands) if wheres else ([], Output())
    )
    result.examples = [] if found is None else found
    if found is None or len(found) < len(wheres):
        result.notes.append(
            f"{len(wheres) - len(result.examples)} of {len(wheres)} examples did not play "
            "again the same way, and are left out"
        )
    result.output.count(output.by_strategy)
    for line in output.lines:
        result.output.add(line)
    result.cpu = time.process_time() - started + played.cpu
    result.wall = time.perf_counter() - wall
    return result


def _examples(
    field_: Field, sides: list[Any], wheres: list[Where], bands: Any, *, watch: Any = None
) -> list[Example]:
    """The costliest instance of each of the costliest situations (``wheres``), played
    again on the Python engine with its record (in a worker process: :mod:`.workers`)."""
    subject = sides[0][0]
    found = []
    for where in wheres:
        tally = CoachTally(bands, catch=where.index)
        again = replay_game(field_, subject, tally, where, watch)
        if again is None:
            continue
        game, (moment, decision) = again
        found.append(
            Example(
                coach_key(moment, decision),
                where,
                field_.seat_of_subject(where.order),
                list(game.names),
                int(game.record["seed"]),  # type: ignore[index]
                moment,
                decision,
                game.record,  # type: ignore[arg-type]
            )
        )
    return found


__all__ = [
    "DEFAULT_DEALS",
    "DEFAULT_OPPONENTS",
    "CoachSetup",
    "Coaching",
    "Example",
    "coach",
]
