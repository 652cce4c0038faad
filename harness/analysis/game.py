"""A game's luck and skill, turn by turn, for people: ``harness analyze game`` and
``harness play --analyze``.

:func:`account_record` replays a game record through the engine with an
:class:`~harness.analysis.account.Accountant` listening, so the account is computed
from the moves themselves (a record's own stored figures are only compared with it);
:func:`account_lines` and :func:`account_json` show it. Per turn: par, each roll's luck,
each decision's regret with the best alternative, the swing and the check that
swing = par + luck - regret. Per seat: the sums over its own turns and, with two
players, the margin split into par, luck and skill (each seat's minus the other's), which
adds up to the worm margin exactly.

In chances to win (``unit="win"``, :mod:`harness.analysis.units`) the same account with
the evaluator's payoff: a turn's "swing" is the turn-taker's chance to win after it, and
with two players each seat's result (1, 1/2 or 0; the evaluator's chance for a game cut
short) splits exactly into its chance at the start + the evaluator's drift + luck + skill
(each seat's own minus the other's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.analysis.account import Accountant, Decision, Ledger, TurnAccount
from harness.analysis.roll import claim_words
from harness.analysis.units import WinTurn, accountant_for, check_unit
from harness.game.engine import GameResult
from harness.game.rules import Rules, face_name

#: The largest residual |swing - (par + luck - regret)| of a turn that still counts as
#: summing: float rounding is about 1e-15 a term, a turn has a few dozen terms.
TOLERANCE = 1e-9
#: What the numbers of an account are, for people.
UNIT_WORDS = {
    "worms": "worms of swing (the turn-taker's margin over the average opponent)",
    "win": "chances to win (the turn-taker's, by harness.winprob's evaluator)",
}


@dataclass
class GameAccount:
    """A played (or replayed) game's account: its turns, each seat's ledger, the result."""

    rules: Rules
    names: list[str]
    turns: list[TurnAccount]
    ledgers: list[Ledger]
    result: GameResult
    unit: str = "worms"  # "worms" (of swing) or "win" (chances to win)

    @property
    def worst_residual(self) -> float:
        return max((abs(t.residual) for t in self.turns), default=0.0)

    @property
    def sums(self) -> bool:
        """True when every finished turn sums to its swing (to :data:`TOLERANCE`)."""
        return self.worst_residual <= TOLERANCE

    def margin_split(self, seat: int) -> dict[str, float] | None:
        """With two players: the seat's worm margin as par + luck + skill, each the seat's
        own minus the other's (skill = minus regret); None at other table sizes. In
        chances to win: its result as start + drift + luck + skill (:meth:`win_split`)."""
        if len(self.ledgers) != 2:
            return None
        if self.unit == "win":
            return self.win_split(seat)
        mine, other = self.ledgers[seat], self.ledgers[1 - seat]
        return {
            "par": mine.par - other.par,
            "luck": mine.luck - other.luck,
            "skill": other.regret - mine.regret,
            "margin": float(self.result.scores[seat] - self.result.scores[1 - seat]),
        }

    def win_split(self, seat: int) -> dict[str, float]:
        """Two players, chances to win: the seat's chance after the last turn (its result
        share once the game is over, R10, R11) = its chance at the first turn's start +
        drift + luck + skill, each the seat's own turns' minus the other's (drift: par -
        the chance at the turn's start, what the turn programme adds to the evaluator).
        Exact: the two chances sum to one, so the other's turns move the seat's by minus
        theirs."""
        own: dict[int, list[float]] = {0: [0.0, 0.0, 0.0], 1: [0.0, 0.0, 0.0]}
        finished = [t for t in self.turns if t.swing is not None]
        for t in finished:
            sums = own[t.seat]
            sums[0] += t.par - t.before  # type: ignore[attr-defined]
            sums[1] += t.luck
            sums[2] += t.regret
        first = finished[0] if finished else None
        start = 0.5
        if first is not None:
            start = first.before if first.seat == seat else 1.0 - first.before  # type: ignore[attr-defined]
        result = start
        if finished:
            last = finished[-1]
            result = last.swing if last.seat == seat else 1.0 - last.swing  # type: ignore[operator]
        mine, other = own[seat], own[1 - seat]
        return {
            "start": start,
            "drift": mine[0] - other[0],
            "luck": mine[1] - other[1],
            "skill": other[2] - mine[2],
            "result": result,
        }


def account_of(
    rules: Rules, names: Sequence[str], accountant: Accountant, result: GameResult
) -> GameAccount:
    """The account an accountant kept while ``result``'s game was played."""
    accountant.finish()
    unit = getattr(accountant, "unit", "worms")
    return GameAccount(rules, list(names), accountant.turns, accountant.ledgers, result, unit)


def account_record(data: dict[str, Any], unit: str = "worms") -> GameAccount:
    """Replay a game record (checked move by move: RecordError, one line) and account it.

    A turn that carries its own ``"account"`` (records written by harness do) must agree
    with the one its moves give (to :data:`TOLERANCE`): a record that says otherwise
    contradicts itself, RecordError naming the turn.

    This is the one check of a record that commands make: ``harness replay`` and
    ``harness analyze game`` both call it, so a record one of them refuses the other
    never calls legal. (:func:`harness.game.record.replay`, below the account, checks the
    moves and the result only.) ``unit``: the account returned, in worms of swing or in
    chances to win (the stored figures, in worms, are checked either way).
    """
    from harness.game.engine import Fanout
    from harness.game.record import record_rules, replay

    check_unit(unit)
    rules = record_rules(data)
    worms = Accountant(rules, detail=True)
    wanted = worms if unit == "worms" else accountant_for(unit, rules, detail=True)
    observer = worms if wanted is worms else Fanout([worms, wanted])
    result = replay(data, observer=observer)
    checked = account_of(rules, list(data["seats"]), worms, result)
    for turn in checked.turns:
        _check_stored(data["turns"][turn.turn - 1].get("account"), turn)
    if wanted is worms:
        return checked
    return account_of(rules, list(data["seats"]), wanted, result)


def _check_stored(stored: Any, turn: TurnAccount) -> None:
    from harness.errors import RecordError, shown

    if stored is None:
        return
    where = f"turn {turn.turn}, seat {turn.seat}"
    if not isinstance(stored, dict):
        raise RecordError(f"{where}: account {shown(stored)} is not an object")
    for key, value in turn_summary(turn).items():
        given = stored.get(key)
        if value is None or given is None:
            if value is not given:
                raise RecordError(f"{where}: the record's {key} {shown(given)} should be {value}")
            continue
        if type(given) not in (int, float) or not abs(given - value) <= TOLERANCE:
            raise RecordError(
                f"{where}: the record says {key} {shown(given)}, its moves give {value:.6f}"
            )


def turn_summary(turn: TurnAccount) -> dict[str, float | None]:
    """What a record stores per turn (``"account"``): par, luck, regret, swing."""
    return {"par": turn.par, "luck": turn.luck, "regret": turn.regret, "swing": turn.swing}


# -- for people ------------------------------------------------------------------------------
def _signed(x: float) -> str:
    return f"{x:+.3f}"


def _move(decision: Decision, move: Any) -> str:
    if decision.kind == "pick":
        return f"keep {face_name(move)}"
    if decision.kind == "stop":
        return "stop" if move == "stop" else "roll on"
    return claim_words(*move)


def decision_line(decision: Decision) -> str:
    """One decision: what was done, and the better move and its cost where it was not best."""
    done = _move(decision, decision.chosen)
    if decision.regret <= TOLERANCE:
        return f"{done} (best)"
    best = _move(decision, decision.best.move)
    return f"{done}: regret {decision.regret:.3f} (best: {best}, {decision.best.value:+.3f})"


def turn_lines(turn: TurnAccount, names: Sequence[str]) -> list[str]:
    """A turn, told: its par, each roll and what followed, its end and the sum's check."""
    lines = [f"Turn {turn.turn}, seat {turn.seat} ({names[turn.seat]}): par {_signed(turn.par)}"]
    # A roll is followed by its pick and, where a stop was offered, stop or roll on; the
    # claim (if any) comes last.
    decisions = list(turn.decisions)
    at = 0
    for roll in turn.rolls:
        faces = " ".join(face_name(f) for f in sorted(roll.faces, reverse=True))
        lines.append(f"  roll {faces:<16} luck {_signed(roll.luck)}")
        for kind in ("pick", "stop"):
            if at < len(decisions) and decisions[at].kind == kind:
                lines.append(f"    {decision_line(decisions[at])}")
                at += 1
    lines += [f"    {decision_line(d)}" for d in decisions[at:]]
    if turn.swing is None:
        lines.append("  (cut short: no swing)")
    else:
        ok = "sums" if abs(turn.residual) <= TOLERANCE else f"OFF BY {turn.residual:.3g}"
        swing = "swing"
        if isinstance(turn, WinTurn):
            swing = f"chance {turn.before:.3f} before, after"
        lines.append(
            f"  {turn.end}: {swing} {_signed(turn.swing)} = par {_signed(turn.par)} "
            f"+ luck {_signed(turn.luck)} - regret {turn.regret:.3f} ({ok})"
        )
    return lines


def seat_lines(account: GameAccount) -> list[str]:
    """Each seat's sums over its own turns, and (two players) the worm margin split:
    each line says which it is, so that the two luck figures of a seat never read as
    one (the first is its own turns' luck, the second its own minus the other's)."""
    lines = []
    for seat, (name, ledger) in enumerate(zip(account.names, account.ledgers, strict=True)):
        lines.append(
            f"seat {seat} {name}, its own {ledger.turns} turns: par {_signed(ledger.par)}, "
            f"luck {_signed(ledger.luck)}, regret {ledger.regret:.3f}"
        )
        lines.append(
            f"  regret in picks {ledger.regret_pick:.3f}, stops {ledger.regret_stop:.3f}, "
            f"claims {ledger.regret_claim:.3f}"
        )
        split = account.margin_split(seat)
        if split is not None and account.unit == "win":
            lines.append(
                f"  chance (own minus other's): start {split['start']:.3f} + drift "
                f"{_signed(split['drift'])} + luck {_signed(split['luck'])} + skill "
                f"{_signed(split['skill'])} = {split['result']:.3f}"
            )
        elif split is not None:
            lines.append(
                f"  margin over seat {1 - seat} (own minus theirs): par {_signed(split['par'])}, "
                f"luck {_signed(split['luck'])}, skill {_signed(split['skill'])} = "
                f"{_signed(split['margin'])} worms"
            )
    return lines


def costliest(account: GameAccount, seat: int, count: int = 3) -> list[tuple[int, Decision]]:
    """The seat's ``count`` costliest decisions, as (turn number, decision)."""
    found = [
        (t.turn, d)
        for t in account.turns
        if t.seat == seat
        for d in t.decisions
        if d.regret > TOLERANCE
    ]
    return sorted(found, key=lambda td: -td[1].regret)[:count]


def account_lines(account: GameAccount, *, turns: bool = True) -> list[str]:
    """The whole account for people: every turn (``turns``), then every seat."""
    lines: list[str] = []
    if turns:
        for turn in account.turns:
            lines += turn_lines(turn, account.names)
        lines.append("")
    lines += seat_lines(account)
    for seat in range(len(account.names)):
        worst = costliest(account, seat)
        if worst:
            lines.append(f"seat {seat}'s costliest decisions:")
            lines += [f"  turn {n}: {decision_line(d)}" for n, d in worst]
    state = "every turn sums" if account.sums else "a turn does NOT sum"
    lines.append(f"Check: {state} (largest residual {account.worst_residual:.1e}).")
    lines.append(f"Unit: {UNIT_WORDS[account.unit]}.")
    return lines


def account_json(account: GameAccount) -> dict[str, Any]:
    """The account as JSON: turns (rolls, decisions with every option), seats, the check."""

    def decision(d: Decision) -> dict[str, Any]:
        return {
            "kind": d.kind,
            "chosen": _plain(d.chosen),
            "best": _plain(d.best.move),
            "regret": d.regret,
            "options": [{"move": _plain(o.move), "value": o.value} for o in d.options],
        }

    return {
        "unit": account.unit,
        "seats": account.names,
        "rules": account.rules.to_dict(),
        "turns": [
            {
                "turn": t.turn,
                "seat": t.seat,
                "par": t.par,
                "slope": t.slope,
                "rolls": [
                    {"faces": list(r.faces), "luck": r.luck, "best": r.best, "expected": r.expected}
                    for r in t.rolls
                ],
                "decisions": [decision(d) for d in t.decisions],
                "end": t.end or None,
                "swing": t.swing,
                "luck": t.luck,
                "regret": t.regret,
                "residual": t.residual,
                **({"before": t.before} if isinstance(t, WinTurn) else {}),
            }
            for t in account.turns
        ],
        "ledgers": [
            {
                "seat": seat,
                "name": name,
                **{k: getattr(led, k) for k in Ledger.__dataclass_fields__},
                "regret": led.regret,
                "margin_split": account.margin_split(seat),
            }
            for seat, (name, led) in enumerate(zip(account.names, account.ledgers, strict=True))
        ],
        "scores": account.result.scores,
        "sums": account.sums,
        "worst_residual": account.worst_residual,
    }


def _plain(move: Any) -> Any:
    return list(move) if isinstance(move, tuple) else move


__all__ = [
    "TOLERANCE",
    "UNIT_WORDS",
    "GameAccount",
    "account_json",
    "account_lines",
    "account_of",
    "account_record",
    "costliest",
    "decision_line",
    "turn_summary",
]
