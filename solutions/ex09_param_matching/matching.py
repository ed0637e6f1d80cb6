"""ex09 reference: parameter-matched widths for an Embedding → RNN/GRU/LSTM → Linear model (the answer key, item 9).

The model is nn.Embedding(vocab, d_e) → nn.RNN/GRU/LSTM(d_e, d_h) (PyTorch: two bias vectors per
block) → nn.Linear(d_h, vocab). A cell has k blocks: 1 (RNN), 3 (GRU) or 4 (LSTM).
"""

_BLOCKS = {"rnn": 1, "gru": 3, "lstm": 4}


def _blocks(cell: str) -> int:
    if cell not in _BLOCKS:
        raise ValueError(f"cell must be one of {', '.join(_BLOCKS)}, got {cell!r}")
    return _BLOCKS[cell]


def total_params(cell: str, vocab: int, d_e: int, d_h: int) -> int:
    """sum(p.numel()) of the whole model: embedding + recurrent layer + output head."""
    embedding = vocab * d_e
    recurrent = _blocks(cell) * d_h * (d_e + d_h + 2)
    head = d_h * vocab + vocab
    return embedding + recurrent + head


def match_widths(
    target: int,
    vocab: int,
    d_e: int,
    cells=("rnn", "gru", "lstm"),
    max_width: int = 4096,
) -> dict:
    """{cell: d_h} with d_h in 1..max_width whose total_params is closest to target; ties go to the smaller d_h."""
    widths = {}
    for cell in cells:
        best = None
        for d_h in range(1, max_width + 1):
            gap = abs(total_params(cell, vocab, d_e, d_h) - target)
            if best is None or gap < best[0]:
                best = (gap, d_h)
        widths[cell] = best[1]
    return widths


def macs_per_step(cell: str, vocab: int, d_e: int, d_h: int) -> int:
    """Multiply-accumulates per time step: k·d_h·(d_e + d_h) in the cell plus d_h·vocab in the head.

    The embedding is a table lookup, not a matrix product, so it costs no MACs; biases are additions.
    """
    return _blocks(cell) * d_h * (d_e + d_h) + d_h * vocab
