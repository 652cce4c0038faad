"""``harness analyze``: exact turn analysis on the command line.

Registered by :mod:`harness.commands.group`; imports :mod:`harness.commands.common`
and lower rooms, never the group. Everything else is imported when a command runs:
``harness --help`` does not pay for building the turn's state graph. Options are bounded
before any work (:func:`_check_options`); mistakes exit with status 2, a simulation that
disagrees with the exact values with 1 (harness.commands.common's rule).
"""

from __future__ import annotations

import json
import random
import sys
import time

import click

from harness.commands.common import user_errors
from harness.report.pages.render import text_table


@click.group()
def analyze() -> None:
    """Exact analysis of Pickomino play (dynamic programming, no sampling)."""


@analyze.command("turn")
@click.option(
    "--grill",
    default=None,
    metavar="TILES",
    help="Face-up grill tiles, e.g. 21-24,27,30-36 [default: every tile not in --tops or --held].",
)
@click.option(
    "--tops",
    default="",
    metavar="TILES",
    help="Opponents' top tiles (a stop at exactly that total steals it), e.g. 25,31.",
)
@click.option(
    "--held", type=int, default=None, metavar="TILE", help="Your top tile: a bust loses it (R9)."
)
@click.option(
    "--policy",
    type=click.Choice(["max-success", "expected-worms"]),
    default=None,
    help="Show only this policy: max-success (P(>= t), P(= t) per target) or "
    "expected-worms (distribution of worms gained). Both by default.",
)
@click.option(
    "--targets",
    default="21-36",
    show_default=True,
    metavar="RANGE",
    help="Targets t of the max-success table, e.g. 21-36 or 25,30.",
)
@click.option(
    "--kept",
    default="",
    metavar="FACES",
    help="Analyse from the middle of a turn: the dice set aside so far, e.g. W,W,5,5.",
)
@click.option(
    "--exact", is_flag=True, help="Exact rational arithmetic (slower; JSON adds fractions)."
)
@click.option(
    "--simulate",
    "turns",
    type=click.IntRange(1),
    default=None,
    metavar="N",
    help="Also play N turns per policy through the real engine and compare the "
    "frequencies with the exact values.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed of the simulated dice (random if not given; printed).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
def turn(**options: object) -> None:
    """Exact outcome probabilities of one turn from a given board.

    For each target t, the best chance to end the turn with a claim at a total >= t,
    and at exactly t; the least possible bust probability; and the distribution of
    worms gained under the play that maximises the mean worms gained. With --simulate,
    the exit status is 1 if the engine's frequencies disagree with the exact values.

    \b
    Examples:
      harness analyze turn
      harness analyze turn --grill 25-36 --tops 23 --held 24 --policy expected-worms
      harness analyze turn --simulate 20000 --seed 1
    """
    user_errors(_turn)(**options)


def _turn(
    grill: str | None,
    tops: str,
    held: int | None,
    policy: str | None,
    targets: str,
    kept: str,
    exact: bool,
    turns: int | None,
    seed: int | None,
    as_json: bool,
) -> None:
    from harness.analysis.board import TurnBoard, parse_tiles
    from harness.analysis.report import POLICIES, analyze_turn, lines, parse_kept, to_json
    from harness.game.rules import TILES

    _check_options(turns, seed, held, grill=grill, tops=tops, targets=targets, kept=kept)
    top_tiles = parse_tiles(tops, "--tops")
    if grill is None:
        grill_tiles = tuple(t for t in TILES if t not in top_tiles and t != held)
    else:
        grill_tiles = parse_tiles(grill, "--grill")
    board = TurnBoard(grill=grill_tiles, tops=top_tiles, held=held)
    target_list = [int(t) for t in _targets(targets)]
    kept_faces = parse_kept(kept)
    if turns is not None and kept_faces:
        raise click.UsageError("--simulate plays whole turns: it cannot start after --kept dice")
    policies = (policy,) if policy else POLICIES
    analysis = analyze_turn(
        board, targets=target_list, kept=kept_faces, exact=exact, policies=policies
    )
    payload = to_json(analysis)
    text = [] if as_json else lines(analysis)
    if turns is not None:
        from harness.analysis.simulate import simulate, verdict

        if seed is None:
            seed = random.SystemRandom().randrange(2**31)
        started = time.process_time()
        progress = _progress if not as_json and sys.stderr.isatty() else None
        checks = simulate(analysis, turns, seed, progress=progress)
        if progress:
            click.echo("\r" + " " * 40 + "\r", nl=False, err=True)
        summary = verdict(checks)
        payload["simulation"] = {
            "turns_per_policy": turns,
            "seed": seed,
            "engine": "harness.game.engine.Game",
            "checks": [c.to_json() for c in checks],
            **summary,
            "cpu_seconds": time.process_time() - started,
        }
        text += _simulation_lines(checks, summary, turns, seed)
    if as_json:
        click.echo(json.dumps(payload))
    else:
        click.echo("\n".join(text))
    if turns is not None and not payload["simulation"]["passed"]:
        sys.exit(1)  # a check that can fail: scripts and CI see the disagreement


# The longest sensible list option: all 16 tiles written one by one, with spaces.
MAX_OPTION_CHARS = 200


def _check_options(
    turns: int | None, seed: int | None, held: int | None, **texts: str | None
) -> None:
    """Bounds before any work: list options short (they are parsed number by number),
    --simulate and --seed within the tournament's bounds (turns like deals; int64 seeds)."""
    from harness.errors import HarnessError, shown
    from harness.tourney.config import MAX_GAMES, check_bounds

    for name, text in texts.items():
        if text is not None and len(text) > MAX_OPTION_CHARS:
            raise HarnessError(
                f"--{name}: {shown(text, 40)} has {len(text):,} characters; "
                f"at most {MAX_OPTION_CHARS}"
            )
    if held is not None and not 0 <= held <= 99:
        raise HarnessError(f"--held: {shown(held, 40)} is not a tile 21-36 (R1)")
    if turns is not None and turns > MAX_GAMES:
        raise HarnessError(f"--simulate: {turns:,}; at most {MAX_GAMES:,} turns per policy")
    check_bounds(seed=seed)


def _targets(text: str) -> list[int]:
    from harness.analysis.board import parse_numbers
    from harness.errors import HarnessError

    found = parse_numbers(text, "--targets", range(0, 41), "a total 0-40 of 8 dice")
    if not found:
        raise HarnessError("--targets: no target given, e.g. 21-36")
    return list(found)


def _progress(label: str) -> None:
    click.echo(f"\rsimulating {label} ...".ljust(40), nl=False, err=True)
    sys.stderr.flush()


def _simulation_lines(checks: list, summary: dict, turns: int, seed: int) -> list[str]:
    out = [
        "",
        f"Simulation through the engine: {turns:,} turns per policy, seed {seed}",
    ]
    rows = []
    for c in checks:
        z = "-" if c.z is None else f"{c.z:+.2f}"
        low, high = c.exact - c.half_width, c.exact + c.half_width
        mark = "ok" if c.within else "OUT"
        interval = f"{low:.6f} to {high:.6f}"
        rows.append([c.quantity, f"{c.exact:.6f}", f"{c.simulated:.6f}", interval, z, mark])
    header = ["quantity", "exact", "simulated", "95% interval", "z", ""]
    out += ["  " + line for line in text_table(header, rows)]
    verdict = "agrees with" if summary["passed"] else "DISAGREES with"
    out += [
        f"  {summary['within_95']} of {summary['count']} within their 95% intervals "
        f"(about 1 in 20 falls outside by chance);",
        f"  largest |z| {summary['worst_z']:.2f}, family-wide bound {summary['family_z']:.2f}: "
        f"the engine {verdict} the exact analysis",
    ]
    return out


@analyze.command("game")
@click.argument("record_file", type=click.Path(dir_okay=False))
@click.option("--seats-only", is_flag=True, help="Only each seat's totals, not every turn.")
@click.option("--json", "as_json", is_flag=True, help="Print the account as JSON.")
@click.option(
    "--unit",
    type=click.Choice(["win", "worms"]),
    default="win",
    show_default=True,
    help="Judge in chances to win (the evaluator's) or in worms of swing.",
)
def game(record_file: str, seats_only: bool, as_json: bool, unit: str) -> None:
    """Luck and skill of every turn of a recorded game, exactly (docs/luck.md).

    The record is replayed through the engine (every move checked); for each turn, its
    par (what it was worth before the first roll), each roll's luck, each decision's
    regret with the better move, and the swing, with the check swing = par + luck -
    regret; then each seat's totals and, with two players, the worm margin split into
    par, luck and skill. Exit status 1 if a turn does not sum (it never should).

    --unit win (the default) values every ending by the turn-taker's chance to win the
    game (harness.winprob's evaluator, exact at the game's end): a turn's chance after
    = par + luck - regret, and with two players each seat's result = its chance at the
    start + drift + luck + skill. --unit worms: the worm swing, as stored in records.

    \b
    Examples:
      harness play greedy tactician --seed 3 --record game.json
      harness analyze game game.json
      harness analyze game game.json --seats-only --json --unit worms
    """
    user_errors(_game)(record_file, seats_only, as_json, unit)


def _game(record_file: str, seats_only: bool, as_json: bool, unit: str = "win") -> None:
    from harness.analysis.game import account_json, account_lines, account_record
    from harness.game.record import load_record

    account = account_record(load_record(record_file), unit)
    if as_json:
        payload = account_json(account)
        if seats_only:
            del payload["turns"]
        click.echo(json.dumps(payload))
    else:
        click.echo("\n".join(account_lines(account, turns=not seats_only)))
    if not account.sums:
        sys.exit(1)


@analyze.command("roll")
@click.argument("roll", metavar="ROLL")
@click.option("--kept", default="", metavar="FACES", help="Dice set aside so far, e.g. W,W,5.")
@click.option(
    "--grill",
    default=None,
    metavar="TILES",
    help="Face-up grill tiles, e.g. 21-24,27,30-36 [default: every tile not on a stack].",
)
@click.option(
    "--tops",
    default="",
    metavar="TILES",
    help="The opponents' top tiles, seat 1 first, 0 for an empty stack (a stop at exactly "
    "that total steals it), e.g. 25,0,31.",
)
@click.option(
    "--held", type=int, default=None, metavar="TILE", help="Your top tile: a bust loses it (R9)."
)
@click.option(
    "--players", type=click.IntRange(2, 7), default=None, help="Players [default: tops + 1]."
)
@click.option(
    "--lower-any", is_flag=True, help="The lower_tile: any variant (claim any tile <= total)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the options as JSON.")
def roll(**options: object) -> None:
    """Every legal option of ROLL, valued exactly, best first.

    ROLL is the dice just rolled (e.g. W,W,5,3,2,1,1,4 or "6 6 5 3 2 1 1 4"), as many as
    the dice left after --kept. An option is a keep (R5) and, where a stop would claim
    with dice left, stop or roll on (R6, R7); its value is the turn's expected worm
    swing under best play afterwards (the payoff `optimal` maximises, docs/luck.md), its
    regret what it gives up against the best. Also: what the turn was worth before the
    roll, and the roll's luck.

    \b
    Examples:
      harness analyze roll W,W,5,3,2,1,1,4
      harness analyze roll 5,5,4,3 --kept W,W,3,3 --grill 25-36 --tops 24 --held 23
    """
    user_errors(_roll)(**options)


def _roll(
    roll: str,
    kept: str,
    grill: str | None,
    tops: str,
    held: int | None,
    players: int | None,
    lower_any: bool,
    as_json: bool,
) -> None:
    from harness.analysis.board import parse_numbers, parse_tiles, tile_ranges
    from harness.analysis.report import parse_kept
    from harness.analysis.roll import option_lines, position_of, roll_options
    from harness.errors import HarnessError
    from harness.game.rules import TILES, face_name

    _check_options(None, None, held, roll=roll, kept=kept, grill=grill, tops=tops)
    rolled = parse_kept(roll.replace("ROLL", ""))  # the same faces as --kept: W or 6 a worm
    top_tiles = parse_numbers(tops, "--tops", [0, *TILES], "a tile 21-36 or 0 (none)")
    stacked = {t for t in top_tiles if t} | ({held} if held else set())
    if len(stacked) != len([t for t in top_tiles if t]) + (1 if held else 0):
        raise HarnessError("--tops/--held: each tile exists once (R1)")
    grill_tiles = (
        tuple(t for t in TILES if t not in stacked)
        if grill is None
        else parse_tiles(grill, "--grill")
    )
    if set(grill_tiles) & stacked:
        raise HarnessError("--grill: a tile on the grill is also on a stack (R1)")
    if not grill_tiles:
        raise HarnessError("the grill is empty: the game is over (R10)")
    position = position_of(
        grill_tiles, top_tiles, held, parse_kept(kept), players=players, lower_any=lower_any
    )
    analysis = roll_options(position, rolled)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "roll": list(analysis.roll),
                    "kept": list(position.kept),
                    "grill": list(position.grill),
                    "tops": list(position.tops),
                    "expected": analysis.expected,
                    "best": analysis.best,
                    "luck": analysis.luck,
                    "bust": analysis.bust,
                    "options": [
                        {
                            "face": o.face,
                            "count": o.count,
                            "then": o.then,
                            "claim": list(o.claim) if o.claim else None,
                            "value": o.value,
                            "regret": o.regret,
                        }
                        for o in analysis.options
                    ],
                }
            )
        )
        return
    shown = " ".join(face_name(f) for f in sorted(rolled, reverse=True))
    set_aside = " ".join(face_name(f) for f in position.kept) or "nothing"
    click.echo(
        f"Roll {shown} with {set_aside} set aside; grill {tile_ranges(position.grill)}, "
        f"{position.players} players (your top: {held or 'none'})."
    )
    click.echo(
        f"Before the roll the turn was worth {analysis.expected:+.4f} worms of swing; "
        f"after it, {analysis.best:+.4f} at best: luck {analysis.luck:+.4f}."
    )
    if analysis.bust:
        click.echo("No new face: the turn busts (R5).")
        return
    click.echo("\n".join(option_lines(analysis)))
