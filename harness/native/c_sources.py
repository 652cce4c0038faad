"""The digest of the C engine's sources (harness/native/c/*.c): setup.py compiles it into the
extension (``SOURCES_DIGEST``), and :mod:`harness.native.extension` compares it with the
sources beside it, so that an extension built from other sources (a part edited since the
last build, and the build not run again) never plays: its games would be keyed by the
engine digest of the new sources (harness.tourney.plan.engine_digest) but played by the
old code.

Imports nothing of harness: setup.py loads this file by its path, before harness can be
imported.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

C_DIR = Path(__file__).resolve().parent / "c"


def sources_digest(folder: Path = C_DIR) -> str | None:
    """SHA-256 of every *.c file of ``folder`` (names and bytes, by name); None when the
    folder holds none (an installation without its C sources)."""
    files = sorted(folder.glob("*.c"))
    if not files:
        return None
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()
