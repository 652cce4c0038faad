"""A game with a person at the table: ``harness play you greedy optimal``.

One seat is the person's (:class:`~harness.people.seat.Person`), the others are bots. The
game is played on the Python engine (the person's seat is asked in this process), told
turn by turn (:class:`harness.play.narrate.Narrator`), recorded move by move with each turn's
luck and skill account (:class:`harness.game.record.RecordBuilder`,
:class:`~harness.analysis.account.Accountant`), and summed up at the end per seat: par,
luck, skill and the three costliest decisions with the better move (docs/luck.md).

The record is written whatever happens: at the end of the game, or when the person stops
it (Ctrl-C, ``q``, the end of the input), then with the turns finished so far: a record
may end before the game is over, and replays and analyses like any other. A seed replays
the same dice: the engine draws each turn's dice whatever is decided (``harness.game.dice``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.analysis.account import Accountant, TurnAccount
from harness.analysis.game import GameAccount, account_of, costliest, decision_line, turn_summary
from harness.analysis.units import accountant_for
from harness.errors import HarnessError
from harness.game.dice import DuplicateDice, SeededDice
from harness.game.engine import DEFAULT_MAX_TURNS, GameResult, observing
from harness.game.record import RecordBuilder, save_record
from harness.game.rules import Rules
from harness.people.console import Console
from harness.people.seat import SEAT_NAME, Person
from harness.play import build_strategies, play_observed
from harness.play.narrate import Narrator, summary_lines

DEFAULT_RECORDS = Path("results") / "play"


@dataclass
class PersonGame:
    """How a person's game ended: the result (None if stopped), the record written and
    its path, why it stopped early, and the account (None if stopped)."""

    result: GameResult | None
    record: dict[str, Any]
    path: Path
    stopped: str | None
    account: GameAccount | None


def seat_of_person(strategies: Sequence[str]) -> int | None:
    """The person's seat in a command line's list, None if there is none; HarnessError
    for two (one person at a time)."""
    seats = [i for i, s in enumerate(strategies) if s == SEAT_NAME]
    if len(seats) > 1:
        raise HarnessError(f"{SEAT_NAME!r} is given {len(seats)} times: one person plays a game")
    return seats[0] if seats else None


def default_record(seed: int) -> Path:
    return DEFAULT_RECORDS / f"{time.strftime('%Y%m%d-%H%M%S')}-seed{seed}.json"


def play_person(
    strategies: Sequence[str],
    rules: Rules,
    seed: int,
    *,
    duplicate: bool = False,
    record_path: Path | None = None,
    hints: bool = False,
    tutor: float | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    console: Console | None = None,
    unit: str = "win",
) -> PersonGame:
    """Play one game with the person in the seat named ``you``; write its record (also when
    the person stops it: KeyboardInterrupt is caught, the record written, and the result
    says why). The summary lines are :func:`summary_text`'s; hints, the tutor and the
    summary's account are in ``unit`` (the record stores the worm account either way)."""
    console = console if console is not None else Console()
    seat = seat_of_person(strategies)
    if seat is None:
        raise HarnessError(f"no seat named {SEAT_NAME!r}")
    bots, bot_names = build_strategies([s for s in strategies if s != SEAT_NAME])
    names = list(bot_names)
    names.insert(seat, SEAT_NAME)
    person = Person(hints=hints, tutor=tutor, names=names, console=console, unit=unit)
    instances: list[Any] = list(bots)
    instances.insert(seat, person)
    path = record_path if record_path is not None else default_record(seed)
    path.parent.mkdir(parents=True, exist_ok=True)

    builder = RecordBuilder(rules, names, seed)
    accountant = Accountant(rules, detail=True, listener=_into(builder))
    judged = accountant if unit == "worms" else accountant_for(unit, rules, detail=True)
    narrator = _Teller(names, console.say, seat)
    _welcome(console, rules, seed, names, seat, duplicate)
    dice = DuplicateDice(seed) if duplicate else SeededDice(seed)
    try:
        result = play_observed(
            instances,
            rules,
            dice,
            names=names,
            seed=seed,
            max_turns=max_turns,
            observer=observing(
                builder, accountant, narrator, judged if judged is not accountant else None
            ),
            forfeit=True,
        )
    except KeyboardInterrupt:
        record = _partial(builder, person.stopped or "interrupted")
        save_record(record, path)
        return PersonGame(None, record, path, person.stopped or "interrupted", None)
    record = builder.finish(result)
    save_record(record, path)
    accountant.finish()
    return PersonGame(result, record, path, None, account_of(rules, names, judged, result))


class _Teller(Narrator):
    """The narration (the console wraps it at 80 columns), but for the person's turn
    header: the person's seat draws its own."""

    def __init__(self, names: list[str], write: Any, person: int) -> None:
        super().__init__(names, write)
        self.person = person

    def turn_started(self, turn: int, seat: int) -> None:
        if seat == self.person:
            self._left = 8
        else:
            super().turn_started(turn, seat)


def _into(builder: RecordBuilder) -> Any:
    """Each finished turn's account into the record's turn, as records written by harness
    carry it (``harness analyze game`` checks it against the moves)."""

    def write(turn: TurnAccount) -> None:
        if turn.swing is not None and 0 < turn.turn <= len(builder.turns):
            builder.turns[turn.turn - 1]["account"] = turn_summary(turn)

    return write


def _partial(builder: RecordBuilder, why: str) -> dict[str, Any]:
    """The record of the turns finished so far (a turn cut short is left out)."""
    if builder.turns and "end" not in builder.turns[-1]:
        builder.turns.pop()
    return {**builder.record, "stopped": why}


def _welcome(
    console: Console, rules: Rules, seed: int, names: list[str], seat: int, duplicate: bool
) -> None:
    console.say(f"Pickomino: {rules.describe()}", "title")
    dice = " --dice duplicate" if duplicate else ""
    console.say(f"Seed {seed} (the same seed{dice} deals the same dice again).")
    for s, name in enumerate(names):
        console.say(f"  seat {s}: {'you' if s == seat else name}")
    console.say("Answer each question with a key and Enter; ? for help, q to stop.")


def summary_text(game: PersonGame, seat: int) -> list[str]:
    """The end of a person's game: scores, then per seat par, luck and skill and its three
    costliest decisions with the better move (80 columns)."""
    lines: list[str] = []
    if game.result is None:
        return [f"Stopped ({game.stopped}) after {len(game.record['turns'])} turns."]
    lines += summary_lines(game.result)
    account = game.account
    if account is None:
        return lines
    lines += ["", "Luck and skill, exact (docs/luck.md): each seat over its own turns"]
    for s, (name, ledger) in enumerate(zip(account.names, account.ledgers, strict=True)):
        who = "you" if s == seat else name
        lines.append(
            f"  seat {s} {who}: par {ledger.par:+.2f}, luck {ledger.luck:+.2f}, "
            f"skill {-ledger.regret:+.2f} ({ledger.turns} turns)"
        )
        for turn, decision in costliest(account, s, 3):
            lines.append(f"    turn {turn}: {decision_line(decision)}")
    split = account.margin_split(seat)
    if split is not None and account.unit == "win":
        lines.append(
            f"Your result {split['result']:.2f} = start {split['start']:.2f} + drift "
            f"{split['drift']:+.2f} + luck {split['luck']:+.2f} + skill {split['skill']:+.2f}"
        )
        lines.append("  (chances to win, yours minus theirs: docs/luck.md)")
    elif split is not None:
        lines.append(
            f"Your margin {split['margin']:+.0f} = par {split['par']:+.2f} + luck "
            f"{split['luck']:+.2f} + skill {split['skill']:+.2f} (yours minus theirs)"
        )
    return lines


__all__ = ["DEFAULT_RECORDS", "PersonGame", "default_record", "play_person", "seat_of_person",
           "summary_text"]  # fmt: skip
