"""The analysis of one turn on a board: the numbers `harness analyze turn` shows.

Two policies, each exact for its objective (see docs/analysis.md for the reasoning):

* **max-success**, per target t: the play that maximises the chance of ending the turn
  with a claim at a total >= t (R7: a stop needs a worm and a claim; the first claim
  at >= t is taken), and separately the play that maximises the chance of ending with
  a claim at exactly t. Their values are the P(>= t) and P(= t) columns. The least
  possible bust probability is 1 - P(>= 0) under the same reading.
* **expected-worms**: the play that maximises the mean worms gained: the claimed
  tile's worms (own worms; for a steal, not counting the victim's loss) or, on a
  bust, minus the held tile's (R9). Its full distribution is given.

Values are float64 (within 1e-15 of exact) or, with ``exact=True``, Fractions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.analysis.board import TurnBoard, tile_ranges
from harness.analysis.turn import START, Solution, solve, solve_exact, state_index
from harness.errors import HarnessError
from harness.game.rules import DICE, FACE_POINTS, WORM, face_name, worms
from harness.jsonsafe import json_safe
from harness.report.pages.render import text_table

POLICIES = ("max-success", "expected-worms")
TARGETS = tuple(range(21, 37))


@dataclass
class TurnAnalysis:
    """Everything computed for one board; ``solutions`` keep the policies (for
    :mod:`harness.analysis.simulate`): ``("at_least", t)``, ``("exactly", t)``, ``"worms"``."""

    board: TurnBoard
    kept: tuple[int, ...]
    exact: bool
    policies: tuple[str, ...]
    targets: list[dict[str, Any]] = field(default_factory=list)
    min_bust: Any = None
    worms: dict[str, Any] | None = None
    solutions: dict[Any, Solution] = field(default_factory=dict, repr=False)

    @property
    def start(self) -> int:
        return start_state(self.kept)


def parse_kept(text: str) -> tuple[int, ...]:
    """Dice set aside so far, e.g. ``W,W,5`` or ``6 6 5`` (W or 6 is the worm)."""
    faces: list[int] = []
    for part in text.replace(",", " ").split():
        face = WORM if part.upper() == "W" else int(part) if part.isdigit() else 0
        if not 1 <= face <= 6:
            raise HarnessError(f"--kept: {part!r} is not a face 1-5 or W (R2)")
        faces.append(face)
    if len(faces) > DICE:
        raise HarnessError(f"--kept: {len(faces)} dice set aside; there are {DICE} (R2)")
    return tuple(faces)


def start_state(kept: Sequence[int]) -> int:
    """The state after setting aside ``kept`` (one face per die), about to decide."""
    if not kept:
        return START
    return state_index(set(kept), DICE - len(kept), sum(FACE_POINTS[f] for f in kept))


def analyze_turn(
    board: TurnBoard,
    *,
    targets: Iterable[int] = TARGETS,
    kept: Sequence[int] = (),
    exact: bool = False,
    policies: Sequence[str] = POLICIES,
) -> TurnAnalysis:
    """Solve the turn on ``board`` from the start (or after ``kept``) for each policy."""
    unknown = [p for p in policies if p not in POLICIES]
    if unknown:
        raise HarnessError(f"unknown policy {unknown[0]!r}; policies are {', '.join(POLICIES)}")
    run = solve_exact if exact else solve
    result = TurnAnalysis(board, tuple(kept), exact, tuple(policies))
    start = result.start
    if "max-success" in policies:
        for t in targets:
            at_least = result.solutions["at_least", t] = run(board.at_least(t))
            exactly = result.solutions["exactly", t] = run(board.exactly(t))
            result.targets.append(
                {"target": t, "at_least": at_least.value[start], "exactly": exactly.value[start]}
            )
        result.min_bust = 1 - run(board.at_least(0)).value[start]
    if "expected-worms" in policies:
        sol = result.solutions["worms"] = run(board.worms_gained())
        ended, bust = sol.outcomes(start)
        gains: dict[int, Any] = {}
        claims: dict[tuple[int, bool], Any] = {}
        if bust:
            gains[board.bust_gain] = bust
        for s, p in ended.items():
            tile, steal = board.claim(s)  # type: ignore[misc]
            gains[worms(tile)] = gains.get(worms(tile), 0) + p
            claims[tile, steal] = claims.get((tile, steal), 0) + p
        mean = sum(g * p for g, p in gains.items())
        result.worms = {
            "mean": sol.value[start],
            "mean_check": mean,
            "variance": sum((g - mean) ** 2 * p for g, p in gains.items()),
            "bust": bust,
            "gains": dict(sorted(gains.items())),
            "claims": dict(sorted(claims.items())),
        }
    return result


# -- presentation ------------------------------------------------------------------
def _num(value: Any, digits: int = 15) -> str:
    return f"{float(value):.{digits}f}"


def to_json(analysis: TurnAnalysis) -> dict[str, Any]:
    """The analysis as plain JSON types (floats; exact fractions as strings too)."""
    board = analysis.board
    out: dict[str, Any] = {
        "board": {"grill": list(board.grill), "tops": list(board.tops), "held": board.held},
        "kept": [face_name(f) for f in analysis.kept],
        "arithmetic": "exact" if analysis.exact else "float64",
        "policies": list(analysis.policies),
    }
    if "max-success" in analysis.policies:
        out["max_success"] = [
            {
                "target": row["target"],
                "p_at_least": json_safe(row["at_least"]),
                "p_exactly": json_safe(row["exactly"]),
                **(
                    {
                        "p_at_least_fraction": str(row["at_least"]),
                        "p_exactly_fraction": str(row["exactly"]),
                    }
                    if analysis.exact
                    else {}
                ),
            }
            for row in analysis.targets
        ]
        out["min_bust"] = json_safe(analysis.min_bust)
    if analysis.worms is not None:
        w = analysis.worms
        out["expected_worms"] = {
            "mean": json_safe(w["mean"]),
            **({"mean_fraction": str(w["mean"])} if analysis.exact else {}),
            "sd": float(w["variance"]) ** 0.5,
            "bust": json_safe(w["bust"]),
            "gains": [{"worms": g, "p": json_safe(p)} for g, p in w["gains"].items()],
            "claims": [
                {"tile": t, "steal": steal, "p": json_safe(p)}
                for (t, steal), p in w["claims"].items()
            ],
        }
    return out


def lines(analysis: TurnAnalysis) -> list[str]:
    """The analysis as a readable report."""
    board = analysis.board
    kept = analysis.kept
    where = (
        f"{DICE} dice to roll"
        if not kept
        else f"kept {' '.join(face_name(f) for f in kept)} "
        f"({sum(FACE_POINTS[f] for f in kept)} points), {DICE - len(kept)} dice left"
    )
    arithmetic = "exact rational arithmetic" if analysis.exact else "float64"
    out = [f"Turn analysis: {board.describe()}; {where} ({arithmetic})"]
    if "max-success" in analysis.policies:
        out += [
            "",
            "Max-success policy, per target t (a stop needs a worm and a claim, R7):",
            "  P(>= t): best chance to end the turn with a claim at a total >= t",
            "  P(= t):  best chance to end it with a claim at exactly t",
        ]
        rows = [
            [str(row["target"]), _num(row["at_least"]), _num(row["exactly"])]
            for row in analysis.targets
        ]
        out += ["  " + line for line in text_table(["t", "P(>= t)", "P(= t)"], rows, left=0)]
        out.append(f"  least possible bust probability: {_num(analysis.min_bust)}")
    if analysis.worms is not None:
        w = analysis.worms
        lost = f"loses tile {board.held}" if board.held is not None else "loses nothing"
        out += [
            "",
            f"Expected-worms policy (maximises the mean worms gained; a bust {lost}, R9):",
            f"  mean worms gained  {_num(w['mean'], 10)}  (sd {float(w['variance']) ** 0.5:.4f})",
            f"  bust probability   {_num(w['bust'])}",
        ]
        rows = []
        for gain, p in w["gains"].items():
            if gain <= 0:  # a claim gains at least one worm (R1)
                what = "bust"
            else:
                found = [(t, steal) for (t, steal), q in w["claims"].items() if worms(t) == gain]
                grill = tile_ranges(t for t, steal in found if not steal)
                steals = tile_ranges(t for t, steal in found if steal)
                what = "; ".join(
                    text
                    for text, tiles in ((f"grill {grill}", grill), (f"steal {steals}", steals))
                    if tiles != "-"
                )
            rows.append([f"{gain:+d}", _num(p), what])
        table = text_table(["worms", "probability", "claims"], rows, left=0)
        # The claims column reads as text: flush left, as its header.
        out += ["  " + line for line in _claims_left(table)]
    return out


def _claims_left(table: list[str]) -> list[str]:
    """The table with its last column (the claims, words) flush left."""
    cut = len(table[1].rpartition("  ")[0]) + 2  # where the rule's last dashes begin
    return [line[:cut] + line[cut:].strip() for line in table]
