"""ex04 reference: parameter counts of RNN, GRU and LSTM layers (the answer key, item 4; the textbook, §2.3.6).

One block = input projection (d_h × d_in) + recurrent projection (d_h × d_h) + bias (d_h);
an RNN has 1 block, a GRU 3 (z, r, candidate), an LSTM 4 (i, f, o, candidate). The textbook counts
one bias per block; PyTorch keeps two (bias_ih and bias_hh).
"""

_BLOCKS = {"rnn": 1, "gru": 3, "lstm": 4}


def count_params(
    cell: str,
    d_x: int,
    d_h: int,
    *,
    num_layers: int = 1,
    bidirectional: bool = False,
    framework_biases: bool = False,
) -> int:
    """Parameters of a `num_layers`-deep, optionally bidirectional RNN/GRU/LSTM layer stack.

    Layer 1 reads d_x features, every later layer reads D·d_h (D = 2 when bidirectional).
    framework_biases=True counts PyTorch's two bias vectors per block, so the result equals
    sum(p.numel() for p in nn.LSTM(d_x, d_h, num_layers, bidirectional=...).parameters()).
    Raises ValueError for an unknown cell or a non-positive size.
    """
    if cell not in _BLOCKS:
        raise ValueError(f"cell must be one of {', '.join(_BLOCKS)}, got {cell!r}")
    for name, value in (("d_x", d_x), ("d_h", d_h), ("num_layers", num_layers)):
        if value <= 0:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    k = _BLOCKS[cell]
    directions = 2 if bidirectional else 1
    biases = 2 if framework_biases else 1
    total = 0
    for layer in range(num_layers):
        d_in = d_x if layer == 0 else directions * d_h
        total += directions * k * d_h * (d_in + d_h + biases)
    return total
