"""Notebooks show their plots (issue 19, item 7).

examples/notebook.ipynb is executed for real, in a fresh Jupyter kernel (nbclient, a
test extra), with no ``%matplotlib inline`` anywhere: each chart cell must come out as an
image, the Run's text is a summary a person reads (not a dict of fields), and
``report=True`` writes the report the command writes. On main a chart printed as
``<Figure size 1100x270 with 2 Axes>``.
"""

from __future__ import annotations

import base64
import os
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.interpreter

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "examples" / "notebook.ipynb"


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    where = tmp_path_factory.mktemp("notebook")
    shutil.copy(NOTEBOOK, where / NOTEBOOK.name)
    nb = nbformat.read(where / NOTEBOOK.name, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert not any("%matplotlib" in s or "matplotlib.use" in s for s in code)  # no backend chosen
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(where)}}
    )
    saved = os.environ.copy()
    os.environ.clear()
    os.environ.update(env)
    try:
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return nb, where


def _cell(nb, text: str):
    return next(c for c in nb.cells if c.cell_type == "code" and c.source.strip() == text)


def _results(cell) -> list[dict]:
    return [o for o in cell.outputs if o.output_type in ("execute_result", "display_data")]


@pytest.mark.parametrize(
    "call", ["run.plot_standings()", "run.plot_head_to_head()", "run.plot_worms()"]
)
def test_every_chart_cell_is_an_image(executed, call):
    nb, _ = executed
    (result,) = [o for o in _results(_cell(nb, call)) if o.output_type == "execute_result"]
    png = base64.b64decode(result.data["image/png"])
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    assert "<Figure size" not in result.data.get("text/plain", "") or "image/png" in result.data


def test_the_run_reads_as_a_summary(executed):
    nb, where = executed
    cell = next(c for c in nb.cells if c.source.rstrip().endswith("\nrun"))
    (result,) = [o for o in _results(cell) if o.output_type == "execute_result"]
    text = result.data["text/plain"]
    assert text.startswith("Run 'notebook': complete, 2,000 of 2,000 games")
    assert "win share" in text and "careful" in text and "threshold(target=28)" in text
    assert "Run(run_dir=" not in text and "engine_used" not in text  # not a field dump
    assert len(text.splitlines()) < 20


def test_report_true_writes_the_commands_report(executed):
    nb, where = executed
    printed = "".join(o.get("text", "") for o in _cell(nb, "print(run.report_file)").outputs)
    report = where / printed.strip()  # relative to the notebook's folder, where it ran
    assert report.name == "report.html" and report.is_file()
    folder = report.parent
    assert (folder / "report.md").is_file() and (folder / "report.json").is_file()
    assert {p.name for p in (folder / "plots").iterdir()} >= {"standings.png", "worms.png"}
