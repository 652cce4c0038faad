"""Game records (``pickomino-record/1``): writing them, reading them, replaying them.

A record is JSON::

    {"format": "pickomino-record/1",
     "rules": {"players": 3, ...variant keys; missing = official; "preset" may name one},
     "seats": ["greedy", ...],
     "turns": [{"seat": 0, "rolls": [[6, 6, 3, 1, 2, 2, 5, 4], [5, 5, 1, 3, 2, 4]],
                "keeps": [6, 5], "end": {"claim": 27}}, ...]}

Per turn, ``rolls`` lists every roll, ``keeps`` the face set aside after each roll that
had a new face, and ``end`` is ``{"claim": T}``, ``{"steal": T, "from": SEAT}`` or
``{"bust": "no-new-face" | "no-worm" | "no-tile"}``. A stop is implied when a claim or
steal follows the last keep. Other fields (seed, ...) are allowed and kept; records
written by harness give each turn its luck and skill ``account`` (par, luck, regret,
swing: :mod:`harness.analysis.account`), which :func:`replay` here ignores (the account
is computed above this room) and :func:`harness.analysis.game.account_record` checks
against the moves: the one check both ``harness replay`` and ``harness analyze game``
make. A record may end before the game is over.

Replay re-applies a record through the engine itself, with the recorded dice and the
recorded decisions, so a record is checked by exactly the rules that produced it. A
``result`` (what :class:`RecordBuilder` attaches: ``scores``, ``winner``, ``over``,
``status`` and, for a forfeit, ``error``) must be an object that says what the moves
give: one that contradicts them is refused (a record without one is fine).

A record file is input from anywhere, so reading it is bounded: at most
:data:`MAX_RECORD_BYTES`, numbers of at most :data:`MAX_RECORD_DIGITS` digits, seat names
of one line and at most :data:`MAX_SEAT_NAME_CHARS` characters, nesting as deep as JSON
allows; anything else is one RecordError line, and values shown in messages are bounded
(:func:`harness.plugins.shown`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from harness.errors import (
    GameError,
    IllegalMove,
    RecordError,
    RulesError,
    RunFailed,
    StrategyFailed,
    safe_text,
    shown,
)
from harness.game.dice import Roll, encode_turn
from harness.game.engine import BUST_REASONS, Game, GameObserver, GameResult, observing
from harness.game.rules import DICE, TILES, WORM, Rules, face_name
from harness.game.strategy import Claim, Strategy, View

RECORD_FORMAT = "pickomino-record/1"
# A turn takes ~50-200 bytes, so a game at the largest turn cap (32,767) fits in ~7 MB.
MAX_RECORD_BYTES = 16_000_000
MAX_RECORD_DIGITS = 20  # a seed is int64 (19 digits); faces, tiles and seats are small
MAX_SEAT_NAME_CHARS = 200  # as a tournament's display names (harness.tourney.config)
_RULE_CHARS = 40  # a variant key or value under "rules"


class RecordBuilder(GameObserver):
    """Builds the record of a game as it is played."""

    def __init__(self, rules: Rules, seats: list[str], seed: Any = None) -> None:
        self.record: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "rules": rules.to_dict(),
            "seats": list(seats),
        }
        if seed is not None:
            self.record["seed"] = seed
        self.turns: list[dict[str, Any]] = []
        self.record["turns"] = self.turns
        self._turn: dict[str, Any] = {}

    def turn_started(self, turn: int, seat: int) -> None:
        self._turn = {"seat": seat, "rolls": [], "keeps": []}
        self.turns.append(self._turn)

    def kept(self, seat: int, roll: Roll, face: int, count: int, total: int, left: int) -> None:
        self._turn["rolls"].append(list(roll.faces))
        self._turn["keeps"].append(face)

    def claimed(self, seat: int, claim: Claim, total: int) -> None:
        if claim.victim is None:
            self._turn["end"] = {"claim": claim.tile}
        else:
            self._turn["end"] = {"steal": claim.tile, "from": claim.victim}

    def busted(
        self, seat: int, reason: str, total: int, returned: Any, turned: Any, roll: Any
    ) -> None:
        if roll is not None:
            self._turn["rolls"].append(list(roll.faces))
        self._turn["end"] = {"bust": reason}

    def finish(self, result: GameResult) -> dict[str, Any]:
        """The record with the result attached (an extra field, ignored by replay)."""
        if self.turns and "end" not in self.turns[-1]:
            self.turns.pop()  # a turn cut short by a strategy error has no end
        self.record["result"] = {
            "scores": result.scores,
            "winner": result.winner,
            "over": result.over,
            "status": result.status,
        }
        if result.error is not None:
            self.record["result"]["error"] = str(result.error)
        return self.record


# -- reading ------------------------------------------------------------------------
def load_record(path: str | Path) -> dict[str, Any]:
    """Read and check a record file; RecordError (one line) for anything wrong."""
    try:
        with Path(path).open("rb") as fh:  # never more than the bound (and a byte to tell)
            raw = fh.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        raise RecordError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise RecordError(f"{path}: cannot read: a folder, not a record") from None
    except OSError as exc:
        raise RecordError(f"{path}: cannot read: {safe_text(exc.strerror or exc)}") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise RecordError(
            f"{path}: larger than {MAX_RECORD_BYTES:,} bytes; not a game record "
            f"(a game at the largest turn cap is a few MB)"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path}: cannot read: not UTF-8 text (byte {exc.start:,})") from None

    def whole_number(digits: str) -> int:
        if len(digits.lstrip("-")) > MAX_RECORD_DIGITS:
            raise RecordError(
                f"{path}: a number of {len(digits):,} digits; a record's numbers have at most "
                f"{MAX_RECORD_DIGITS}"
            )
        return int(digits)

    try:
        data = json.loads(text, parse_int=whole_number)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not valid JSON: {exc.msg} (line {exc.lineno})") from None
    except RecursionError:
        raise RecordError(f"{path}: JSON nested too deeply; not a game record") from None
    except (ValueError, MemoryError) as exc:
        raise RecordError(f"{path}: cannot read the JSON: {safe_text(exc, 200)}") from None
    return check_record(data)


def _fail(where: str, what: str) -> RecordError:
    return RecordError(f"{where}: {what}")


def check_record(data: Any) -> dict[str, Any]:
    """Check a record's shape (not yet its legality); return it as is."""
    if not isinstance(data, dict):
        raise _fail("record", "expected a JSON object")
    fmt = data.get("format")
    if fmt != RECORD_FORMAT:
        raise _fail("format", f"expected {RECORD_FORMAT!r}, got {shown(fmt)}")
    seats = data.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise _fail("seats", "expected a list of strategy names")
    for i, name in enumerate(seats):
        if len(name) > MAX_SEAT_NAME_CHARS or not name.isprintable():
            raise _fail(
                f"seats[{i}]",
                f"{shown(name, 60)}: a name is one line of at most {MAX_SEAT_NAME_CHARS} "
                "printable characters",
            )
    try:
        record_rules(data)
    except RulesError as exc:
        raise RecordError(str(exc)) from None
    if "result" in data and not isinstance(data["result"], dict):
        raise _fail(
            "result",
            f"expected an object (scores, winner, over, status), got {shown(data['result'])}",
        )
    turns = data.get("turns")
    if not isinstance(turns, list):
        raise _fail("turns", "expected a list of turns")
    for i, turn in enumerate(turns):
        where = f"turns[{i}]"
        if not isinstance(turn, dict):
            raise _fail(where, "expected an object with seat, rolls, keeps, end")
        for key in ("seat", "rolls", "keeps", "end"):
            if key not in turn:
                raise _fail(where, f"missing {key!r}")
        seat = turn["seat"]
        if type(seat) is not int or not 0 <= seat < len(seats):
            raise _fail(f"{where}.seat", f"expected a seat 0..{len(seats) - 1}, got {shown(seat)}")
        rolls = turn["rolls"]
        if not isinstance(rolls, list) or not rolls:
            raise _fail(f"{where}.rolls", "expected a non-empty list of rolls")
        for j, faces in enumerate(rolls):
            if (
                not isinstance(faces, list)
                or not 1 <= len(faces) <= DICE
                or any(type(f) is not int or not 1 <= f <= 6 for f in faces)
            ):
                raise _fail(f"{where}.rolls[{j}]", f"expected 1 to 8 faces 1-6, got {shown(faces)}")
        keeps = turn["keeps"]
        if not isinstance(keeps, list) or any(type(f) is not int for f in keeps):
            raise _fail(f"{where}.keeps", f"expected a list of faces, got {shown(keeps)}")
        _check_end(f"{where}.end", turn["end"], len(seats))
        wanted = len(keeps) + (turn["end"].get("bust") == "no-new-face")
        if len(rolls) != wanted:
            raise _fail(
                where,
                f"{len(rolls)} rolls for {len(keeps)} keeps: every roll is followed by a keep, "
                "but for the last roll of a no-new-face bust",
            )
    return data


def _check_end(where: str, end: Any, players: int) -> None:
    if not isinstance(end, dict) or len(end) == 0:
        raise _fail(where, "expected {claim: T}, {steal: T, from: SEAT} or {bust: REASON}")
    if "claim" in end:
        if set(end) != {"claim"} or type(end["claim"]) is not int:
            raise _fail(where, f"expected {{claim: TILE}}, got {shown(end)}")
    elif "steal" in end:
        if set(end) != {"steal", "from"} or type(end["steal"]) is not int:
            raise _fail(where, f"expected {{steal: TILE, from: SEAT}}, got {shown(end)}")
        if type(end["from"]) is not int or not 0 <= end["from"] < players:
            raise _fail(where, f"steal from {shown(end['from'])}: not a seat 0..{players - 1}")
    elif "bust" in end:
        if (
            set(end) != {"bust"}
            or not isinstance(end["bust"], str)
            or end["bust"] not in BUST_REASONS
        ):
            raise _fail(where, f"bust must be one of {', '.join(BUST_REASONS)}, got {shown(end)}")
    else:
        raise _fail(where, f"expected claim, steal or bust, got {shown(end)}")


def record_rules(data: dict[str, Any]) -> Rules:
    rules = data.get("rules", {})
    if rules is None:
        rules = {}
    if isinstance(rules, str):
        rules = {"preset": rules}
    seats = data.get("seats") or []
    if not isinstance(rules, dict):
        raise RulesError(f"rules: expected a mapping of variant keys, got {shown(rules)}")
    for key, value in rules.items():
        # Short words only: what Rules says about them (with repr) stays one short line.
        if not isinstance(key, str) or len(key) > _RULE_CHARS:
            raise RulesError(f"rules: unknown key {shown(key, 60)}")
        plain = value is None or type(value) in (bool, int, float)
        if not plain and not (isinstance(value, str) and len(value) <= _RULE_CHARS):
            raise RulesError(f"rules.{key}: {shown(value, 60)} is not a variant value")
    if "players" in rules and rules["players"] != len(seats):
        raise RulesError(
            f"rules.players is {shown(rules['players'])} but the record has {len(seats)} "
            f"seat{'s' if len(seats) != 1 else ''} (R3)"
        )
    return Rules.from_dict({"players": len(seats), **rules})


# -- replay -------------------------------------------------------------------------
class _Mismatch(Exception):
    """The engine wanted something the record does not have."""


class _RecordedDice:
    """Serves the recorded turn's rolls as the engine's turn block (see DiceSource)."""

    def __init__(self) -> None:
        self.rolls: list[list[int]] = []

    def start_turn(self, seat: int, turn: int) -> int:
        # Beyond the recorded rolls the block reads as ones; the replay notices any use.
        return encode_turn(self.rolls)


class _RecordedPlayer(Strategy):
    """Answers the engine with a recorded turn's decisions, checking each roll's size."""

    name = "record"

    def __init__(self) -> None:
        self.rolls: list[list[int]] = []
        self.keeps: list[int] = []
        self.stops = False
        self.answer: Any = None
        self.used = 0

    def pick(self, view: View) -> int:
        index = self.used
        if index >= len(self.rolls):
            raise _Mismatch("rolls")
        size = len(self.rolls[index])
        if size != view.dice_left:
            raise _Mismatch(_wrong_size(index, size, view.dice_left))
        if index >= len(self.keeps):
            raise _Mismatch("keeps")
        self.used = index + 1
        return self.keeps[index]

    def stop(self, view: View) -> bool:
        return self.stops and self.used == len(self.keeps)

    def claim(self, view: View, choices: Any) -> Any:
        return self.answer


def _wrong_size(index: int, size: int, left: int) -> str:
    return f"roll {index + 1} has {size} dice but {left} {'was' if left == 1 else 'were'} left (R4)"


class _Outcome(GameObserver):
    """What the engine did with a recorded turn."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.end: dict[str, Any] | None = None
        self.total = 0
        self.worm = False
        self.sizes: list[int] = []

    def kept(self, seat: int, roll: Roll, face: int, count: int, total: int, left: int) -> None:
        self.total = total
        self.worm = self.worm or face == WORM
        self.sizes.append(roll.n)

    def claimed(self, seat: int, claim: Claim, total: int) -> None:
        if claim.victim is None:
            self.end = {"claim": claim.tile}
        else:
            self.end = {"steal": claim.tile, "from": claim.victim}

    def busted(
        self, seat: int, reason: str, total: int, returned: Any, turned: Any, roll: Any
    ) -> None:
        if roll is not None:
            self.sizes.append(roll.n)
        self.end = {"bust": reason}


def replay(data: dict[str, Any], observer: GameObserver | None = None) -> GameResult:
    """Re-apply a checked record through the engine; RecordError names turn, seat and rule.

    ``observer`` (e.g. a :class:`harness.play.narrate.Narrator`) hears the replayed game.
    A turn's stored ``account`` is not looked at here:
    :func:`harness.analysis.game.account_record` checks it too.
    """
    data = check_record(data)
    rules = record_rules(data)
    seats = data["seats"]
    dice = _RecordedDice()
    players = [_RecordedPlayer() for _ in seats]
    outcome = _Outcome()
    game = Game(
        players,
        rules,
        dice,
        names=list(seats),
        observer=observing(outcome, observer),
        max_turns=len(data["turns"]),
    )
    game.start()
    for i, turn in enumerate(data["turns"]):
        number = i + 1
        seat = turn["seat"]

        def fail(what: str, number: int = number, seat: int = seat) -> RecordError:
            return RecordError(f"turn {number}, seat {seat}: {what}")

        if game.over:
            raise fail("the game was already over: no face-up tile left on the grill (R10)")
        if seat != game.seat_to_play:
            raise fail(f"it is seat {game.seat_to_play}'s turn (R3)")
        end, rolls = turn["end"], turn["rolls"]
        player = players[seat]
        player.rolls = dice.rolls = rolls
        player.keeps = turn["keeps"]
        player.used = 0
        player.stops = "bust" not in end
        player.answer = (
            Claim(end["claim"])
            if "claim" in end
            else (Claim(end["steal"], end["from"]) if "steal" in end else None)
        )
        # The board before the turn: a refused claim is explained against it, not against
        # the board after the engine made the claim the rules required instead.
        board = game.result()
        outcome.reset()
        try:
            game.play_turn()
        except StrategyFailed as exc:
            # The engine wraps whatever a strategy raises; the recorded player raises
            # _Mismatch when the engine wants more than the record holds.
            if isinstance(exc.__cause__, _Mismatch):
                why = str(exc.__cause__)
                raise fail(_explain(rules, board, seat, turn, outcome, why)) from None
            raise fail(exc.detail) from None  # pragma: no cover - the player never raises else
        except IllegalMove as exc:
            if exc.rule == "R7" and "bust" not in end:
                raise fail(_claim_problem(rules, board, seat, end, outcome)) from None
            raise fail(exc.detail.replace("picked", "keep", 1)) from None
        except GameError as exc:
            raise fail(exc.detail) from None
        for j, size in enumerate(outcome.sizes[: len(rolls)]):
            if len(rolls[j]) != size:
                raise fail(_wrong_size(j, len(rolls[j]), size))
        if len(outcome.sizes) > len(rolls):
            raise fail(_explain(rules, board, seat, turn, outcome, "rolls"))
        if outcome.end != end:
            raise fail(_explain_end(rules, board, seat, end, outcome))
        if len(outcome.sizes) < len(rolls):
            raise fail(
                f"{len(rolls) - len(outcome.sizes)} roll(s) recorded after the turn ended: "
                "all 8 dice were set aside (R6)"
            )
    result = game.result()
    result.capped = False
    stated = data.get("result")
    if stated is not None:
        _check_result(stated, game, result)
    return result


_FORFEIT_SEAT = re.compile(r"turn (\d+), seat (\d+) ")


def _check_result(stated: dict[str, Any], game: Game, replayed: GameResult) -> None:
    """RecordError unless the record's ``result`` says what its moves give.

    A forfeit (``error``) ended the game in the turn after the recorded ones; its seat,
    which the error names ("turn 7, seat 1 (...) ..."), is ranked last.
    """
    expected = replayed
    error = stated.get("error")
    if error is not None:
        found = _FORFEIT_SEAT.match(error) if isinstance(error, str) else None
        seat = int(found.group(2)) if found else -1
        if not 0 <= seat < replayed.players:
            raise _fail("result.error", f"{shown(error, 80)} does not name the seat that forfeited")
        forfeit = GameError(int(found.group(1)), seat, replayed.names[seat], "forfeited")  # type: ignore[union-attr]
        expected = game.result(error=forfeit)
    checks = {
        "scores": (
            list(expected.scores),
            lambda v: type(v) is list and all(type(x) is int for x in v),
        ),
        "winner": (expected.winner, lambda v: v is None or type(v) is int),
        "over": (expected.over, lambda v: type(v) is bool),
    }
    for key, (want, plain) in checks.items():
        if key in stated and not (plain(stated[key]) and stated[key] == want):
            raise _fail(
                f"result.{key}", f"{shown(stated[key], 80)}, but its moves give {shown(want, 80)}"
            )
    if "status" in stated:
        status = stated["status"]
        wants = (
            {expected.status} if expected.over or error is not None else {"turn-cap", "unfinished"}
        )
        if status not in wants:
            said = " or ".join(sorted(wants))
            raise _fail("result.status", f"{shown(status, 80)}, but its moves give {said}")


def _explain(
    rules: Rules, board: GameResult, seat: int, turn: dict, outcome: _Outcome, what: str
) -> str:
    """Why the engine ran past what the record holds."""
    end = turn["end"]
    if what == "rolls":  # the engine rolled on where the record ended the turn
        if "bust" in end:
            return f"bust {end['bust']} with dice left: the turn goes on (R6, R8)"
        return _claim_problem(rules, board, seat, end, outcome)
    if what == "keeps":  # the last roll had a new face but the record keeps nothing
        shown = " ".join(face_name(f) for f in turn["rolls"][-1])
        return f"bust no-new-face, but the roll {shown} shows a new face (R5)"
    return what


def _claim_problem(rules: Rules, board: GameResult, seat: int, end: dict, outcome: _Outcome) -> str:
    """Why the claim or steal that ends a recorded turn is not allowed (R7).

    ``board`` is the state before the turn; ``outcome`` what the turn set aside.
    """
    total = outcome.total
    if "claim" in end:
        tile, victim, verb = end["claim"], None, "claim"
    else:
        tile, victim, verb = end["steal"], end["from"], "steal"
    if not outcome.worm:
        return f"{verb} {tile} without a worm set aside (R7)"
    if tile not in TILES:
        return f"{verb} {tile}: not a tile 21-36 (R1)"
    if victim is not None:
        stack = board.stacks[victim]
        if victim == seat:
            return f"steal {tile} from its own stack (R7)"
        if not stack or stack[-1] != tile:
            top = stack[-1] if stack else "nothing"
            return f"steal {tile} from seat {victim} whose top is {top} (R7)"
        return f"steal {tile} from seat {victim} with sum {total}: a steal needs the exact sum (R7)"
    if tile in board.flipped:
        return f"claim {tile}: it is face down (R7, R9)"
    if tile not in board.grill:
        holder = next(s for s, stack in enumerate(board.stacks) if tile in stack)
        where = "its own stack" if holder == seat else f"seat {holder}'s stack"
        return f"claim {tile}: not on the grill but on {where} (R7)"
    if tile > total:
        return f"claim {tile} with sum {total} (R7)"
    best = max(t for t in board.grill if t <= total)
    if rules.lower_tile == "highest" and tile != best:
        return f"claim {tile} with sum {total}: the highest grill tile <= {total} is {best} (R7)"
    return f"claim {tile} with sum {total}: not a legal choice (R7)"  # pragma: no cover


def _explain_end(rules: Rules, board: GameResult, seat: int, end: dict, outcome: _Outcome) -> str:
    happened = outcome.end
    if "bust" in end:
        if happened and "bust" in happened:
            return f"bust {end['bust']}, but the dice say {happened['bust']} (R5, R7, R8)"
        what = (happened.get("claim") or happened.get("steal")) if happened else None
        return f"bust {end['bust']} with all dice set aside, but {what} could be claimed (R7, R8)"
    return _claim_problem(rules, board, seat, end, outcome)


def save_record(record: dict[str, Any], path: str | Path) -> None:
    """Write a record as JSON (atomically: a temp file renamed into place)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(json.dumps(record, indent=None, separators=(",", ":")) + "\n")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise RunFailed(
            f"{path}: cannot write the record: {safe_text(exc.strerror or exc)}"
        ) from None
