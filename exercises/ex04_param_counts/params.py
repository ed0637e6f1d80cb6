"""ex04: count the parameters of RNN, GRU and LSTM layers. Fill in count_params; see README.md.

Count with the formulas, not by building torch modules (use torch only to check your formulas).
"""


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

    cell: "rnn", "gru" or "lstm"; d_x: input features; d_h: hidden size per direction.
    Layer 1 reads d_x features, every later layer reads D·d_h (D = 2 when bidirectional).
    framework_biases=False counts one bias vector per block (the textbook); True counts PyTorch's
    two (bias_ih and bias_hh), so the result equals
    sum(p.numel() for p in nn.LSTM(d_x, d_h, num_layers, bidirectional=...).parameters()).
    Returns an int. Raises ValueError for an unknown cell or a non-positive d_x, d_h or num_layers.
    """
    raise NotImplementedError("ex04: implement count_params")
