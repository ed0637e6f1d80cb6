"""ex09's known mistakes in matching.py, and its tables of other submissions (tests/test_submission_tables.py)."""

from mutants import bank, reference

SEARCH = "            gap = abs(total_params(cell, vocab, d_e, d_h) - target)\n"
MACS = "return _blocks(cell) * d_h * (d_e + d_h) + d_h * vocab"

# name: (text in the reference, the mistake, words the feedback must contain)
MUTANTS = bank(
    "ex09",
    "matching.py",
    {
        "one bias instead of two": ("(d_e + d_h + 2)", "(d_e + d_h + 1)", "one bias instead of PyTorch's two"),
        "no recurrent bias": ("(d_e + d_h + 2)", "(d_e + d_h)", "no recurrent bias"),
        "embedding forgotten": ("embedding = vocab * d_e", "embedding = 0", "embedding forgotten"),
        "head forgotten": ("head = d_h * vocab + vocab", "head = 0", "head forgotten"),
        "head bias forgotten": ("head = d_h * vocab + vocab", "head = d_h * vocab", "the head's bias forgotten"),
        "recurrent layer only": ("return embedding + recurrent + head", "return recurrent", "embedding and head forgotten"),
        "LSTM with 3 blocks": ('"lstm": 4', '"lstm": 3', "wrong k per cell"),
        "GRU with 4 blocks": ('"gru": 3', '"gru": 4', "wrong k per cell"),
        "total as float": ("return embedding + recurrent + head", "return float(embedding + recurrent + head)", "total_params must return an int"),
        "ties to the larger width": ("gap < best[0]", "gap <= best[0]", "ties to the larger width"),
        "range from 0": ("range(1, max_width + 1)", "range(0, max_width + 1)", "widths run from 1"),
        "range to max_width + 1": ("range(1, max_width + 1)", "range(1, max_width + 2)", "not max_width + 1"),
        "max_width left out": ("range(1, max_width + 1)", "range(1, max_width)", "max_width itself is allowed"),
        "first width above the target": (
            SEARCH,
            "            gap = total_params(cell, vocab, d_e, d_h) - target\n            if gap < 0:\n                continue\n",
            "not the first width at or above the target",
        ),
        "last width below the target": (
            SEARCH,
            "            gap = target - total_params(cell, vocab, d_e, d_h)\n            if gap < 0:\n                break\n",
            "not the last width at or below the target",
        ),
        "search with one bias": (
            SEARCH,
            "            gap = abs(total_params(cell, vocab, d_e, d_h) - _blocks(cell) * d_h - target)\n",
            "one bias instead of PyTorch's two",
        ),
        "width as float": ("widths[cell] = best[1]", "widths[cell] = float(best[1])", "must be an int"),
        "macs counting the embedding": (MACS, MACS + " + vocab * d_e", "macs counting the embedding"),
        "macs counting the embedding as d_e": (MACS, MACS + " + d_e", "macs counting the embedding"),
        "macs without the head": (MACS, "return _blocks(cell) * d_h * (d_e + d_h)", "head forgotten"),
        "macs counting biases": (MACS, MACS + " + _blocks(cell) * d_h + vocab", "biases counted as MACs"),
        "macs without the recurrent product": (MACS, "return _blocks(cell) * d_h * d_e + d_h * vocab", "recurrent product is missing"),
        "macs with a wrong k": (MACS, "return (3 if cell == 'lstm' else _blocks(cell)) * d_h * (d_e + d_h) + d_h * vocab", "wrong k per cell"),
        "macs as parameters": (MACS, "return total_params(cell, vocab, d_e, d_h)", "parameters counted instead of MACs"),
    },
)
# The search rules again, with an answer where the rule gives none (every total below, or above, the target).
FALLBACK = "                best = (gap, d_h)\n        widths[cell] = best[1]\n"
MUTANTS += bank(
    "ex09",
    "matching.py",
    {
        "first width above, max_width when none is": (
            SEARCH + "            if best is None or gap < best[0]:\n" + FALLBACK,
            "            gap = total_params(cell, vocab, d_e, d_h) - target\n            if gap >= 0:\n"
            "                best = (gap, d_h)\n                break\n        widths[cell] = max_width if best is None else best[1]\n",
            "not the first width at or above the target",
        ),
        "last width below, 1 when none is": (
            SEARCH + "            if best is None or gap < best[0]:\n" + FALLBACK,
            "            gap = target - total_params(cell, vocab, d_e, d_h)\n            if gap < 0:\n                break\n"
            "            best = (gap, d_h)\n        widths[cell] = 1 if best is None else best[1]\n",
            "not the last width at or below the target",
        ),
    },
)

# Counts no known mistake explains, located by how the error changes with each size (never named as a known mistake
# that meets one of them by chance); the match_widths checks judge the widths with the student's own count.
MUTANTS += bank(
    "ex09",
    "matching.py",
    {
        "embedding with d_h columns": ("embedding = vocab * d_e", "embedding = vocab * d_h", "the embedding or the head is miscounted"),
        "three biases per block": ("(d_e + d_h + 2)", "(d_e + d_h + 3)", "the recurrent layer's biases are miscounted"),
        "recurrent matrix counted twice": ("(d_e + d_h + 2)", "(d_e + 2 * d_h + 2)", "the recurrent weights are miscounted"),
        "macs with a head of d_e × vocab": (MACS, "return _blocks(cell) * d_h * (d_e + d_h) + d_e * vocab", "look at the embedding and the head's product"),
    },
)

REFERENCE = reference("ex09")["matching.py"]

# name of a known mistake: the one check that must charge it (a wrong k shared by total_params and macs_per_step
# costs points in total_params only)
CHARGED_ONCE = {
    "LSTM with 3 blocks": "total_params",
    # a miscount no known mistake is: match_widths is judged with the student's own count (a quadratic in d_h)
    "embedding with d_h columns": "total_params",
    "three biases per block": "total_params",
    "recurrent matrix counted twice": "total_params",
    # "closest" read another way: the tie and range-end checks accept the widths that reading gives
    "first width above, max_width when none is": "match_widths returns, for every cell",
    "last width below, 1 when none is": "match_widths returns, for every cell",
}

# A match_widths that solves the quadratic and checks neighbours, in place of the reference's full scan
FAST_SEARCH = (
    "    import math\n"
    "    widths = {}\n"
    "    for cell in cells:\n"
    "        k = _blocks(cell)\n"
    "        a, b, c = k, k * (d_e + 2) + vocab, vocab * d_e + vocab - target\n"
    "        root = (-b + math.sqrt(max(b * b - 4 * a * c, 0))) / (2 * a)\n"
    "        near = {min(max(int(root) + j, 1), max_width) for j in (-1, 0, 1, 2)}\n"
    "        widths[cell] = min(near, key=lambda h: (abs(total_params(cell, vocab, d_e, h) - target), h))\n"
    "    return widths\n"
)
SCAN_START = REFERENCE.index("    widths = {}\n    for cell in cells:\n        best = None")
SCAN_END = REFERENCE.index("    return widths\n") + len("    return widths\n")
# name: files in the reference folder's place; each earns full marks
ACCEPTED = {"a closed-form search": {"matching.py": REFERENCE[:SCAN_START] + FAST_SEARCH + REFERENCE[SCAN_END:]}}

MATCHING = """def total_params(cell, vocab, d_e, d_h):
    return {total}

def match_widths(target, vocab, d_e, cells=("rnn", "gru", "lstm"), max_width=4096):
    return {widths}

def macs_per_step(cell, vocab, d_e, d_h):
    return {macs}
"""
# Submissions that compute nothing: each earns nothing. A constant width of 1 or max_width is right for the
# targets below or above every total, yet earns no range-end points: it finds no width inside the range.
# name: files in the stub folder's place
DEGENERATE = {
    "zeros": {"matching.py": MATCHING.format(total="0", widths="{cell: 0 for cell in cells}", macs="0")},
    "constant width 1": {"matching.py": MATCHING.format(total="1", widths="{cell: 1 for cell in cells}", macs="1")},
    "constant max_width": {"matching.py": MATCHING.format(total="1", widths="{cell: max_width for cell in cells}", macs="1")},
    "returns its input": {"matching.py": MATCHING.format(total="d_h", widths="{cell: target for cell in cells}", macs="d_h")},
    "empty results": {"matching.py": MATCHING.format(total="0", widths="{}", macs="0")},
}
