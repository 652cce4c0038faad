"""What every ``harness`` command shares: exit statuses, one-line errors, rules options.

Every command module of :mod:`harness.commands` (play, strategies, init, report, tourney,
analyze, sprt, coach) imports this and lower rooms, never :mod:`harness.commands.group`,
which imports them all to register them: the arrows run one way.

One rule for every command's exit status (:func:`exit_status`):

====  =====================================================================================
0     done: a finished run, a written report, a legal record
1     the work cannot finish: storage (disk full, read-only folder), a cluster, chunks
      that keep failing, an engine check that disagrees (``analyze turn --simulate``)
2     bad input of any kind: config, strategy reference, parameter, option, record, run
      folder (also click's own usage errors)
3     ``--strict``: a finished run that had forfeits (for CI)
130   interrupted (Ctrl-C), whenever it comes: while playing or while writing the report
====  =====================================================================================

Every command is wrapped in :func:`user_errors`, which applies the rule and prints one
line for the user (never a traceback for a user's mistake).
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from harness.errors import (
    GAMES_RENAMED,
    ConfigError,
    Deprecated,
    GameError,
    HarnessError,
    IntegrityError,
    RunFailed,
    deprecated,
    safe_text,
    shown,
)
from harness.game.engines import ENGINES
from harness.game.rules import PRESETS, VARIANTS, Rules
from harness.interrupts import user_interrupts
from harness.seats.settings import (
    ISOLATION_MODES,
    LUCK_MODES,
    SeatSettings,
    SettingsError,
    settings_from,
)
from harness.tourney.progress import CONSOLE_MARK

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK = 0
EXIT_FAILED = 1  # the run (the command's work) cannot finish
EXIT_BAD_INPUT = 2  # config, strategy reference, parameter, option, record, run folder
EXIT_FORFEITS = 3  # --strict, and the finished run had forfeits
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)

# Errors that say the work cannot finish although the input was fine (exit 1): RunFailed
# and its subclasses wherever they are defined (StorageError, DaskError), so the status
# never depends on which modules a command happened to load. Interruptions of other
# modules are looked up where they are defined, only if that module is loaded (an
# exception of a class can only exist once its module is): no import just for this.
_FAILURES: tuple[type[BaseException], ...] = (RunFailed, IntegrityError, GameError)
_INTERRUPTS_ELSEWHERE = (("harness.tourney.runner", "TourneyInterrupted"),)
_SEVERAL = (("harness.tourney.config", "ConfigProblems"),)  # .problems: a line each


def _loaded(names: tuple[tuple[str, str], ...]) -> tuple[type[BaseException], ...]:
    found = (getattr(sys.modules.get(module), name, None) for module, name in names)
    return tuple(cls for cls in found if isinstance(cls, type))


def echo_err(text: str) -> None:
    """One line for people, on stderr (progress, notes), out of the way of --json."""
    click.echo(text, err=True)


def exit_status(exc: BaseException) -> int:
    """The exit status a command ends with when ``exc`` stops it (the table above)."""
    if isinstance(exc, (KeyboardInterrupt, *_loaded(_INTERRUPTS_ELSEWHERE))):
        return EXIT_INTERRUPTED
    if isinstance(exc, _FAILURES):
        return EXIT_FAILED
    if isinstance(exc, HarnessError):
        return EXIT_BAD_INPUT
    if isinstance(exc, click.exceptions.UsageError):
        return EXIT_BAD_INPUT
    return EXIT_FAILED


class CommandError(click.ClickException):
    """One line ``Error: ...`` on stderr, and the exit status of :func:`exit_status`."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def check_out_folder(folder: str | Path, option: str = "--out") -> Path:
    """``folder`` if a command can write its output there: it is a folder, or one can be
    made, and a file can be written in it. Otherwise one line (HarnessError: exit 2),
    said before any game is played. Nothing is left behind: the folders made to try are
    removed (the command makes them again when it writes)."""
    from harness.runfolder.layout import os_error_cause, path_problem  # one wording

    path = Path(folder)
    why = path_problem(path, folder=True)
    if why is not None:
        raise HarnessError(f"{option} {safe_text(path)}: {safe_text(why)}")
    made: list[Path] = []
    try:
        missing, there = [], path.absolute()
        while not there.exists() and there != there.parent:
            missing.append(there)
            there = there.parent
        for step in reversed(missing):
            step.mkdir()
            made.append(step)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        why = os_error_cause(exc)
        raise HarnessError(f"{option} {safe_text(path)}: cannot write there: {why}") from None
    finally:
        for step in reversed(made):
            with contextlib.suppress(OSError):
                step.rmdir()
    return path


def out_folder(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """A click callback for an output-folder option: :func:`check_out_folder` as the
    option is read, one line and exit 2 for a folder that cannot be written."""
    if value is None:
        return value
    try:
        check_out_folder(value, (param.opts or ["--out"])[0])
    except HarnessError as exc:
        raise CommandError(safe_text(exc), EXIT_BAD_INPUT) from None
    return value


def interrupted() -> None:
    """The user pressed Ctrl-C: say so in one line and exit 130."""
    click.echo("Interrupted.", err=True)
    sys.exit(EXIT_INTERRUPTED)


def user_errors(func: F) -> F:
    """Run a command under the exit-status rule, with one line for whatever stops it.

    HarnessError: its message, exit 2 (bad input) or 1 (:data:`_FAILURES`: the run cannot
    finish); OSError or MemoryError out of the command's own work (writing a file): 1;
    Ctrl-C: "Interrupted.", 130. The user's Ctrl-C is told apart from a plugin's
    KeyboardInterrupt (:func:`harness.interrupts.user_interrupts`) for the whole command.
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with user_interrupts():
                return func(*args, **kwargs)
        except KeyboardInterrupt:
            interrupted()
        except HarnessError as exc:
            if exit_status(exc) == EXIT_INTERRUPTED:
                click.echo(safe_text(exc), err=True)
                sys.exit(EXIT_INTERRUPTED)
            # Several mistakes of a config at once (ConfigProblems): an Error: line each.
            several = isinstance(exc, _loaded(_SEVERAL))
            *before, last = exc.problems if several else [exc]  # type: ignore[attr-defined]
            for problem in before:
                click.echo(f"Error: {safe_text(problem)}", err=True)
            raise CommandError(safe_text(last), exit_status(exc)) from None
        except MemoryError:
            raise CommandError("out of memory; the command stopped", EXIT_FAILED) from None
        except OSError as exc:
            if isinstance(exc, BrokenPipeError):
                raise  # click's own handling: output piped into `head`, say
            raise CommandError(f"cannot finish: {safe_text(exc)}", EXIT_FAILED) from None

    return wrapper  # type: ignore[return-value]


MAX_USAGE_CHARS = 300  # click's own usage errors quote the value given


class HarnessGroup(click.Group):
    """The ``harness`` group: a Ctrl-C that no command handles (one that lands while a
    command's module is imported, say) also ends with one line and status 130, where
    click would print "Aborted!" and exit 1. Click's own usage errors, which quote the
    value given (a 5,000-digit ``--seed``), are cut to one short line."""

    def invoke(self, ctx: click.Context) -> Any:
        deprecations_as_lines()
        try:
            with user_interrupts():
                return super().invoke(ctx)
        except KeyboardInterrupt:
            interrupted()
        except click.UsageError as exc:
            if len(exc.message) > MAX_USAGE_CHARS:  # keep the end: it says what is wrong
                cut = len(exc.message) - 200
                exc.message = (
                    f"{exc.message[:140]}... ({cut:,} characters left out) ...{exc.message[-60:]}"
                )
            exc.message = safe_text(exc.message, MAX_USAGE_CHARS + 60)
            raise


_PLAIN_FORMAT = warnings.formatwarning


def _format_warning(
    message: Warning | str, category: type[Warning], filename: str, lineno: int, line: Any = None
) -> str:
    if issubclass(category, Deprecated):
        return f"Deprecated: {message}\n"
    return _PLAIN_FORMAT(message, category, filename, lineno, line)


def deprecations_as_lines() -> None:
    """A deprecated spelling (``games:``, ``--games``) is one line ``Deprecated: ...``
    on stderr (once: Python's default for the warning), not Python's two-line warning.
    Only the format changes: a program or test that records warnings still gets them."""
    warnings.formatwarning = _format_warning


MAX_SETTING_CHARS = 80  # one --set KEY=VALUE


def parse_variants(preset: str, variants: tuple[str, ...], players: int | None = None) -> Rules:
    """Rules from a preset name and ``KEY=VALUE`` overrides (``--set bust_flip=none``)."""
    data: dict[str, Any] = {"preset": preset}
    for item in variants:
        key, sep, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not sep:
            raise click.BadParameter(
                f"{shown(item)}: write KEY=VALUE, e.g. bust_flip=none", param_hint="--set"
            )
        if len(item) > MAX_SETTING_CHARS:  # keys and values are short words
            raise click.BadParameter(
                f"{shown(item, 60)}: {len(item):,} characters; KEY=VALUE is a few words",
                param_hint="--set",
            )
        if key == "players":
            data[key] = int(value) if value.strip().isdigit() else value
        elif key in VARIANTS and isinstance(VARIANTS[key][0], bool):
            lowered = value.strip().lower()
            data[key] = {"true": True, "false": False}.get(lowered, value)
        else:
            data[key] = value.strip()
    if players is not None and "players" not in data:
        data["players"] = players
    return Rules.from_dict(data, where="--set")


RULES_HELP = f"Rules preset: {', '.join(PRESETS)}."
SET_HELP = (
    "Override a variant key, KEY=VALUE (repeatable): "
    + "; ".join(f"{k}: {'/'.join(str(v).lower() for v in vs)}" for k, vs in VARIANTS.items())
    + "."
)


def rules_options(func: F) -> F:
    """``--rules PRESET`` and ``--set KEY=VALUE`` (as ``preset`` and ``variants``: not
    ``settings``, the seat settings' name)."""
    func = click.option("--set", "variants", multiple=True, metavar="KEY=VALUE", help=SET_HELP)(
        func
    )
    return click.option(
        "--rules",
        "preset",
        default="official",
        show_default=True,
        type=click.Choice(list(PRESETS)),
        help=RULES_HELP,
    )(func)


def limits_options(
    isolation_default: str | None, isolation_unset: str | None = None
) -> Callable[[F], F]:
    """``--isolation``, ``--move-time`` and ``--game-time``, alike on every command that
    plays (``play``, ``tourney``, ``sprt``, ``coach``, ``diff``). ``isolation_default``
    None: the option only overrides a config's ``isolation``, or (``isolation_unset``,
    what the command does when it is not given, for the help) a command's own default."""
    config = " (overrides the config's; default none)" if isolation_default is None else ""
    if isolation_unset is not None:
        config = f" (none: in harness's own process; not given: {isolation_unset})"

    def decorate(func: F) -> F:
        seconds = float  # bounds checked by the command (check_bounds): one line, exit 2
        func = click.option(
            "--game-time",
            type=seconds,
            default=None,
            metavar="SECONDS",
            help="Time limit of one seat's decisions in one game; over it, that seat "
            "forfeits (reason: time). Off by default.",
        )(func)
        func = click.option(
            "--move-time",
            type=seconds,
            default=None,
            metavar="SECONDS",
            help="Time limit per decision; a seat over it forfeits (reason: time). Off by default.",
        )(func)
        return click.option(
            "--isolation",
            type=click.Choice(list(ISOLATION_MODES)),
            default=isolation_default,
            show_default=isolation_default is not None,
            help="process: run each seat's strategy in a process of its own, out of reach "
            f"of the engine and the dice{config}.",
        )(func)

    return decorate


ENGINE_CHOICES = ENGINES  # the game tier's (harness.game.engines)
LUCK_CHOICES = LUCK_MODES  # the seat settings' (harness.seats.settings)


def engine_option(config: bool) -> Callable[[F], F]:
    """``--engine auto|python|native`` (as ``engine``), alike on ``play``, ``tourney`` and
    ``sprt``. ``config`` True: the option overrides a config's ``engine`` (default None)."""
    where = "overrides the config's; default auto" if config else "default auto"
    return click.option(
        "--engine",
        type=click.Choice(list(ENGINE_CHOICES)),
        default=None if config else "auto",
        help="auto: the native engine where it can play (built-ins, no seat limits), the "
        "Python engine elsewhere; native: refuse what it cannot play; python: never native. "
        f"Same games with each ({where}).",
    )


def luck_option(config: bool = True) -> Callable[[F], F]:
    """``--luck auto|on|off|win`` (as ``luck``): keep the luck and skill account of every game
    (docs/luck.md). ``config`` True: the option overrides a config's ``luck`` (default
    None); else its default is auto."""
    where = "overrides the config's; default auto" if config else "default auto"
    return click.option(
        "--luck",
        type=click.Choice(list(LUCK_CHOICES)),
        default=None if config else "auto",
        help="Keep the exact luck and skill account of every game, for luck-adjusted "
        "estimates (docs/luck.md): on, off, or auto: at tables with a plugin or optimal, "
        "where it costs little next to the games; win: on, and the win account's luck "
        f"(the win shares' control) at every table, the only mode that keeps it ({where}).",
    )


def seat_settings_of(base: SeatSettings | None = None, **options: Any) -> SeatSettings:
    """The seat settings a command's options give (:func:`limits_options`,
    :func:`engine_option`, :func:`luck_option`: ``move_time=``, ``isolation=``, ...):
    ``base``'s (a config's; else the defaults) with each option given (not None) in
    place, checked once as every seat setting is; a mistake is one line naming the
    option (``--move-time: 0.0; give seconds above 0 ...``, exit 2)."""
    try:
        return settings_from(None, base, **options)
    except SettingsError as exc:
        raise exc.for_option() from None


def deals_option(deals: int | None, games: int | None) -> dict[str, int]:
    """``--deals``, or its old name ``--games`` (said deprecated, once), as the keyword a
    run takes (``deals=`` or ``games=``, so that a message names the option typed); not
    both (ConfigError, one line)."""
    if deals is not None and games is not None:
        raise ConfigError("--deals and --games: give --deals only (--games is its old name)")
    if games is None:
        return {} if deals is None else {"deals": deals}
    deprecated(GAMES_RENAMED.format(old="--games", new="--deals"))
    return {"games": games}


# -- shell completion (click's: eval "$(_HARNESS_COMPLETE=bash_source harness)") ----------
def complete_strategy(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[click.shell_completion.CompletionItem]:
    """Strategy names for the shell: built-ins and installed plugins, then files
    (``path/to/file.py:Class`` starts as a file name)."""
    from harness.plugins import builtin_strategies, entry_point_strategies

    try:
        names = [*builtin_strategies(), *entry_point_strategies()]
    except Exception:  # a broken plugin must not break the shell's completion
        names = []
    items = [click.shell_completion.CompletionItem(n) for n in names if n.startswith(incomplete)]
    return items + [click.shell_completion.CompletionItem(incomplete, type="file")]


def complete_config(
    ctx: click.Context, param: click.Parameter, incomplete: str
) -> list[click.shell_completion.CompletionItem]:
    """Config names for the shell: the shipped configs by name, then files."""
    from harness.configs import shipped_configs

    names = [n for n in shipped_configs() if n.startswith(incomplete)]
    items = [click.shell_completion.CompletionItem(n) for n in names]
    return items + [click.shell_completion.CompletionItem(incomplete, type="file")]


CONSOLE_FORMAT = "%(levelname)s %(name)s: %(message)s"


def verbosity_options(quiet: str | None) -> Callable[[F], F]:
    """``-v`` / ``--verbose`` (again for more: ``-vv``) as ``verbose``, and, unless
    ``quiet`` is None, ``-q`` / ``--quiet`` as ``quiet`` with that help. The command
    calls :func:`console_log` with ``verbose``."""

    def decorate(func: F) -> F:
        if quiet is not None:
            func = click.option("-q", "--quiet", is_flag=True, help=quiet)(func)
        return click.option(
            "-v",
            "--verbose",
            count=True,
            help="Also print the log (what run.log gets) on stderr; -vv: debug records too.",
        )(func)

    return decorate


def console_log(verbose: int) -> None:
    """With ``-v``, harness's log records (INFO; ``-vv``: DEBUG) also go to stderr, one
    line each, until the command ends; without it, nothing changes (the log is run.log's).

    The handler is marked (:data:`~harness.tourney.progress.CONSOLE_MARK`): a run's own
    log (which does not propagate) takes it on too (:func:`harness.tourney.runner.run_log`,
    through :func:`~harness.tourney.progress.console_handlers`).
    """
    if verbose <= 0:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(CONSOLE_FORMAT))
    handler.setLevel(logging.INFO if verbose == 1 else logging.DEBUG)
    setattr(handler, CONSOLE_MARK, True)  # the runner's log takes it on (console_handlers)
    logger = logging.getLogger("harness")
    old_level = logger.level
    logger.addHandler(handler)
    logger.setLevel(min(handler.level, logger.getEffectiveLevel()))

    def remove() -> None:
        logger.removeHandler(handler)
        logger.setLevel(old_level)

    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.call_on_close(remove)


def max_turns_option(help_text: str) -> Callable[[F], F]:
    """``--max-turns N`` (as ``max_turns``, default None), alike on ``play`` and ``sprt``:
    what the cap does there is ``help_text``."""
    return click.option("--max-turns", type=click.IntRange(1), default=None, help=help_text)


def strict_option(when: str) -> Callable[[F], F]:
    """``--strict``: exit with EXIT_FORFEITS when ``when`` (for CI)."""
    return click.option(
        "--strict",
        is_flag=True,
        help=f"Exit with status {EXIT_FORFEITS} when {when} (for CI); otherwise 0.",
    )
