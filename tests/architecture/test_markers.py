"""Every ``pytestmark`` takes effect (issue 30, item 6).

A ``pytestmark = pytest.mark.engine`` line that slipped into a module's docstring is
text, not a marker: ``-m engine`` then collects none of the module's tests, and CI's
Python-engine pass never runs them (tests/architecture/test_engine_surface.py did so, 31
tests). pytest reads a module's marks from a module-level assignment only, so this check
reads every Python file under tests/ and names each ``pytestmark`` that is anything
else: a line of a string (a docstring) that assigns it, or the name used anywhere but as
the target of a statement at module level (inside a function, a class or an ``if``,
read rather than assigned).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
WRITTEN = re.compile(r"^[ \t]*pytestmark\s*[:=]", re.MULTILINE)


def _module_level_targets(tree: ast.Module) -> set[int]:
    """Lines of the ``pytestmark`` names assigned by a statement of the module's body."""
    lines = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name) and target.id == "pytestmark":
                lines.add(target.lineno)
    return lines


def stray_marks(source: str) -> list[str]:
    """Each ``pytestmark`` of a module that pytest does not read, as "line N: why"."""
    assigned = _module_level_targets(ast.parse(source))
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        line = token.start[0]
        if token.type == tokenize.STRING:
            for match in WRITTEN.finditer(token.string):
                at = line + token.string.count("\n", 0, match.start())
                found.append(f"line {at}: written inside a string (a docstring?), not code")
        elif token.type == tokenize.NAME and token.string == "pytestmark" and line not in assigned:
            found.append(f"line {line}: not an assignment at module level")
    return found


def _test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if ".venv" not in p.parts)


def test_every_pytestmark_is_a_module_level_assignment():
    problems = [
        f"{path.relative_to(TESTS.parent)}: {problem}"
        for path in _test_files()
        for problem in stray_marks(path.read_text(encoding="utf-8"))
    ]
    assert problems == []


def test_the_marked_modules_are_many():
    # The walk above reads the files that carry the markers (not an empty folder).
    marked = [p for p in _test_files() if "pytestmark" in p.read_text(encoding="utf-8")]
    assert len(marked) > 40


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ('"""Doc.\n\npytestmark = pytest.mark.engine\nmore.\n"""\n', "line 3: written inside"),
        ('"""Doc."""\nimport pytest\n\n\ndef f():\n    pytestmark = 1\n', "line 6: not an"),
        ("import pytest\n\nif True:\n    pytestmark = pytest.mark.engine\n", "line 4: not an"),
        ("class T:\n    pytestmark = []\n", "line 2: not an"),
        ("import pytest\nx = [pytestmark]\n", "line 2: not an"),
    ],
)
def test_a_mark_pytest_would_not_read_is_named(source, why):
    problems = stray_marks(source)
    assert len(problems) == 1 and problems[0].startswith(why)


@pytest.mark.parametrize(
    "source",
    [
        "import pytest\n\npytestmark = pytest.mark.engine\n",
        "import pytest\n\npytestmark = [pytest.mark.engine, pytest.mark.interpreter]\n",
        "import pytest\n\npytestmark: object = pytest.mark.engine\n",
        '"""Mark a module as ``pytestmark = pytest.mark.usefixtures(...)`` does."""\n',
    ],
)
def test_a_module_level_mark_passes(source):
    assert stray_marks(source) == []


PASS_MARKS = ("engine", "interpreter")


def _marks_of(node: ast.AST) -> set[str]:
    """The ``pytest.mark.NAME`` names an expression (a decorator, a pytestmark) holds."""
    return {
        sub.attr
        for sub in ast.walk(node)
        if isinstance(sub, ast.Attribute)
        and isinstance(sub.value, ast.Attribute)
        and sub.value.attr == "mark"
    }


def marks_by_pass(source: str) -> dict[str, tuple[int, int]]:
    """Per marker (the two passes' and ``once``): (tests it selects, those also ``once``)."""
    tree = ast.parse(source)
    module = set()
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in targets):
                module |= _marks_of(node.value)
    counts = {mark: [0, 0] for mark in (*PASS_MARKS, "once")}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test_"
        ):
            marks = module.union(*(_marks_of(d) for d in node.decorator_list))
            for mark in counts:
                if mark in marks:
                    counts[mark][0] += 1
                    counts[mark][1] += "once" in marks
    return {mark: (n, once) for mark, (n, once) in counts.items()}


def test_once_leaves_every_marked_file_a_test_in_its_pass():
    # `once` keeps a slow test out of CI's passes 2 and 3; a file whose every selected test
    # is `once` would silently leave its pass, and a `once` outside any pass means nothing.
    problems = []
    for path in _test_files():
        source = path.read_text(encoding="utf-8")
        counts = marks_by_pass(source)
        name = path.relative_to(TESTS.parent)
        for mark in PASS_MARKS:
            selected, once = counts[mark]
            if selected and selected == once:
                problems.append(f"{name}: every `{mark}` test is `once`")
        if counts["once"][0] and not any(counts[mark][0] for mark in PASS_MARKS):
            problems.append(f"{name}: `once` in a file no pass selects")
    assert problems == []


def test_once_counts_a_module_mark_and_decorators():
    source = (
        "import pytest\npytestmark = pytest.mark.engine\n\n"
        "@pytest.mark.once\ndef test_a():\n    pass\n\n"
        "@pytest.mark.interpreter\n@pytest.mark.once\ndef test_b():\n    pass\n"
    )
    assert marks_by_pass(source) == {"engine": (2, 2), "interpreter": (1, 1), "once": (2, 2)}
