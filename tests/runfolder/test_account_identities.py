"""A run's luck account is held to its own identities when the folder is read (issue 30).

The luck columns of a stored chunk edited and the digest sealed again (the part's bytes
and sha256 in the manifest) used to be served by ``harness report`` and ``harness
compare`` with exit 0. Every edit below is made the way an attacker would make it, and
sealed again; each time the report refuses in one line naming the chunk, the row and
the identity (exit 2, as for any damaged folder), ``--repair`` plays the chunk again
from its seeds (the same games, their true account), a resume does the same, and a
chunk that breaks one is never reused or stored. An untouched run, and one whose parts
are rewritten without a change, still read.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harness.runfolder.reader import DamagedRun, ReportError, open_run
from harness.runfolder.schema import ACCOUNT_FIELDS, seat_column
from harness.tourney import run_tournament
from harness.tourney.storage import digest_of

pytestmark = pytest.mark.engine

CONFIG = {
    "name": "acct",
    "players": 2,
    "entrants": ["greedy", "tactician", "worm-first"],
    "deals": 6,
    "chunk": 3,
    "seed": 17,
    "luck": "on",
}
THREE = {**CONFIG, "name": "acct3", "players": 3, "deals": 4}

Table = pa.Table
Edit = Callable[[Table], Table]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An untouched finished run with the account (read-only: tests copy it)."""
    return run_tournament(CONFIG, out=tmp_path_factory.mktemp("ref"), workers=0)


@pytest.fixture(scope="module")
def reference3(tmp_path_factory):
    return run_tournament(THREE, out=tmp_path_factory.mktemp("ref3"), workers=0)


def copy_of(run, tmp_path: Path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(run.run_dir.parent.parent, out)
    return out / run.run_dir.parent.name / run.run_dir.name


@pytest.fixture
def copy(reference, tmp_path):
    return copy_of(reference, tmp_path)


def entries(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "manifest.jsonl").read_text().splitlines()]


def reseal(run_dir: Path, edit: Edit, which: int = 0) -> str:
    """Rewrite chunk ``which`` through ``edit`` and seal it again: the manifest's bytes
    and sha256 of the new file (what an attacker who knows the format does)."""
    lines = entries(run_dir)
    entry = lines[which]
    path = run_dir / "games" / entry["file"]
    pq.write_table(edit(pq.read_table(path)), path)
    data = path.read_bytes()
    entry.update(bytes=len(data), sha256=digest_of(data))
    text = "".join(json.dumps(e, sort_keys=True) + "\n" for e in lines)
    (run_dir / "manifest.jsonl").write_text(text)
    return entry["file"]


def column(table: Table, name: str) -> np.ndarray:
    return table.column(name).to_numpy(zero_copy_only=False).astype(float)


def put(table: Table, name: str, values, mask=None) -> Table:
    kind = table.schema.field(name).type
    return table.set_column(
        table.column_names.index(name), name, pa.array(values, type=kind, mask=mask)
    )


def at_row(name: str, row: int, value: float) -> Edit:
    def edit(table: Table) -> Table:
        values = column(table, name)
        values[row] = value
        return put(table, name, values)

    return edit


def shifted(changes: dict[str, float], row: Callable[[Table], int] | int = 0) -> Edit:
    def edit(table: Table) -> Table:
        at = row(table) if callable(row) else row
        for name, delta in changes.items():
            values = column(table, name)
            values[at] += delta
            table = put(table, name, values)
        return table

    return edit


def beyond_steals(table: Table) -> Table:
    """Both seats' luck up by the same whole worms in a game, more than its steals can
    explain: the margin still telescopes, but neither seat's sums add up to its worms and
    the worms its steals moved (at most 4 a steal, made or suffered)."""
    steals = column(table, "seat0_steals") + column(table, "seat0_stolen")
    row = int(np.argmin(steals))
    return shifted({name: 4 * steals[row] + 1 for name in ("seat0_luck", "seat1_luck")}, row)(table)


def no_claim_choice(table: Table) -> int:
    """A game in which seat 1 made no claim that offered a choice."""
    return int(np.flatnonzero(column(table, "seat1_claims") == 0)[0])


def swings(table: Table, seat: int) -> np.ndarray:
    """par + luck - regret of a seat in every game."""
    out = column(table, seat_column(seat, "par")) + column(table, seat_column(seat, "luck"))
    for field in ("regret_pick", "regret_stop", "regret_claim"):
        out -= column(table, seat_column(seat, field))
    return out


def nulled(names: list[str], rows: slice) -> Edit:
    def edit(table: Table) -> Table:
        for name in names:
            values = column(table, name)
            mask = np.zeros(len(values), bool)
            mask[rows] = True
            table = put(table, name, np.where(mask, 0, values), mask=mask)
        return table

    return edit


def flipped(name: str) -> Edit:
    return lambda table: put(table, name, -column(table, name))


def swapped_rows(table: Table) -> Table:
    """Seat 0's whole account moved between two games where it summed differently."""
    sums = swings(table, 0)
    a = 0
    b = int(np.flatnonzero(np.abs(sums - sums[a]) > 0.5)[0])
    for field in ACCOUNT_FIELDS:
        name = seat_column(0, field)
        values = column(table, name)
        values[[a, b]] = values[[b, a]]
        table = put(table, name, values)
    return table


def swapped_seats(table: Table) -> Table:
    """Two seats' accounts exchanged in a game whose seats ended apart."""
    row = int(np.flatnonzero(column(table, "seat0_worms") != column(table, "seat1_worms"))[0])
    for field in ACCOUNT_FIELDS:
        one, two = seat_column(0, field), seat_column(1, field)
        a, b = column(table, one), column(table, two)
        a[row], b[row] = b[row], a[row]
        table = put(put(table, one, a), two, b)
    return table


def as_text(name: str) -> Edit:
    """A column of numbers replaced by the same numbers as text."""

    def edit(table: Table) -> Table:
        text = pa.array([str(v) for v in table.column(name).to_pylist()], type=pa.string())
        return table.set_column(table.column_names.index(name), name, text)

    return edit


def refused(run_dir: Path, file: str, *words: str, row: bool = True) -> str:
    """The report refuses the folder in one line naming the chunk, a row (unless the
    chunk as a whole is at fault) and ``words``."""
    with pytest.raises(DamagedRun) as caught:
        open_run(run_dir)
    text = str(caught.value)
    assert "\n" not in text
    assert f"games/{file}: {'row ' if row else ''}" in text, text
    assert "--repair" in text and "seeded" in text and "luck account" in text, text
    for word in words:
        assert word in text, (word, text)
    return text


# -- every kind of edit, sealed again -----------------------------------------------------------
ATTACKS: dict[str, tuple[Edit, tuple[str, ...]]] = {
    # luck moved by 0.3 worms: the margin no longer telescopes
    "luck edited": (shifted({"seat0_luck": 0.3}), ("the margin does not telescope",)),
    # wluck nan: the adjustment of that game was silently dropped
    "wluck nan": (at_row("seat1_wluck", 5, float("nan")), ("wluck is nan", "finite")),
    "wluck inf": (at_row("seat0_wluck", 3, float("inf")), ("wluck is inf", "finite")),
    "par -inf": (at_row("seat1_par", 2, float("-inf")), ("par is -inf",)),
    "luck inf": (at_row("seat0_luck", 4, float("inf")), ("luck is inf",)),
    "regret_pick -100": (at_row("seat0_regret_pick", 5, -100.0), ("regret is never negative",)),
    "regret_stop -1e-300": (at_row("seat1_regret_stop", 1, -1e-300), ("regret_stop is -1e-300",)),
    "luck sign flipped": (flipped("seat1_luck"), ("does not telescope",)),
    "rows swapped": (swapped_rows, ("does not telescope",)),
    "seats swapped": (swapped_seats, ("does not telescope",)),
    "one value nulled": (nulled(["seat0_wluck"], slice(4, 5)), ("wluck null",)),
    "a game's account nulled": (
        nulled([seat_column(s, f) for s in (0, 1) for f in ACCOUNT_FIELDS], slice(2, 3)),
        ("no account where the chunk's other games keep one",),
    ),
    "the chunk's account nulled": (
        nulled([seat_column(s, f) for s in (0, 1) for f in ACCOUNT_FIELDS], slice(None)),
        ("run.json says its table keeps the account, but the chunk holds none",),
    ),
    # the margin kept, but not each seat's own sums
    "both seats shifted": (
        beyond_steals,
        ("its turns' swings add up to its",),
    ),
    # the margin kept and every regret >= 0: luck and regret up together, far beyond what
    # a game's decisions can cost
    "luck and regret inflated": (
        shifted({"seat0_luck": 500.0, "seat0_regret_stop": 500.0}),
        ("beyond",),
    ),
    "a regret without a choice": (
        shifted({"seat1_regret_claim": 0.5, "seat1_par": 0.5}, row=no_claim_choice),
        ("regret_claim is", "without a choice costs exactly 0"),
    ),
    "a negative count": (at_row("seat0_rolls", 0, -3), ("rolls is -3", "never negative")),
    "more picks than rolls": (at_row("seat1_picks", 0, 999), ("picks is 999",)),
    "worms nulled": (
        nulled(["seat1_worms"], slice(3, 4)),
        ("worms is nan (null) beside an account",),
    ),
    # not numbers at all (a traceback in the check would be a crash, not a refusal)
    "par as text": (as_text("seat0_par"), ("seat0_par holds string, not numbers",)),
    "worms as text": (as_text("seat1_worms"), ("seat1_worms holds string",)),
}
CHUNK_LEVEL = {"the chunk's account nulled", "par as text", "worms as text"}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_an_edited_account_sealed_again_is_refused_naming_chunk_row_and_identity(copy, attack):
    edit, words = ATTACKS[attack]
    file = reseal(copy, edit, which=1)
    refused(copy, file, *words, row=attack not in CHUNK_LEVEL)


def test_the_refusal_is_one_line_and_exit_2_for_report_and_compare(copy, reference, cli):
    file = reseal(copy, at_row("seat0_regret_pick", 5, -100.0))
    result = cli("report", str(copy), "--no-plots")
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1
    assert f"games/{file}: row 5" in result.output and "regret is never negative" in result.output
    for recount in ([], ["--recount"]):
        result = cli("compare", str(reference.run_dir), str(copy), *recount)
        assert result.exit_code == 2, result.output
        assert "regret is never negative" in result.output and "--repair" in result.output


def test_repair_plays_the_chunk_again_and_the_report_reads(copy, reference, cli, monkeypatch):
    file = reseal(copy, shifted({"seat0_luck": 0.3}), which=2)
    monkeypatch.chdir(copy.parent.parent)
    result = cli("report", str(copy), "--no-plots", "--repair")
    assert result.exit_code == 0, result.output
    assert f"damaged: games/{file}: row 0" in result.output
    assert "again from their seeds" in result.output
    pd.testing.assert_frame_equal(frame(copy), frame(reference.run_dir))
    result = cli("report", str(copy), "--no-plots", "--repair")
    assert result.exit_code == 0 and "Nothing to repair" in result.output


def test_a_resume_plays_the_chunk_again(copy, reference):
    reseal(copy, at_row("seat1_wluck", 0, float("nan")), which=3)
    again = run_tournament(CONFIG, out=copy.parent.parent, workers=0)
    assert again.run_dir == copy and again.played == 3 * 2
    assert "wluck is nan" in (copy / "run.log").read_text()
    pd.testing.assert_frame_equal(frame(copy), frame(reference.run_dir))


def test_a_chunk_that_breaks_an_identity_is_never_reused(tmp_path):
    """Its other chunks are reused; it is played. (Workers: a chunk played in a process
    that had loaded other plugins, as pytest's may have, is never reused anyway.)"""
    config = {**CONFIG, "entrants": ["greedy", "tactician"]}
    source = run_tournament(config, out=tmp_path, workers=1)
    reseal(source.run_dir, shifted({"seat0_par": 0.25}), which=0)
    other = run_tournament({**config, "name": "other"}, out=tmp_path, workers=1)
    assert other.reused == 3 * 2 and other.played == 3 * 2
    clean = run_tournament({**config, "name": "clean"}, out=tmp_path / "clean", workers=1)
    pd.testing.assert_frame_equal(frame(other.run_dir), frame(clean.run_dir))


def test_a_played_chunk_that_breaks_one_is_never_stored(tmp_path, monkeypatch):
    """The writer holds a chunk to the same identities before it stores it."""
    from harness.errors import RunFailed
    from harness.tourney import storage

    real = storage.to_arrow

    def broken(spec, result, **kw):
        table = real(spec, result, **kw)
        return put(table, "seat0_luck", column(table, "seat0_luck") + 0.5)

    monkeypatch.setattr(storage, "to_arrow", broken)
    with pytest.raises(RunFailed, match="not stored: row 0 .*luck account"):
        run_tournament({**CONFIG, "entrants": ["greedy", "simple"]}, out=tmp_path, workers=0)


def test_three_players_each_seat_adds_up_to_its_worms_and_steals(reference3, tmp_path):
    run_dir = copy_of(reference3, tmp_path)
    table = pq.read_table(run_dir / "games" / entries(run_dir)[0]["file"])
    stolen = [column(table, seat_column(s, "steals")).sum() for s in range(3)]
    assert sum(stolen) > 0  # the identity is tested where steals move the margins
    file = reseal(run_dir, shifted({"seat2_luck": 0.25}, row=1))
    refused(run_dir, file, "row 1", "seat 2", "its turns' swings add up to its")


def test_an_untouched_run_and_a_rewritten_one_read(copy, reference):
    assert open_run(reference.run_dir).parts
    reseal(copy, lambda table: table, which=4)  # new bytes, the same rows
    info = open_run(copy)
    assert len(info.parts) == len(entries(copy))


def test_a_folder_assembled_by_hand_is_checked_too(copy):
    """A run.json without run_format is read as it is (no digest), but not an account
    that breaks an identity: dropping run_format does not get round the check."""
    reseal(copy, at_row("seat0_regret_claim", 2, -5.0))
    config = json.loads((copy / "run.json").read_text())
    del config["run_format"]
    (copy / "run.json").write_text(json.dumps(config))
    with pytest.raises(ReportError, match=r"row 2 .*seat 0: regret_claim is -5: a regret"):
        open_run(copy)


def frame(run_dir: Path) -> pd.DataFrame:
    games = pd.read_parquet(run_dir / "games")
    return games.sort_values(["table", "deal", "seating"]).reset_index(drop=True)


# -- the identities themselves -------------------------------------------------------------
FLAKY = """
from harness.strategy import Strategy


class Flaky(Strategy):
    name = "flaky"

    def pick(self, view):
        if view.turn > 6 and view.total == 13:
            raise ValueError("flaky")  # a forfeit in the middle of a turn
        if view.turn > 8 and view.total == 17:
            return 99  # an illegal answer: a rule forfeit
        return max(view.choices)

    def stop(self, view):
        return view.total >= 25 + view.turn % 5
"""


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, 7])
def test_every_account_the_engines_store_keeps_every_identity(players, tmp_path):
    """No false refusal: played chunks of every table size and preset, with forfeits (a
    turn cut short is taken back) and turn caps, keep every identity, their rounding far
    inside the tolerance. (benchmarks/account_check.py plays 76,800 such games.)"""
    from harness.rules import PRESETS
    from harness.runfolder import identities
    from harness.tourney import load_config, plan
    from harness.tourney.chunks import play_chunk
    from harness.tourney.storage import to_arrow

    (tmp_path / "flaky.py").write_text(FLAKY)
    names = ["random", "greedy", "tactician", "worm-first", "simple", "threshold", "optimal"]
    worst = 0.0
    statuses: set[str] = set()
    for k, preset in enumerate(PRESETS):
        entrants = [*names[k:], *names[:k]][:players]
        if k == 0:
            entrants[-1] = f"{tmp_path / 'flaky.py'}:Flaky"
        config = load_config(
            {
                "name": "ids",
                "players": players,
                "format": "gauntlet",
                "challenger": entrants[0],
                "entrants": entrants[1:],
                "deals": 1,
                "seed": players * 10 + k,
                "luck": "on",
                "max_turns": 9 if k == 1 else 1000,
                "rules": {"preset": preset},
            }
        )
        spec = next(plan.Plan(config).specs())
        table = to_arrow(spec, play_chunk(spec))
        statuses |= set(table.column("status").to_pylist())
        assert identities.account_problem(table, players, True) is None
        worst = max(worst, _worst_ratio(table, players))
    assert statuses == {"over", "turn-cap", "forfeit"}
    assert worst < 0.05  # the rounding is a small fraction of the tolerance


def _worst_ratio(table: Table, players: int) -> float:
    from harness.runfolder import identities

    v = {
        f: np.stack([column(table, seat_column(i, f)) for i in range(players)], axis=1)
        for f in (*ACCOUNT_FIELDS, "worms")
    }
    swing = v["par"] + v["luck"] - v["regret_pick"] - v["regret_stop"] - v["regret_claim"]
    stolen = (players - 1) * (swing - v["worms"])
    terms = 2 * v["rolls"] + v["picks"] + v["stops"] + v["claims"]
    return float((np.abs(stolen - np.rint(stolen)) / identities.tolerance(terms, players)).max())


def test_the_constants_are_the_accounts():
    """The bounds the check uses are the account's own: its win model's spread, the
    largest slope it can take, the range of its turn values."""
    from harness.analysis import account
    from harness.runfolder import identities

    assert account.WIN_SPREAD == identities.WIN_SPREAD  # (and account.inc.c's ACC_SPREAD)

    for players in range(2, 8):
        assert account.steal_share(players) * identities.MOST_WORMS == pytest.approx(
            identities.best_swing(players)
        )
        # the steepest slope: every other seat level, one worm on the grill
        steepest = account.win_slope([0] * players, 0, 1)
        assert steepest <= identities.slope_bound(players) * (1 + 1e-12)
    assert identities.tolerance(np.array([100.0]), 2)[0] < 1e-10
