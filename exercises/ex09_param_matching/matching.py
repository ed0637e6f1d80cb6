"""ex09: parameter-matched widths for an Embedding → RNN/GRU/LSTM → Linear model. See README.md.

The model is nn.Embedding(vocab, d_e) → nn.RNN/GRU/LSTM(d_e, d_h) → nn.Linear(d_h, vocab),
with PyTorch's two bias vectors per block. Count with formulas: match_widths must try up to
max_width widths per cell, far too many to build torch modules for.
"""


def total_params(cell: str, vocab: int, d_e: int, d_h: int) -> int:
    """sum(p.numel()) of the whole model for cell "rnn", "gru" or "lstm": embedding + recurrent layer + head.

    Returns an int.
    """
    raise NotImplementedError("ex09: implement total_params")


def match_widths(
    target: int,
    vocab: int,
    d_e: int,
    cells=("rnn", "gru", "lstm"),
    max_width: int = 4096,
) -> dict:
    """{cell: d_h} for each cell in `cells`: the width d_h in 1..max_width (both included) whose
    total_params(cell, vocab, d_e, d_h) is closest to `target`; on a tie, the smaller width.

    Returns a dict of ints keyed by the cell names.
    """
    raise NotImplementedError("ex09: implement match_widths")


def macs_per_step(cell: str, vocab: int, d_e: int, d_h: int) -> int:
    """Multiply-accumulates (MACs) of one time step for one sequence: the matrix products of the
    recurrent cell and of the output head. Bias additions and nonlinearities are not MACs, and the
    embedding is a table lookup (no matrix product), so it costs none.

    Returns an int.
    """
    raise NotImplementedError("ex09: implement macs_per_step")
