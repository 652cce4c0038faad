"""Comparing runs: what they share, what differs, and whether the differences matter.

The first run is the baseline; every other run is compared with it on the strategies
all runs share (win share and mean worms) and on the head-to-head pairs all runs share.
Runs are independent samples, so a difference's standard error is the root of the sum
of squares; p-values are Holm-adjusted over the whole comparison, since one table
holds many tests. What differs between the runs (rules, players, dice, entrants, their
code or parameters) is listed, because a win share only means something against the
same field.
"""

from __future__ import annotations

import string
from typing import Any

from harness.report import stats
from harness.report.aggregate import nan_to_none

ALPHA = 0.05


def _label(i: int) -> str:
    return string.ascii_uppercase[i] if i < 26 else f"R{i + 1}"


def differences(summaries: list[dict[str, Any]]) -> list[str]:
    """Sentences naming everything that differs between the runs' setups."""
    runs = [s["run"] for s in summaries]
    labels = [_label(i) for i in range(len(runs))]
    out = []

    def per_run(values: list[Any]) -> str:
        return ", ".join(f"{lab}: {v}" for lab, v in zip(labels, values, strict=True))

    for key, what in (("players", "players per table"), ("dice", "dice"), ("format", "format")):
        values = [r.get(key) for r in runs]
        if len(set(map(str, values))) > 1:
            out.append(f"{what} differ ({per_run(values)})")
    keys = sorted({k for r in runs for k in (r.get("rules") or {}) if k != "players"})
    for key in keys:
        values = [(r.get("rules") or {}).get(key) for r in runs]
        if len(set(map(str, values))) > 1:
            out.append(f"rule {key} differs ({per_run(values)})")
    names = [[e.get("name") for e in r.get("entrants") or []] for r in runs]
    everyone = sorted({n for ns in names for n in ns if n})
    for name in everyone:
        missing = [lab for lab, ns in zip(labels, names, strict=True) if name not in ns]
        if missing:
            out.append(f"entrant {name} is not in run(s) {', '.join(missing)}")
            continue
        specs = [next(e for e in r["entrants"] if e.get("name") == name) for r in runs]
        for field, what in (("code", "code differs"), ("params", "parameters differ")):
            values = [str(spec.get(field)) for spec in specs]
            if len(set(values)) > 1:
                out.append(f"entrant {name}: {what} between runs")
    versions = [r.get("version") for r in runs]
    if len(set(map(str, versions))) > 1:
        out.append(f"harness versions differ ({per_run(versions)})")
    return out


def compare(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """The comparison of two or more run summaries (JSON-safe); the first is the baseline."""
    labels = [_label(i) for i in range(len(summaries))]
    runs = [
        {
            "label": lab,
            "path": s["run"]["path"],
            "name": s["run"]["name"],
            "run_id": s["run"]["run_id"],
            "rules_text": s["run"]["rules_text"],
            "players": s["run"]["players"],
            "dice": s["run"]["dice"],
            "games": s["games"]["scored"],
        }
        for lab, s in zip(labels, summaries, strict=True)
    ]
    by_run = [{r["strategy"]: r for r in s["standings"] if r["games"]} for s in summaries]
    shared = [name for name in by_run[0] if all(name in b for b in by_run[1:])]
    only = sorted({n for b in by_run for n in b} - set(shared))
    tests: list[tuple[dict[str, Any], float]] = []
    rows = []
    for name in shared:
        row: dict[str, Any] = {"strategy": name, "runs": [], "diffs": []}
        for b in by_run:
            r = b[name]
            row["runs"].append(
                {
                    k: r[k]
                    for k in (
                        "games",
                        "win_share",
                        "win_low",
                        "win_high",
                        "worms",
                        "worms_low",
                        "worms_high",
                    )
                }
            )
        base = by_run[0][name]
        for lab, b in zip(labels[1:], by_run[1:], strict=True):
            r = b[name]
            diff = {"run": lab}
            for key, se_key in (("win_share", "win_se"), ("worms", "worms_se")):
                d, se, p = stats.diff_test(
                    _f(base[key]), _f(base[se_key]), _f(r[key]), _f(r[se_key])
                )
                diff[key] = {"diff": d, "low": d - stats.Z95 * se, "high": d + stats.Z95 * se}
                diff[key]["p"] = p
                tests.append((diff[key], p))
            row["diffs"].append(diff)
        rows.append(row)
    pairs = _shared_pairs(summaries, labels, tests)
    adjusted = stats.holm([p for _, p in tests])
    for (cell, _), q in zip(tests, adjusted, strict=True):
        cell["p_holm"] = q
        cell["significant"] = bool(q == q and q < ALPHA)
    return nan_to_none(
        {
            "runs": runs,
            "baseline": labels[0],
            "differences": differences(summaries),
            "shared": shared,
            "not_shared": only,
            "strategies": rows,
            "head_to_head": pairs,
            "tests": len(tests),
            "method": (
                "Differences are run minus baseline (run A) with 95% intervals; runs are "
                "independent, so standard errors add in quadrature. 'significant' means a "
                f"Holm-adjusted p below {ALPHA} over all {len(tests)} tests of this comparison."
            ),
        }
    )


def _f(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def _shared_pairs(
    summaries: list[dict[str, Any]],
    labels: list[str],
    tests: list[tuple[dict[str, Any], float]],
) -> list[dict[str, Any]]:
    """Head-to-head shares of pairs every run has (upper triangle of the first run)."""
    cells = [{(c["a"], c["b"]): c for c in s["head_to_head"]["pairs"]} for s in summaries]
    order = summaries[0]["head_to_head"]["order"]
    out = []
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            if not all((a, b) in c for c in cells):
                continue
            got = [c[a, b] for c in cells]
            row: dict[str, Any] = {
                "a": a,
                "b": b,
                "runs": [{k: g[k] for k in ("games", "share", "low", "high")} for g in got],
                "diffs": [],
            }
            for lab, g in zip(labels[1:], got[1:], strict=True):
                d, se, p = stats.diff_test(
                    _f(got[0]["share"]), _f(got[0]["se"]), _f(g["share"]), _f(g["se"])
                )
                cell = {
                    "run": lab,
                    "diff": d,
                    "low": d - stats.Z95 * se,
                    "high": d + stats.Z95 * se,
                }
                cell["p"] = p
                tests.append((cell, p))
                row["diffs"].append(cell)
            out.append(row)
    return out
