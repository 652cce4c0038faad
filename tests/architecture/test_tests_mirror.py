"""tests/ mirrors harness/'s rooms (issue 31): every folder of test files is named as a
room of the package, so a room's tests are found where its code is (docs/testing.md)."""

from __future__ import annotations

from pathlib import Path

import harness

TESTS = Path(__file__).resolve().parents[1]
ROOMS = {p.name for p in Path(harness.__file__).parent.iterdir() if (p / "__init__.py").is_file()}
# Not rooms of the package: the whole package's arrows, and shared data.
BESIDE = {"architecture", "fixtures", "playthroughs"}


def test_every_test_folder_is_a_room():
    folders = {p.parent.relative_to(TESTS).parts[0] for p in TESTS.glob("*/**/test_*.py")}
    assert folders - ROOMS - BESIDE == set()
    assert "game" in folders and "commands" in folders  # the scan sees folders
    assert not (TESTS / "engine").exists() and not (TESTS / "records").exists()


def test_the_shared_folders_hold_no_tests_of_a_room():
    for folder in BESIDE - {"architecture"}:
        assert not list((TESTS / folder).rglob("test_*.py")), folder
