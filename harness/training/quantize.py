"""From the float network to the integer one the engines evaluate (harness.winprob.model).

Fixed point: hidden activations carry :data:`FRACTION` fractional bits; the first
layer takes the integer features as they are (its weights fold in the inputs' scale and
carry ``2 * FRACTION`` bits, its shift drops ``FRACTION``), later layers' weights carry
``FRACTION`` bits and shift them away; the logits keep ``FRACTION`` bits
(``out_shift``). Every weight and bias must fit int32 (the file's type) and every sum
int64 without overflow: :func:`quantize` checks both bounds by interval arithmetic from
the inputs' largest magnitudes and refuses a network that does not fit.
"""

from __future__ import annotations

import numpy as np

from harness.errors import HarnessError
from harness.training.net import Net
from harness.winprob.model import Layer, Model

FRACTION = 12
INT32 = 2**31 - 1
INT64 = 2**63 - 1


class QuantizeError(HarnessError):
    """The float network's weights do not fit the integer format."""


def quantize(net: Net, players: int, input_bound: np.ndarray) -> Model:
    """The integer model of ``net``; ``input_bound``: each feature's largest magnitude."""
    layers = []
    bound = np.asarray(input_bound, dtype=float)  # largest |activation| entering the layer
    for i, (w, b) in enumerate(zip(net.weights, net.biases, strict=True)):
        if i == 0:
            w = w / net.scale  # the inputs' scale, folded in
            in_bits = 0
        else:
            in_bits = FRACTION
        w_bits = 2 * FRACTION - in_bits
        wq = np.rint(w * 2.0**w_bits).astype(np.int64)
        bq = np.rint(b * 2.0 ** (in_bits + w_bits)).astype(np.int64)
        for name, arr in (("weight", wq), ("bias", bq)):
            if arr.size and int(np.abs(arr).max()) > INT32:
                raise QuantizeError(f"layer {i + 1}: a {name} does not fit int32; refit smaller")
        total = np.abs(wq).astype(float) @ bound + np.abs(bq)
        if total.max() >= INT64 / 4:
            raise QuantizeError(f"layer {i + 1}: a sum could overflow int64")
        shift = in_bits + w_bits - FRACTION
        layers.append(Layer(wq, bq, shift))
        bound = total / 2.0**shift + 1.0
    return Model(players, tuple(layers), FRACTION)


def max_error(net: Net, model: Model, rows: np.ndarray) -> float:
    """The largest difference, over ``rows`` and seats, between the two networks' chances."""
    ints = np.array(model.chances_of(model.logits(rows)))
    return float(np.abs(ints - net.chances(rows)).max())


def check_bounds(model: Model, input_bound: np.ndarray) -> None:
    """Refuse an integer model whose weights or biases do not fit int32 or whose sums could
    overflow int64 (interval arithmetic from each input's largest magnitude, exactly as
    the engines compute: ``(h @ W.T + b) >> shift``), as :func:`quantize` checks its own."""
    bound = np.asarray(input_bound, dtype=float)
    for i, layer in enumerate(model.layers):
        for name, arr in (("weight", layer.weights), ("bias", layer.biases)):
            if arr.size and int(np.abs(arr).max()) > INT32:
                raise QuantizeError(f"layer {i + 1}: a {name} does not fit int32")
        total = np.abs(layer.weights).astype(float) @ bound + np.abs(layer.biases)
        if total.max() >= INT64 / 4:
            raise QuantizeError(f"layer {i + 1}: a sum could overflow int64")
        bound = total / 2.0**layer.shift + 1.0


def dequantize(model: Model, scale: np.ndarray) -> Net:
    """The float network whose :func:`quantize` is ``model`` (a warm start from a model
    file): every integer weight and bias at its fixed point's value, the first layer's
    weights times ``scale`` (the inputs' scale the float network divides by)."""
    if model.out_shift != FRACTION:
        raise QuantizeError(f"logits with {model.out_shift} fractional bits, not {FRACTION}")
    weights, biases = [], []
    for i, layer in enumerate(model.layers):
        in_bits = 0 if i == 0 else FRACTION
        w_bits = 2 * FRACTION - in_bits
        if layer.shift != in_bits + w_bits - FRACTION:
            raise QuantizeError(f"layer {i + 1}: shift {layer.shift}, not this code's fixed point")
        w = layer.weights.astype(float) / 2.0**w_bits
        if i == 0:
            w = w * np.asarray(scale, dtype=float)
        weights.append(w)
        biases.append(layer.biases.astype(float) / 2.0 ** (in_bits + w_bits))
    return Net(np.asarray(scale, dtype=float), weights, biases)
