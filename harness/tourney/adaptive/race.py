"""Racing sweeps (``race: on``): a sweep's values that another value beats stop playing.

A racing sweep is a swept entrant of an adaptive round robin (``schedule: adaptive``).
Its values meet each other at tables like any entrants, and each pair of them is one of
the run's comparisons (:class:`~.schedule.Comparison`, an anytime-valid confidence
sequence): nothing here is a second statistic. After each batch, a value is **out** as
soon as one comparison with another value of its sweep is settled against it; from then
on its comparisons are no longer played (:meth:`~.schedule.Schedule.open_pairs`), so its
tables stop, and its still-open comparisons are reported as stopped, not as settled.

**What is guaranteed.** The run's intervals all hold at once with the target's
confidence (Bonferroni over every comparison, the race's among them). On that event a
value is out only if another value truly beats it head to head, so the value that beats
every other one (the best, when one exists) is never out: the survivors contain it. The
race is done when its survivors' comparisons are all settled (ties, within the zone) or
one value is left. Without a value that beats all others (a cycle), "the best" is not
defined by head-to-head games, and the survivors are the values no one was shown to beat.

The rule is "beaten by any value", not only "by the leader": a value another value beats
is not the best either, and stopping it earlier saves its games without risking the best.
Everything here is a function of the comparisons' verdicts, which are a function of the
batches in order: the same batches, the same values out, at the same batch.
"""

from __future__ import annotations

import math
from typing import Any

# The schedule (harness.tourney.adaptive.schedule.Schedule) imports this module, so it is
# named here by what is read of it (names, comparisons, races, out, reached, played,
# batches), not imported: no import circle, even for the type checker.
Schedule = Any

#: A value's standing in its race: the only one left, one of several left whose
#: comparisons are all settled (ties), left with comparisons still open, beaten.
STATUSES = ("best", "tied best", "in", "out")


def race_outs(schedule: Schedule, reached: int) -> list[str]:
    """After a batch's looks: the values now out of their races (marked in
    ``schedule.out``, with who beat them, the deals they had played and the batch), and
    their open comparisons marked stopped. In comparison order, so always the same."""
    names, out = schedule.names, schedule.out
    newly: list[str] = []
    for race in schedule.races:
        members = set(race)
        for (a, b), comparison in schedule.comparisons.items():
            verdict = comparison.sequence.settled
            if a not in members or b not in members or verdict not in ("a", "b"):
                continue
            winner, loser = (a, b) if verdict == "a" else (b, a)
            if loser in out:
                continue
            out[loser] = {
                "by": names[winner],
                "deals": schedule.reached[loser] or reached,
                "batch": len(schedule.batches),
            }
            newly.append(names[loser])
    for (a, b), comparison in schedule.comparisons.items():
        if comparison.sequence.settled == "open" and not comparison.dropped:
            gone = [names[i] for i in (a, b) if i in out]
            if gone:
                comparison.dropped = gone[0]
    return newly


def _share_of(schedule: Schedule, i: int, j: int) -> dict[str, Any] | None:
    """The comparison of i and j from i's side: its verdict, share and interval."""
    pair = (min(i, j), max(i, j))
    comparison = schedule.comparisons.get(pair)
    if comparison is None:
        return None
    s = comparison.sequence.summary()
    if i == pair[0]:
        return {"verdict": s["verdict"], "share": s["share"], "low": s["low"], "high": s["high"]}
    flipped = {"a": "b", "b": "a"}.get(str(s["verdict"]), s["verdict"])
    return {
        "verdict": flipped,
        "share": 1 - s["share"],
        "low": 1 - s["high"],
        "high": 1 - s["low"],
    }


def estimate(schedule: Schedule, i: int, race: tuple[int, ...]) -> float:
    """Value i's mean head-to-head share against its sweep's other values, each
    comparison's share (luck-adjusted where the games kept the account) counted once.
    Every value meets every other in the first batch, so each mean is over the same
    opponents and the estimates compare; the later deals make each share more precise.
    A figure to read: the race is decided by the pairwise verdicts alone."""
    shares = []
    for j in race:
        if j == i:
            continue
        pair = (min(i, j), max(i, j))
        sequence = schedule.comparisons[pair].sequence
        if sequence.deals:
            shares.append(sequence.share if i == pair[0] else 1 - sequence.share)
    return sum(shares) / len(shares) if shares else math.nan


def race_summary(schedule: Schedule) -> list[dict[str, Any]]:
    """Each race for run.json and the report: its leader (the survivor with the highest
    estimate), whether it is done, and per value its status, estimate, the deals and
    games it played, who beat it, and its comparison with the leader."""
    names, out = schedule.names, schedule.out
    races = []
    for race in schedule.races:
        survivors = [i for i in race if i not in out]
        est = {i: estimate(schedule, i, race) for i in race}
        leader = max(survivors, key=lambda i: (-math.inf if math.isnan(est[i]) else est[i], -i))
        done = all(
            schedule.comparisons[(min(i, j), max(i, j))].sequence.settled != "open"
            for i in survivors
            for j in survivors
            if i < j
        )
        values = []
        for i in race:
            if i in out:
                status = "out"
            elif len(survivors) == 1:
                status = "best"
            else:
                status = "tied best" if done else "in"
            row: dict[str, Any] = {
                "name": names[i],
                "status": status,
                "estimate": est[i],
                "deals": schedule.reached[i],
                "games": schedule.played[i],
            }
            if i in out:
                row.update({"beaten_by": out[i]["by"], "out_batch": out[i]["batch"]})
            if i != leader:
                row["vs_leader"] = _share_of(schedule, i, leader)
            values.append(row)
        races.append(
            {
                "leader": names[leader],
                "done": done,
                "survivors": [names[i] for i in survivors],
                "values": values,
            }
        )
    return races


__all__ = ["STATUSES", "estimate", "race_outs", "race_summary"]
