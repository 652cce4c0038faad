"""The C tier's files: core.c and the parts it #includes (harness/native/c/*.inc.c).

* Small parts: no file over 800 lines, as no Python module is (core.c was 2,353).
* Every part is compiled: core.c #includes each *.inc.c of the folder (directly or
  through another part), and includes nothing that is not there.
* A stale build never runs: setup.py lists every part as a dependency of the extension
  (a changed part rebuilds it) and compiles the digest of the C sources into it; an
  extension whose sources have changed since is refused at import (as if not built, the
  reason said), never played; and the engine digest (chunk and run keys) hashes every
  part and every module of harness/native, so a change in any of them is new code.
* What the C comments name exists: every path (harness/..., tests/..., benchmarks/...)
  and every dotted harness name they cite, so that a reader is sent somewhere real.
"""

from __future__ import annotations

import importlib
import re
import runpy
import subprocess
import sys
from pathlib import Path

import pytest
import setuptools

from harness import native
from harness.native.c_sources import sources_digest
from harness.native.extension import stale_build
from harness.tourney import plan

pytestmark = pytest.mark.interpreter  # the extension's build

ROOT = Path(__file__).resolve().parents[2]
C_DIR = ROOT / "harness" / "native" / "c"
INCLUDE = re.compile(r'^#include "([^"]+)"', re.MULTILINE)


def test_no_c_file_is_over_800_lines():
    sizes = {p.name: len(p.read_text().splitlines()) for p in sorted(C_DIR.glob("*.c"))}
    assert {name: n for name, n in sizes.items() if n > 800} == {}


def test_core_includes_every_part():
    # (turn_rows.inc.c and turn_lanes.inc.c are templates, #included once per number type)
    seen: list[str] = []

    def walk(name: str) -> None:
        seen.append(name)
        for part in INCLUDE.findall((C_DIR / name).read_text()):
            assert (C_DIR / part).is_file(), f"{name} #includes {part}: no such part"
            walk(part)

    walk("core.c")
    assert sorted(set(seen)) == sorted(p.name for p in C_DIR.glob("*.c")), "a part not compiled"
    assert seen.count("core.c") == 1


def _setup_extension(monkeypatch) -> setuptools.Extension:
    """What setup.py declares for the extension, read by running it with setup() caught."""
    caught = {}
    monkeypatch.setattr(setuptools, "setup", lambda **kw: caught.update(kw))
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("HARNESS_NO_NATIVE", raising=False)
    runpy.run_path(str(ROOT / "setup.py"), run_name="__main__")
    (extension,) = caught["ext_modules"]
    assert extension.sources == ["harness/native/c/core.c"]
    return extension


def test_setup_rebuilds_when_any_part_changes(monkeypatch):
    if not (ROOT / "setup.py").is_file():
        pytest.skip("no source tree")
    parts = sorted(f"harness/native/c/{p.name}" for p in C_DIR.glob("*.inc.c"))
    extension = _setup_extension(monkeypatch)
    assert sorted(extension.depends) == parts
    assert extension.define_macros == [("HARNESS_SOURCES_DIGEST", f'"{sources_digest()}"')]


@pytest.mark.skipif(not native.available(), reason="native engine not built")
def test_the_extension_carries_the_digest_of_its_sources():
    assert native._core.SOURCES_DIGEST == sources_digest() != ""


class _Built:
    SOURCES_DIGEST = "0" * 64


def test_an_extension_built_from_other_sources_is_refused():
    assert stale_build(_Built, "0" * 64) is None
    assert stale_build(_Built, None) is None  # no sources here to compare: an installation
    assert "rebuild" in stale_build(_Built, "1" * 64)
    assert "rebuild" in stale_build(object, "1" * 64)  # built without a digest (by hand)
    # what a process sees when a C part changed after the build: nothing plays natively,
    # and every door says why
    code = (
        "import sys, types\n"
        "edited = types.ModuleType('harness.native.c_sources')  # the sources, edited since\n"
        "edited.sources_digest = lambda folder=None: 'f' * 64\n"
        "sys.modules['harness.native.c_sources'] = edited\n"
        "from harness import native\n"
        "assert not native.available() and 'rebuild' in native.refusal()\n"
        "try:\n"
        "    native.play_games('official', ['greedy', 'greedy'], [1])\n"
        "except native.NotNative as exc:\n"
        "    print('refused:', exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused: the native engine was built from other C sources")


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in C_DIR.glob("*.c")) + sorted(p.name for p in C_DIR.parent.glob("*.py")),
)
def test_the_engine_digest_covers_each_file(monkeypatch, name):
    before = plan.engine_digest()
    real = Path.read_bytes

    def edited(self):
        data = real(self)
        return data + b"\n/* edited */\n" if self.name == name else data

    plan.engine_digest.cache_clear()
    monkeypatch.setattr(Path, "read_bytes", edited)
    try:
        assert plan.engine_digest() != before, f"{name} is not in the engine digest"
    finally:
        monkeypatch.undo()
        plan.engine_digest.cache_clear()


PATH = re.compile(r"\b((?:harness|tests|benchmarks)/[\w/.]+\.(?:py|c|md))\b")
DOTTED = re.compile(r"\b(harness(?:\.\w+)+)")
NOT_MODULES = {"harness._native_core", "harness.vecenv"}  # the extension, a capsule's name


def _resolves(dotted: str) -> bool:
    """Whether a dotted name is a module, or an attribute reached from one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(obj, attribute):
                return False
            obj = getattr(obj, attribute)
        return True
    return False


def test_the_c_comments_name_what_exists():
    missing = []
    for part in sorted(C_DIR.glob("*.c")):
        text = part.read_text()
        for path in sorted(set(PATH.findall(text))):
            if not (ROOT / path).exists():
                missing.append(f"{part.name}: {path}")
        for dotted in sorted(set(DOTTED.findall(text)) - NOT_MODULES):
            if not _resolves(dotted.rstrip(".")):
                missing.append(f"{part.name}: {dotted}")
    assert missing == []
