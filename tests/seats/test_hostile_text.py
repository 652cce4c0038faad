"""Hostile nesting and text (issue 24, item 5).

* Deeply nested JSON in run.json, report.json or the manifest gave 43-47-line
  RecursionError tracebacks from ``report``, ``report --repair``, ``compare`` and
  ``load_run``: now one line, exit 2 (or, for a cache, the numbers counted afresh).
* report.md copied ``<script>``, ``<img onerror>`` and ``</td><td>`` from display names
  and plugin exception texts into its tables: every such text is escaped for Markdown.
* U+202E (and every bidi control and non-printing character) from a plugin's exception
  text reached the terminal and report.md: shown escaped, as ESC already was.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from harness.errors import HarnessError, printable, safe_text
from harness.results import load_run
from harness.tourney import run_tournament

pytestmark = pytest.mark.interpreter

DEEP = "[" * 50_000 + "]" * 50_000
EVIL = "<script>alert(1)</script> <img src=x onerror=alert(2)> a</td><td>b [x](javascript:y)"
BIDI = "\u202e\u2066\u200b\x1b[31m"  # RLO, LRI, a zero-width space, a terminal escape
UNPRINTABLE = "\u202e\u2066\u200b\x1b"


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    plugin = root / "loud.py"
    plugin.write_text(
        "from harness.strategy import Strategy\n"
        "class Loud(Strategy):\n"
        "    name = 'loud'\n"
        "    def pick(self, view):\n"
        f"        raise RuntimeError({EVIL + ' ' + BIDI + 'evil'!r})\n"
        "    def stop(self, view):\n"
        "        return True\n"
    )
    config = {
        "name": "hostile",
        "entrants": [
            {"strategy": "greedy", "name": "<script>alert(3)</script>"},
            {"strategy": "random", "name": "x | y</td><td>*z* _w_ $m$"},
            {"strategy": f"{plugin}:Loud", "name": "<img src=x onerror=alert(4)>"},
        ],
        "deals": 2,
    }
    run = run_tournament(config, out=root / "out", workers=0)
    from harness.report import write_report

    write_report(run.run_dir, plots=False)
    return run.run_dir


def raw(text: str, piece: str) -> bool:
    """Whether ``piece`` occurs in ``text`` other than escaped (after a backslash)."""
    return any(text[m.start() - 1 : m.start()] != "\\" for m in re.finditer(re.escape(piece), text))


def test_report_md_escapes_what_plugins_and_users_wrote(hostile_run):
    md = (hostile_run / "report.md").read_text()
    for piece in ("<script>", "<img", "</td>", "<td>", "[x]", "*z*", "_w_", "$m$"):
        assert not raw(md, piece), piece
    assert "\\<script>alert(3)\\</script>" in md  # shown, as written
    for char in UNPRINTABLE:
        assert char not in md
    assert "\\\\u202e" in md  # the escape itself, escaped for Markdown
    html = (hostile_run / "report.html").read_text()
    assert "<script>alert" not in html and "<img src=x" not in html
    assert all(char not in html for char in UNPRINTABLE) and "\\u202e" in html


def test_a_plugins_bidi_text_reaches_no_terminal(cli, hostile_run, tmp_path):
    loud = next(p for p in (hostile_run.parent.parent.parent).iterdir() if p.suffix == ".py")
    result = cli("play", f"{loud}:Loud", "greedy", "--seed", "1")
    assert result.exit_code == 0
    assert all(char not in result.output for char in UNPRINTABLE)
    assert "\\u202e\\u2066\\u200b\\x1b[31mevil" in result.output
    report = cli("report", str(hostile_run), "--no-plots")
    assert all(char not in report.output for char in UNPRINTABLE)


def test_printable_escapes_every_non_printing_character():
    assert printable("plain text\tand a tab") == "plain text\tand a tab"
    assert printable("\u202eabc\u200d\x00\ud800") == "\\u202eabc\\u200d\\x00\\ud800"
    assert safe_text("ok \u2067done") == "ok \\u2067done"


# -- deep nesting ----------------------------------------------------------------------------
@pytest.fixture
def small_run(tmp_path) -> Path:
    config = {"name": "small", "entrants": ["greedy", "random"], "deals": 2}
    run = run_tournament(config, out=tmp_path / "out", workers=0)
    return run.run_dir


def nest_into(path: Path, what: str = DEEP) -> None:
    text = path.read_text().rstrip().rstrip("}")
    path.write_text(f'{text}, "deep": {what}}}\n')


def one_line(result) -> str:
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output[-3000:]
    assert "Traceback" not in result.output and "RecursionError" not in result.output
    return lines[0]


def test_a_deep_run_json_is_one_line_everywhere(cli, small_run, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(small_run, other)
    nest_into(small_run / "run.json")
    for args in (["report", str(small_run)], ["report", str(small_run), "--repair"],
                 ["compare", str(small_run), str(other)]):  # fmt: skip
        result = cli(*args)
        assert result.exit_code == 2, (args, result.output[-2000:])
        assert "nested more than 64 deep" in one_line(result)
    with pytest.raises(HarnessError, match="nested more than 64 deep") as info:
        load_run(small_run)
    assert "\n" not in str(info.value)


def test_a_deep_report_json_is_never_served_and_never_a_traceback(cli, small_run, tmp_path):
    assert cli("report", str(small_run), "--no-plots").exit_code == 0
    before = json.loads((small_run / "report.json").read_text())["standings"]
    nest_into(small_run / "report.json")
    assert load_run(small_run).standings.to_dict("records") == before  # counted afresh
    other = tmp_path / "other"
    shutil.copytree(small_run, other)
    nest_into(other / "report.json", "[" * 900 + "]" * 900)  # deep, yet readable by json
    result = cli("compare", str(small_run), str(other))
    assert result.exit_code == 0, result.output[-2000:]


def test_a_deep_manifest_line_is_no_traceback(cli, small_run):
    manifest = small_run / "manifest.jsonl"
    manifest.write_text(manifest.read_text() + '{"file": ' + DEEP + "}\n")
    result = cli("report", str(small_run), "--no-plots")  # a line that is none of ours:
    assert result.exit_code == 0, result.output[-2000:]  # where the listing ends, as torn
    assert "Traceback" not in result.output and "RecursionError" not in result.output
