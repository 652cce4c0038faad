"""The optional native engine (issue 12): the only thing setup.py adds to pyproject.toml.

The package's metadata lives in pyproject.toml; this file only declares the C extension
``harness._native_core`` (harness/native/c/core.c). It is optional in every sense:

* ``optional=True``, and any failure to build it (no compiler, no Python headers, a
  compile error) is a warning, never a failed install: without it harness plays on the
  pure-Python engine, which stays the reference (``harness.native.available()`` says
  which one a process has);
* ``HARNESS_NO_NATIVE=1`` does not even try (the CI step that tests the fallback);
* ``HARNESS_REQUIRE_NATIVE=1`` makes a failed build an error (a CI step that must
  test the native engine should not silently test the fallback instead).

Nothing but setuptools and a C compiler is needed: no Cython, no Rust.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


class OptionalBuildExt(build_ext):
    """build_ext that turns any failure into a warning (unless HARNESS_REQUIRE_NATIVE)."""

    def build_extensions(self) -> None:
        # Bit-identical floats (the tactician's and optimal's arithmetic): no fused
        # multiply-add contraction, so every operation rounds as Python's does.
        if self.compiler.compiler_type == "msvc":
            extra = ["/fp:strict"]
        else:
            extra = ["-ffp-contract=off", "-fno-fast-math"]
        for ext in self.extensions:
            ext.extra_compile_args = [*ext.extra_compile_args, *extra]
        super().build_extensions()

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any failure: fall back to pure Python
            self._skipped(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            self._skipped(exc)

    def _skipped(self, exc: Exception) -> None:
        if _flag("HARNESS_REQUIRE_NATIVE"):
            raise exc
        print(
            f"warning: the native engine was not built ({type(exc).__name__}: {exc}); "
            "harness uses the pure-Python engine",
            file=sys.stderr,
        )


# core.c #includes the other parts of the engine (harness/native/c/*.inc.c: one unit of
# compilation, never compiled on their own): found, not listed, so that a new part is a
# dependency too and a change in any of them rebuilds the extension (a stale build must
# never run; harness.tourney.plan.engine_digest hashes the same files).
HERE = Path(__file__).resolve().parent
PARTS = sorted(p.relative_to(HERE).as_posix() for p in (HERE / "harness/native/c").glob("*.inc.c"))


def _sources_digest() -> str:
    """harness.native.c_sources.sources_digest of the sources built here (loaded by path:
    harness cannot be imported yet), compiled into the extension as SOURCES_DIGEST: an
    extension whose sources have changed since is refused at import, never played."""
    spec = importlib.util.spec_from_file_location("c_sources", HERE / "harness/native/c_sources.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.sources_digest()


extensions = []
if not _flag("HARNESS_NO_NATIVE"):
    extensions.append(
        Extension(
            "harness._native_core",
            sources=["harness/native/c/core.c"],
            depends=PARTS,
            define_macros=[("HARNESS_SOURCES_DIGEST", f'"{_sources_digest()}"')],
            optional=not _flag("HARNESS_REQUIRE_NATIVE"),
        )
    )

setup(ext_modules=extensions, cmdclass={"build_ext": OptionalBuildExt})
