"""No module over 800 lines, no function over 100 (issue 31): the package's modules and C
parts read as a next engineer can hold them. Counted as the files are, comments included."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "harness"
MAX_MODULE = 800
MAX_FUNCTION = 100
# A C function: a definition line at column 0 ending in "{", to its closing "}" at column 0.
C_DEFINITION = re.compile(r"^[A-Za-z_].*\)\s*\{\s*$")

PY_FILES = sorted(PACKAGE.rglob("*.py"))
C_FILES = sorted((PACKAGE / "native" / "c").glob("*.c"))


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


@pytest.mark.parametrize("path", PY_FILES + C_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_is_over_800_lines(path):
    assert _lines(path) <= MAX_MODULE, f"{path.relative_to(PACKAGE)}: {_lines(path)} lines"


def python_functions(path: Path) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text())
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def c_functions(path: Path) -> list[tuple[str, int]]:
    found, start = [], None
    for number, line in enumerate(path.read_text().splitlines()):
        if start is None and C_DEFINITION.match(line):
            start = (number, line.split("(")[0].split()[-1].lstrip("*"))
        elif start is not None and line.startswith("}"):
            found.append((start[1], number - start[0] + 1))
            start = None
    return found


def test_no_function_is_over_100_lines():
    long = [
        f"{path.relative_to(PACKAGE)}:{name} ({length} lines)"
        for path in PY_FILES
        for name, length in python_functions(path)
        if length > MAX_FUNCTION
    ] + [
        f"{path.relative_to(PACKAGE)}:{name} ({length} lines)"
        for path in C_FILES
        for name, length in c_functions(path)
        if length > MAX_FUNCTION
    ]
    assert not long, "functions over 100 lines: " + ", ".join(long)


def test_the_counters_see_a_long_function(tmp_path):
    """The checks can fail: a made-up module with a 101-line function in each language."""
    py = tmp_path / "long.py"
    py.write_text("def f():\n" + "    x = 1\n" * 100)
    assert python_functions(py) == [("f", 101)]
    c = tmp_path / "long.c"
    c.write_text("static int f(void) {\n" + "    x++;\n" * 99 + "}\n")
    assert c_functions(c) == [("f", 101)]
