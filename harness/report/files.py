"""Writing report files atomically: a reader never sees a half-written file.

Every file goes to a temporary name in the same folder, then replaces the target in one
rename, so an interrupted ``harness report`` leaves the previous file or the new one. A
file that cannot be written (a full disk, a read-only folder) is one line naming it
(:class:`~harness.runfolder.layout.StorageError`, exit 1), whoever writes it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from harness.runfolder.layout import describe_os_error


def write_atomic(path: Path, fill: Callable[[BinaryIO], None]) -> Path:
    """Write ``path`` by calling ``fill`` on a temporary file, then rename it into place."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise describe_os_error(exc, path, "write") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fill(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise describe_os_error(exc, path, "write") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text_atomic(path: Path, text: str) -> Path:
    """Write UTF-8 text atomically."""
    return write_atomic(path, lambda fh: fh.write(text.encode("utf-8")))
