"""Entrants that played the same games: a parameter a strategy ignores is not a result.

A sweep of a parameter the strategy never reads (or two versions that decide alike) gives
entrants whose standings differ by nothing but their names; side by side in a table they
look like a measured tie. With duplicate dice (every table plays deal d on the same dice)
two entrants A and B that decide alike play *the same games*: each game A played, B
played too, on the same deal against the same opponents in the same seats, with the same
stored outcome. That is what is detected here, and said in one line naming them.

**How.** In the aggregates' one pass over the games, each game's stored outcome (turns,
status, the forfeit's seat and kind, and every seat's worms, rank, busts, steals, stolen
and luck account where kept) is hashed with the game's deal and who sat where, the
entrant itself written as ``*``; per entrant, these 64-bit hashes are summed (mod 2**64:
a digest of the multiset of its games, the same in any order of reading). Per pair of
entrants the games where both sit are summed apart as well (once with the entrant as
``*`` alone, once with the other written as ``#`` too). A and B played the same games
when

* their games without the other give equal digests and counts (each such game of A has
  its twin among B's, deal for deal, seat for seat), and
* their games together (A v B) give equal digests with both written out, where the
  run's seating design holds every order of a table (2 players; ``permutations``): then
  B in A's seat and A in B's play the game again, seat for seat. Under another design
  those games have no twin to be compared with, and are left out,

and there is at least one game to compare. A pair of one strategy under two names (a
mirror match, :mod:`.summary_mirrors`) is expected to be equal and is not flagged. Equal
digests of differing games need a 64-bit collision (about 1 in 10**19 a pair); games
whose decisions differ but whose every stored figure is equal in every game (two claims
of equal worms, the rest of the game alike) are flagged too: their results cannot tell
the entrants apart either. Independent dice deal every table its own dice: nothing is
compared there.

Memory: a 64-bit sum and a count per entrant, two sums and a count per pair of entrants.
Cost: a few vector operations per column, seat and pair of seats of a batch; 0.20 CPU-s
for a million 2-player games (the summary of configs/million.yaml, measured alone).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np

from harness.runfolder.games import Games
from harness.runfolder.schema import ACCOUNT_FIELDS, seat_column

_U = np.uint64
_STAR, _OTHER = -1, -2  # the entrant itself, and the other one of a pair, in a context
_SEAT_OUTCOME = ("worms", "rank", "busts", "steals", "stolen")


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on uint64 arrays (arithmetic mod 2**64)."""
    x = x + _U(0x9E3779B97F4A7C15)
    x = (x ^ (x >> _U(30))) * _U(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> _U(27))) * _U(0x94D049BB133111EB)
    return x ^ (x >> _U(31))


def _bits(values: np.ndarray) -> np.ndarray:
    """A numeric column as uint64 bits: an integer as itself, a float (nan: a null) as
    its float64 bits with every nan alike."""
    floats = np.asarray(values, dtype=np.float64)
    floats = np.where(np.isnan(floats), np.nan, floats)
    return floats.view(_U)


def _text_codes(games: Games, name: str) -> np.ndarray:
    """A text column as stable uint64 codes (crc32 of the text; any batch, any process)."""
    if not games.has(name):
        return np.zeros(len(games), dtype=_U)
    codes, names = games.labels(name)
    lookup = np.array([zlib.crc32(n.encode()) for n in names], dtype=_U)
    return lookup[codes]


def outcome_hashes(games: Games, players: int, account: bool = True) -> np.ndarray:
    """One hash per game of what it stored (not who played it: the names are the
    context, and a forfeit's message names its strategy): every column's bits times a
    key of its own (odd, 64-bit), summed, then mixed. ``account``: the luck account's
    columns too (a run that kept none stores nulls there)."""
    columns = [_text_codes(games, "status"), _text_codes(games, "error_kind")]
    columns += [_bits(games.number(name)) for name in ("turns", "error_seat")]
    fields = _SEAT_OUTCOME + (tuple(ACCOUNT_FIELDS) if account else ())
    for i in range(players):
        for f in fields:
            column = seat_column(i, f)
            if games.has(column):
                columns.append(_bits(games.number(column)))
    keys = _mix(np.arange(1, len(columns) + 1, dtype=_U)) | _U(1)
    total = np.zeros(len(games), dtype=_U)
    for key, column in zip(keys, columns, strict=True):
        total += column * key
    return _mix(total)


def _sum_into(target: np.ndarray, index: np.ndarray, values: np.ndarray) -> None:
    np.add.at(target, index, values)  # uint64: wraps mod 2**64, as a digest should


@dataclass
class SameGames:
    """The digests of the entrants' games (strategy indices as the aggregates number
    them), folded batch by batch: see the module docstring."""

    alone: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=_U))
    alone_n: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    with_: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=_U))
    with_n: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    swapped: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=_U))

    def grow(self, p: int) -> None:
        """Room for ``p`` entrants (they are found as games are read)."""
        have = len(self.alone)
        if p <= have:
            return
        for name in ("alone", "alone_n"):
            old = getattr(self, name)
            new = np.zeros(p, dtype=old.dtype)
            new[:have] = old
            setattr(self, name, new)
        for name in ("with_", "with_n", "swapped"):
            old = getattr(self, name)
            new = np.zeros((p, p), dtype=old.dtype)
            new[:have, :have] = old
            setattr(self, name, new)

    def add(self, games: Games, strat: np.ndarray, p: int, account: bool = True) -> None:
        """Fold a batch: ``strat`` holds each game's entrant per seat (games, seats);
        ``account``: the run may have kept the luck account (its columns are compared)."""
        self.grow(p)
        g, n = strat.shape
        if g == 0:
            return
        codes = strat.astype(np.int64)
        salt = _mix(outcome_hashes(games, n, account) ^ _mix(_bits(games.number("deal"))))
        seat = np.arange(n, dtype=np.int64)
        who = _mix(((codes + 3) * 16 + seat).astype(_U))  # w(seat, entrant)
        base = who.sum(axis=1, dtype=_U)
        star = _mix(((_STAR + 3) * 16 + seat).astype(_U))
        other = _mix(((_OTHER + 3) * 16 + seat).astype(_U))
        with_flat, with_n_flat = self.with_.reshape(-1), self.with_n.reshape(-1)
        swapped_flat = self.swapped.reshape(-1)
        for i in range(n):
            mine = base - who[:, i] + star[i]  # the context with seat i's entrant as *
            h_i = _mix(mine ^ salt)
            _sum_into(self.alone, codes[:, i], h_i)
            self.alone_n += np.bincount(codes[:, i], minlength=p)
            for j in range(n):
                if j == i:
                    continue
                pair = codes[:, i] * p + codes[:, j]
                _sum_into(with_flat, pair, h_i)
                with_n_flat += np.bincount(pair, minlength=p * p)
                _sum_into(swapped_flat, pair, _mix((mine - who[:, j] + other[j]) ^ salt))


def same_game_groups(
    digests: SameGames,
    names: list[str],
    mirrors: list[tuple[str, str]],
    every_order: bool,
) -> list[dict[str, object]]:
    """The groups of entrants that played the same games (see the module docstring),
    each as ``{"entrants": [names], "games": games of one compared}``. ``every_order``:
    the seating design holds every order of a table, so games of the two together
    compare too."""
    p = min(len(names), len(digests.alone))
    mirrored = {frozenset(pair) for pair in mirrors}
    group_of: dict[int, int] = {}
    compared: dict[int, int] = {}
    for a in range(p):
        for b in range(a + 1, p):
            if frozenset((names[a], names[b])) in mirrored:
                continue
            games = _same(digests, a, b, every_order)
            if games:
                root = group_of.setdefault(a, a)
                group_of[b] = root
                compared[root] = max(compared.get(root, 0), games)
    groups: dict[int, list[str]] = {}
    for member, root in sorted(group_of.items()):
        groups.setdefault(root, []).append(names[member])
    return [{"entrants": members, "games": compared[root]} for root, members in groups.items()]


def _same(d: SameGames, a: int, b: int, every_order: bool) -> int:
    """Games of one of them compared when a and b played the same games, else 0."""
    only_a = int(d.alone_n[a] - d.with_n[a, b])
    only_b = int(d.alone_n[b] - d.with_n[b, a])
    apart_a = (int(d.alone[a]) - int(d.with_[a, b])) % 2**64  # the sums are mod 2**64
    apart_b = (int(d.alone[b]) - int(d.with_[b, a])) % 2**64
    if only_a != only_b or apart_a != apart_b:
        return 0
    both = int(d.with_n[a, b])
    if both and every_order:
        if both != int(d.with_n[b, a]) or d.swapped[a, b] != d.swapped[b, a]:
            return 0
        return only_a + both
    return only_a


def same_games_line(group: dict[str, object]) -> str:
    """The one line that says it, naming them."""
    members = [str(m) for m in group["entrants"]]  # type: ignore[union-attr]
    named = ", ".join(members[:-1]) + f" and {members[-1]}"
    return (
        f"{named} played the same games ({group['games']:,} each compared: deal, seats, "
        "opponents and result alike): what tells them apart (a parameter the strategy "
        "ignores?) changed nothing in this run"
    )


__all__ = ["SameGames", "outcome_hashes", "same_game_groups", "same_games_line"]
