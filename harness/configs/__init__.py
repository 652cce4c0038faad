"""The configs that ship with harness, found by name: ``harness tourney round_robin``.

The configs are ``harness/configs/*.yaml``, package data beside this module
(pyproject.toml), so a regular install runs the quick start from any folder. A config
argument that names an existing file is that file, always; only otherwise is a bare name
(``round_robin``, or ``round_robin.yaml``) looked up among the shipped ones. Anything
else is left to the config loader, which says the file is not there.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from harness.errors import ConfigError, safe_text

SUFFIXES = (".yaml", ".yml")
_HERE = Path(__file__).resolve().parent


def configs_dir() -> Path | None:
    """Where the shipped configs are: this package's folder (``harness/configs/``, in a
    checkout and in an install alike), or None when it holds none."""
    return _HERE if any(_HERE.glob("*.yaml")) else None


def shipped_configs() -> dict[str, Path]:
    """The shipped configs by name (file name without ``.yaml``), sorted."""
    where = configs_dir()
    if where is None:
        return {}
    found = [p for p in where.iterdir() if p.suffix in SUFFIXES and p.is_file()]
    return {p.stem: p for p in sorted(found)}


def config_path(argument: str) -> str:
    """The config file ``argument`` stands for: itself when it is a file (or looks like a
    path), else the shipped config of that name. ConfigError (one line, with the shipped
    names) for a bare name that is neither."""
    path = Path(argument)
    if _is_file(path) or _looks_like_a_path(argument):
        return argument
    name = path.stem if path.suffix in SUFFIXES else argument
    shipped = shipped_configs()
    if name in shipped:
        return str(shipped[name])
    names = ", ".join(shipped) or "none (this install has no configs folder)"
    close = difflib.get_close_matches(name, list(shipped), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ConfigError(
        f"{safe_text(argument, 100)}: no such config file, nor a shipped config; {hint}"
        f"shipped: {names}"
    )


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        return False


def _looks_like_a_path(argument: str) -> bool:
    # A folder part or a file suffix other than YAML's is a path the user typed: the
    # loader's "no such config file" says the rest.
    return "/" in argument or "\\" in argument or Path(argument).suffix not in ("", *SUFFIXES)
