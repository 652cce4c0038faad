"""What strategies there are to use: ``harness strategies`` (every strategy with its
parameters, its description and its bounds).

A command module like the others: it imports :mod:`harness.commands.common` and lower modules,
never :mod:`harness.commands.group`, which registers it. Plugins are loaded when the command runs.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from harness.commands.common import user_errors


@click.command("strategies")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@user_errors
def list_strategies(as_json: bool) -> None:
    """List every available strategy with its description and parameters."""
    import contextlib

    from harness.errors import safe_text, type_name
    from harness.interrupts import reraise_if_user
    from harness.plugins import broken_builtins, builtin_strategies, entry_point_strategies, shown

    rows: list[dict[str, Any]] = []
    for name, cls in builtin_strategies().items():
        rows.append(
            {
                "name": name,
                "origin": "built-in",
                "description": cls.description(),
                "params": cls.parameters(),
                "bounds": _bounds(cls),
            }
        )
    for name, ep in sorted(entry_point_strategies().items()):
        try:  # plugin code: what it prints must not reach stdout (--json)
            with contextlib.redirect_stdout(sys.stderr):
                cls = ep.load()
                desc, params = safe_text(cls.description(), 300), dict(cls.parameters())
                bounds = _bounds(cls)
        except BaseException as exc:  # a broken plugin must not hide the others
            reraise_if_user(exc)
            desc, params = f"(cannot load: {type_name(exc)}: {safe_text(exc, 300)})", {}
            bounds = {}
        rows.append(
            {
                "name": safe_text(name, 100),
                "origin": f"plugin {safe_text(ep.value, 300)}",
                "description": desc,
                "params": {safe_text(k, 100): v for k, v in params.items()},
                "bounds": bounds,
            }
        )
    if as_json:
        click.echo(json.dumps(rows, default=lambda v: None if v is ... else shown(v)))
        return
    width = max(len(r["name"]) for r in rows)
    for row in rows:
        params = ", ".join(
            (k if v is ... else f"{k}={shown(v, 60)}") + _range(row["bounds"].get(k))
            for k, v in row["params"].items()
        )
        click.echo(f"{row['name']:<{width}}  {row['description']}")
        if params:
            click.echo(f"{'':<{width}}    parameters: {params}")
    click.echo("\nAlso: path/to/file.py:ClassName or package.module:ClassName.")
    for module, why in broken_builtins().items():
        click.echo(f"Not available: {module} could not be loaded: {why}", err=True)


def _bounds(cls: Any) -> dict[str, str]:
    """A strategy's declared parameter bounds, in words (``Strategy.bounds``)."""
    from harness.errors import safe_text

    declared = getattr(cls, "bounds", None) or {}
    return {
        safe_text(k, 100): safe_text(b.describe(), 200)
        for k, b in dict(declared).items()
        if hasattr(b, "describe")
    }


def _range(words: str | None) -> str:
    """ " (21 to 40)" from "a number from 21 to 40": the bounds beside a parameter."""
    if not words:
        return ""
    for lead in ("a whole number ", "a number "):
        if words.startswith(lead):
            words = words[len(lead) :]
            break
    return f" ({words.removeprefix('from ')})"
