"""``harness play`` holds a plugin as a tourney does (issue 30, item A).

Unless told ``--isolation none``, a plugin seat plays in a process of its own: one that
calls ``os._exit`` or is killed (as by a segfault) is that seat's crash forfeit, told
as any forfeit is; what it writes reaches stderr escaped and labelled, never stdout
(``--json`` stays JSON).
"""

from __future__ import annotations

import json

import pytest
from helpers import CRASH, HOSTILE

pytestmark = [pytest.mark.interpreter, pytest.mark.usefixtures("deadline")]


@pytest.mark.parametrize(
    "bot,how",
    [("ExitsInPick", "exit code 3"), ("KillsItself", "killed by SIGKILL")],
)
def test_a_plugin_that_ends_its_process_forfeits_the_game(harness_process, bot, how):
    out = harness_process("play", f"{CRASH}:{bot}", "greedy", "--seed", "1", "-q")
    assert out.returncode == 0, out.stderr
    assert f"its process died ({how}) in pick()" in out.stdout
    assert "Winner: seat 1 (greedy)" in out.stdout
    data = json.loads(
        harness_process("play", f"{CRASH}:{bot}", "greedy", "--seed", "1", "--json").stdout
    )
    assert data["status"] == "forfeit" and data["error_kind"] == "crash"


def test_a_plugins_output_is_escaped_on_stderr_and_json_stays_json(harness_process):
    out = harness_process("play", f"{HOSTILE}/output_escapes.py:Escapes", "greedy", "--seed", "1",
                          "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["status"] == "over"
    assert "\x1b" not in out.stdout + out.stderr and "\x07" not in out.stderr
    assert (
        "plugin output: [seat 0 escapes] \\x1b[2J\\x1b]0;pwned\\x07hello from seat 0" in out.stderr
    )
    assert "output truncated" in out.stderr  # 3,000 characters a pick: capped
    assert len(out.stderr) < 80_000
