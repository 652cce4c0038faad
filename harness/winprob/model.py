"""A trained win-probability model: an integer network and its file.

Integer arithmetic throughout (weights, biases and activations are int64; each layer
shifts its sums right, a floor division by a power of two), so the Python engine
(numpy's integer products, which round nothing) and the C engine compute the same
logits bit for bit; only the last steps, a softmax of the logits scaled by
``2**-out_shift`` and the chance map (below), are floating point, done in one order
with the C library's ``exp`` on both sides.

The file (little-endian): ``b"HWP1"``, then uint32 players, layers, out_shift; per
layer uint32 rows, columns, shift, then int32 weights (rows x columns, row-major) and
int32 biases (rows). Hidden layers are ReLU; the last has one row per seat (seats from
the one to move, as the features). ``b"HWP2"`` is the same followed by a **chance
map**: uint32 K, then K + 1 float64 knots ``y_0 <= ... <= y_K``, all finite and above
0: each seat's softmax share ``q`` becomes ``g(q)``, the line through the knots at
``q = k / K``, and the seats' ``g`` are divided by their sum (the calibration step's
``knots`` map, harness/training/calibrate.py: a shape a temperature cannot give). A
shipped file's sha256 is checked at load against ``models/SHA256SUMS``; a file that
differs is refused in one line.
"""

from __future__ import annotations

import hashlib
import math
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness.errors import HarnessError

MAGIC = b"HWP1"
MAGIC_MAPPED = b"HWP2"  # HWP1 and a chance map
MAX_KNOTS = 1024  # K at most: the C engine's bound too
MODELS = Path(__file__).parent / "models"
SUMS = MODELS / "SHA256SUMS"


class ModelError(HarnessError):
    """A model file that cannot be used: missing, corrupt or not the shipped one."""


@dataclass(frozen=True)
class Layer:
    weights: np.ndarray  # int64, rows x columns
    biases: np.ndarray  # int64, rows
    shift: int


@dataclass(frozen=True)
class Model:
    """An integer network: ``players`` seats, its layers, the logits' scale."""

    players: int
    layers: tuple[Layer, ...]
    out_shift: int
    sha256: str = ""
    knots: tuple[float, ...] = ()  # the chance map's y_0..y_K (see the module's text); () none

    # -- evaluation ---------------------------------------------------------------------
    def logits(self, rows: np.ndarray) -> np.ndarray:
        """Integer logits (positions x seats) of integer feature rows (positions x inputs)."""
        h = np.asarray(rows, dtype=np.int64)
        last = len(self.layers) - 1
        for i, layer in enumerate(self.layers):
            h = (h @ layer.weights.T + layer.biases) >> layer.shift
            if i < last:
                np.maximum(h, 0, out=h)
        return h

    def chances_of(self, logits: np.ndarray) -> list[tuple[float, ...]]:
        """Each row's softmax, seats from the one to move (see the module's text)."""
        scale = 2.0**-self.out_shift
        out = []
        for row in logits.tolist():
            top = max(row)
            e = [math.exp((v - top) * scale) for v in row]
            total = 0.0
            for x in e:
                total += x
            shares = [x / total for x in e]
            if self.knots:
                shares = self.mapped(shares)
            out.append(tuple(shares))
        return out

    def mapped(self, shares: list[float]) -> list[float]:
        """The chance map of one row's shares: each through the knots' line, then divided
        by their sum (in seat order; the C engine's wp_softmax does the same operations)."""
        y = self.knots
        k_max = len(y) - 1
        g = []
        for q in shares:
            t = q * k_max
            k = min(int(t), k_max - 1)
            g.append(y[k] + (t - k) * (y[k + 1] - y[k]))
        total = 0.0
        for v in g:
            total += v
        return [v / total for v in g]

    # -- the file -----------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        magic = MAGIC_MAPPED if self.knots else MAGIC
        parts = [magic, struct.pack("<3I", self.players, len(self.layers), self.out_shift)]
        for layer in self.layers:
            rows, cols = layer.weights.shape
            parts.append(struct.pack("<3I", rows, cols, layer.shift))
            parts.append(np.asarray(layer.weights, dtype="<i4").tobytes())
            parts.append(np.asarray(layer.biases, dtype="<i4").tobytes())
        if self.knots:
            parts.append(struct.pack("<I", len(self.knots) - 1))
            parts.append(np.asarray(self.knots, dtype="<f8").tobytes())
        return b"".join(parts)

    @classmethod
    def from_bytes(cls, data: bytes, where: str = "model") -> Model:
        try:
            if data[:4] not in (MAGIC, MAGIC_MAPPED):
                raise ValueError("not a model file (its first bytes are not HWP1 or HWP2)")
            players, count, out_shift = struct.unpack_from("<3I", data, 4)
            at = 16
            layers = []
            for _ in range(count):
                rows, cols, shift = struct.unpack_from("<3I", data, at)
                at += 12
                w = np.frombuffer(data, "<i4", rows * cols, at).astype(np.int64)
                at += 4 * rows * cols
                b = np.frombuffer(data, "<i4", rows, at).astype(np.int64)
                at += 4 * rows
                layers.append(Layer(w.reshape(rows, cols), b, shift))
            knots: tuple[float, ...] = ()
            if data[:4] == MAGIC_MAPPED:
                knots = _knots(data, at)
                at += 4 + 8 * len(knots)
            if at != len(data):
                raise ValueError(f"{len(data) - at} bytes after the last layer")
        except (ValueError, struct.error) as exc:
            raise ModelError(f"{where}: unreadable model file: {exc}") from None
        digest = hashlib.sha256(data).hexdigest()
        return cls(players, tuple(layers), out_shift, digest, knots)


def _knots(data: bytes, at: int) -> tuple[float, ...]:
    """An HWP2 file's chance map at ``at``: K, then K + 1 knots, checked (ValueError)."""
    (count,) = struct.unpack_from("<I", data, at)
    if not 1 <= count <= MAX_KNOTS:
        raise ValueError(f"a chance map of {count} intervals (1 to {MAX_KNOTS})")
    y = struct.unpack_from(f"<{count + 1}d", data, at + 4)
    if not all(math.isfinite(v) and v > 0 for v in y):
        raise ValueError("a chance map's knots must be finite and above 0")
    if any(y[i + 1] < y[i] for i in range(len(y) - 1)):
        raise ValueError("a chance map's knots must not fall (the map is monotone)")
    return tuple(y)


def shipped_sums() -> dict[str, str]:
    """The shipped models' names and sha256 (models/SHA256SUMS)."""
    if not SUMS.exists():
        return {}
    out = {}
    for line in SUMS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            digest, name = line.split()
            out[name] = digest
    return out


def load(path: Path | str, sha256: str | None = None) -> Model:
    """The model in ``path``, refused in one line when its sha256 is not ``sha256``."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read the model: {exc.strerror}") from None
    digest = hashlib.sha256(data).hexdigest()
    if sha256 is not None and digest != sha256:
        raise ModelError(
            f"{path}: sha256 {digest[:12]}... is not the shipped model's {sha256[:12]}...:"
            " the file was changed or damaged; reinstall harness or retrain it"
        )
    return Model.from_bytes(data, str(path))
