"""ex09's known mistakes in matching.py."""

from . import bank

SEARCH = "            gap = abs(total_params(cell, vocab, d_e, d_h) - target)\n"
MACS = "return _blocks(cell) * d_h * (d_e + d_h) + d_h * vocab"

# name: (text in the reference, the mistake, words the feedback must contain)
MUTANTS = bank("ex09", "matching.py", {
    "one bias instead of two": ("(d_e + d_h + 2)", "(d_e + d_h + 1)", "one bias instead of PyTorch's two"),
    "no recurrent bias": ("(d_e + d_h + 2)", "(d_e + d_h)", "no recurrent bias"),
    "embedding forgotten": ("embedding = vocab * d_e", "embedding = 0", "embedding forgotten"),
    "head forgotten": ("head = d_h * vocab + vocab", "head = 0", "head forgotten"),
    "head bias forgotten": ("head = d_h * vocab + vocab", "head = d_h * vocab", "the head's bias forgotten"),
    "recurrent layer only": (
        "return embedding + recurrent + head", "return recurrent", "embedding and head forgotten"),
    "LSTM with 3 blocks": ('"lstm": 4', '"lstm": 3', "wrong k per cell"),
    "GRU with 4 blocks": ('"gru": 3', '"gru": 4', "wrong k per cell"),
    "total as float": ("return embedding + recurrent + head", "return float(embedding + recurrent + head)",
                       "total_params must return an int"),
    "ties to the larger width": ("gap < best[0]", "gap <= best[0]", "ties to the larger width"),
    "range from 0": ("range(1, max_width + 1)", "range(0, max_width + 1)", "widths run from 1"),
    "range to max_width + 1": ("range(1, max_width + 1)", "range(1, max_width + 2)", "not max_width + 1"),
    "max_width left out": ("range(1, max_width + 1)", "range(1, max_width)", "max_width itself is allowed"),
    "first width above the target": (
        SEARCH, "            gap = total_params(cell, vocab, d_e, d_h) - target\n            if gap < 0:\n"
                "                continue\n", "not the first width at or above the target"),
    "last width below the target": (
        SEARCH, "            gap = target - total_params(cell, vocab, d_e, d_h)\n            if gap < 0:\n"
                "                break\n", "not the last width at or below the target"),
    "search with one bias": (
        SEARCH, "            gap = abs(total_params(cell, vocab, d_e, d_h) - _blocks(cell) * d_h - target)\n",
        "one bias instead of PyTorch's two"),
    "width as float": ("widths[cell] = best[1]", "widths[cell] = float(best[1])", "must be an int"),
    "macs counting the embedding": (MACS, MACS + " + vocab * d_e", "macs counting the embedding"),
    "macs counting the embedding as d_e": (MACS, MACS + " + d_e", "macs counting the embedding"),
    "macs without the head": (MACS, "return _blocks(cell) * d_h * (d_e + d_h)", "head forgotten"),
    "macs counting biases": (MACS, MACS + " + _blocks(cell) * d_h + vocab", "biases counted as MACs"),
    "macs without the recurrent product": (MACS, "return _blocks(cell) * d_h * d_e + d_h * vocab", "recurrent product is missing"),
    "macs with a wrong k": (MACS, "return (3 if cell == 'lstm' else _blocks(cell)) * d_h * (d_e + d_h) + d_h * vocab",
                            "wrong k per cell"),
    "macs as parameters": (MACS, "return total_params(cell, vocab, d_e, d_h)", "parameters counted instead of MACs"),
})

POINTS = 8  # what the reference earns (tests/test_submission_tables.py)
