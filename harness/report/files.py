"""Writing report files atomically: a reader never sees a half-written file.

Every file goes to a temporary name in the same folder, then replaces the target in one
rename, so an interrupted ``harness report`` leaves the previous file or the new one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def write_atomic(path: Path, fill: Callable[[BinaryIO], None]) -> Path:
    """Write ``path`` by calling ``fill`` on a temporary file, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fill(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text_atomic(path: Path, text: str) -> Path:
    """Write UTF-8 text atomically."""
    return write_atomic(path, lambda fh: fh.write(text.encode("utf-8")))
