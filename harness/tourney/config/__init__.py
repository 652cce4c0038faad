"""Tournament configs: reading the YAML, checking every key, resolving the entrants.

A config is checked whole before any game is played. Every mistake is one
:class:`~harness.errors.ConfigError` line, ``FILE:LINE: KEY: what is wrong``, with the
line where YAML gives it. The result is a :class:`TourneyConfig`: rules, entrants
resolved to their classes (with code identity) and every default filled in.

Every input is bounded, before anything is planned or played: the document (its size,
and the values YAML aliases expand to: a 1 kB "billion laughs" is one line at once),
each number (the ``MAX_*`` constants below fit the stored schema: ``deal`` int32,
``turns`` int16, seeds int64) and each name. :func:`check_bounds` applies the same
bounds to command-line values (``--deals``, ``--seed``, ``--max-turns``, ...). A value
shown in a message goes through :func:`harness.plugins.shown`, bounded whatever it is.

Every independent mistake of a config is reported in one go (:class:`ConfigProblems`,
one line each), so a config with five mistakes takes one run to see them all. A few
mistakes make later checks meaningless, and those checks are then skipped: a document
that is not a mapping (nothing else is checked); a bad ``players:`` (``rules:``,
``seating:`` and the entrant count depend on it); a bad ``format:`` (the challenger and
the entrant count); a bad entrant (the entrant count and the unique names); and any
mistake at all skips the size of the plan (it needs every number).

:func:`resolve_entrant` resolves one strategy reference as a config's entrant is (for
other commands: ``harness sprt``), with the mistake named after the argument.

``deals:`` (``--deals``) counts deals per table; ``games:`` (``--games``), its old name,
still works and says once that it is deprecated (:func:`deprecated`).

The room's modules: :mod:`.model` (the keys, choices, defaults and the resolved
:class:`TourneyConfig`), :mod:`.bounds` (every number's bounds), :mod:`.yaml_safe` (the
hardened YAML loader with line numbers), :mod:`.checker` (every key checked, every mistake
named), :mod:`.python_entrants` (strategy objects as entrants), :mod:`.adaptive`
(``schedule: adaptive``, its ``target:`` and ``budget:``); loading is here.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Any

import yaml

from harness.errors import ConfigError, safe_text
from harness.seats.settings import (  # the seat settings' bounds and choices
    LUCK_MODES,
    MAX_SECONDS,
    SECONDS_KEYS,
)
from harness.tourney.config.bounds import (
    BOUNDS,
    MAX_CHUNK,
    MAX_CHUNKS,
    MAX_CONFIG_BYTES,
    MAX_ENTRANTS,
    MAX_GAMES,
    MAX_NAME_CHARS,
    MAX_PLANNED_GAMES,
    MAX_RULE_CHARS,
    MAX_TURNS,
    MAX_WORKERS,
    MAX_YAML_DEPTH,
    MAX_YAML_VALUES,
    SEED_MAX,
    SEED_MIN,
    ConfigProblems,
    check_bounds,
    plan_problem,
    plan_size,
    seating_orders,
    table_count,
)
from harness.tourney.config.checker import (
    Checker,
    name_problem,
    resolve_entrant,
)
from harness.tourney.config.model import (
    ALL_BUILTINS,
    CHOICES,
    CHUNK_CAP,
    CHUNK_GAMES,
    DEFAULTS,
    DICE_MODES,
    ENGINES,
    ENTRANT_KEYS,
    FORMATS,
    ISOLATIONS,
    KEYS,
    NAME_PATTERN,
    RACE,
    RENAMED_KEYS,
    SWEEP,
    Entrant,
    TourneyConfig,
    group_size,
)
from harness.tourney.config.python_entrants import (
    python_entrant,
)
from harness.tourney.config.yaml_safe import (
    LineLoader,
    YamlProblem,
    expansion_problem,
    value_children,
)


# -- loading ----------------------------------------------------------------------------
def _nearby(path: Path) -> str:
    """``; did you mean 'configs/round_robin.yaml'?`` for a config file of a close name in
    the same folder (a typo); else, for a missing file named like a shipped config (the
    repository's old ``configs/round_robin.yaml``), the shipped config's name; else nothing."""
    try:
        near = [p.name for p in path.parent.iterdir() if p.suffix in (".yaml", ".yml")]
    except OSError:
        near = []
    close = difflib.get_close_matches(path.name, near, n=1)
    if close:
        return f"; did you mean {str(path.parent / close[0])!r}?"
    from harness.configs import SUFFIXES, shipped_configs

    if path.suffix in SUFFIXES and path.stem in shipped_configs():
        return f"; the shipped config of that name runs by its name: harness tourney {path.stem}"
    return ""


def load_config(source: str | os.PathLike[str] | dict[str, Any]) -> TourneyConfig:
    """Read and check a config file (or a mapping); ConfigError (one line) if anything is off."""
    if isinstance(source, dict):
        problem = expansion_problem(source, value_children)
        if problem:
            raise ConfigError(f"config: {problem[1]}")
        return Checker("config", base=Path.cwd()).check(source, default_name="tourney")
    path = Path(source)
    try:
        with path.open("rb") as fh:  # at most the bound (and one byte to tell it is more)
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file{_nearby(path)}") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:  # before decoding: the cut may split a character
        raise ConfigError(
            f"{path}: larger than {MAX_CONFIG_BYTES:,} bytes; a config is a few lines of YAML"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read: not UTF-8 text (byte {exc.start:,})") from None
    try:
        data = yaml.load(text, Loader=LineLoader)  # a SafeLoader subclass: no arbitrary objects
    except YamlProblem as exc:
        raise ConfigError(f"{path}:{exc.line}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{where}: not valid YAML: {safe_text(problem, 200)}") from None
    except RecursionError:  # the composer recurses per level of nesting
        raise ConfigError(f"{path}: values nested more than {MAX_YAML_DEPTH} deep") from None
    if data is None:
        raise ConfigError(f"{path}: the config is empty; it needs at least entrants")
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", path.stem).strip("-") or "tourney"
    return Checker(str(path), base=path.resolve().parent).check(data, default_name=stem)


__all__ = [
    "ALL_BUILTINS",
    "BOUNDS",
    "CHOICES",
    "CHUNK_CAP",
    "CHUNK_GAMES",
    "Checker",
    "ConfigProblems",
    "DEFAULTS",
    "DICE_MODES",
    "ENGINES",
    "ENTRANT_KEYS",
    "Entrant",
    "FORMATS",
    "ISOLATIONS",
    "KEYS",
    "LUCK_MODES",
    "MAX_CHUNK",
    "MAX_CHUNKS",
    "MAX_CONFIG_BYTES",
    "MAX_ENTRANTS",
    "MAX_GAMES",
    "MAX_NAME_CHARS",
    "MAX_PLANNED_GAMES",
    "MAX_RULE_CHARS",
    "MAX_SECONDS",
    "MAX_TURNS",
    "MAX_WORKERS",
    "MAX_YAML_DEPTH",
    "MAX_YAML_VALUES",
    "NAME_PATTERN",
    "RACE",
    "RENAMED_KEYS",
    "SECONDS_KEYS",
    "SEED_MAX",
    "SEED_MIN",
    "SWEEP",
    "TourneyConfig",
    "check_bounds",
    "load_config",
    "name_problem",
    "group_size",
    "plan_problem",
    "plan_size",
    "table_count",
    "python_entrant",
    "resolve_entrant",
    "seating_orders",
]
