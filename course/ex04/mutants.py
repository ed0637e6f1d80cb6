"""ex04's known mistakes, in params.py and on the answer sheet, and its tables of other submissions
(tests/test_submission_tables.py)."""

from mutants import bank

# name: (text in the reference params.py, the mistake, words the feedback must contain)
CODE_MUTANTS = bank(
    "ex04",
    "params.py",
    {
        "no bias": ("(d_in + d_h + biases)", "(d_in + d_h)", "no bias"),
        "LSTM counted as 3 blocks": ('"lstm": 4', '"lstm": 3', "LSTM counted as 3 blocks"),
        "GRU counted as 4 blocks": ('"gru": 3', '"gru": 4', "wrong number of blocks for the GRU"),
        "d_x used for every layer": ("d_in = d_x if layer == 0 else directions * d_h", "d_in = d_x", "d_x used for every layer"),
        "later layers read d_h": ("else directions * d_h", "else d_h", "later layers read one direction only"),
        "bidirectional not doubled": ("total += directions * k", "total += k", "bidirectional not doubled"),
        "bidirectional ignored": ("directions = 2 if bidirectional else 1", "directions = 1", "bidirectional not doubled"),
        "framework double bias forgotten": ("biases = 2 if framework_biases else 1", "biases = 1", "framework double bias forgotten"),
        "always two biases": ("biases = 2 if framework_biases else 1", "biases = 2", "two biases per block counted"),
        "num_layers ignored": ("range(num_layers)", "range(1)", "num_layers ignored"),
        "zero sizes accepted": ("if value <= 0:", "if value < 0:", "no ValueError for: d_x = 0"),
        "unknown cell gives KeyError": (
            "    if cell not in _BLOCKS:\n        raise ValueError",
            "    if False:\n        raise ValueError",
            "no ValueError for: an unknown cell 'cnn' (KeyError)",
        ),
        "float result": ("return total", "return float(total)", "must return an int"),
    },
)
# A bias convention of the student's own, which no named mistake is: one bias vector for the whole cell (PyTorch's
# count doubles it). The check of one layer, one bias per block, charges it, locating it in the biases; the framework,
# stacked and bidirectional checks judge PyTorch's count and the stacks by the student's own layer. A stacking mistake
# on top is still charged, and named, by the stacked check.
LAYER_LINES = "d_in = d_x if layer == 0 else directions * d_h\n        total += directions * k * d_h * (d_in + d_h + biases)"
CELL_BIAS = "total += directions * (k * d_h * (d_in + d_h) + biases * d_h)"
CODE_MUTANTS += bank(
    "ex04",
    "params.py",
    {
        "one bias for the whole cell": ("total += directions * k * d_h * (d_in + d_h + biases)", CELL_BIAS, "its biases are not"),
        # no named mistake: "two biases per block" reproduces it only where d_x equals num_layers, so nothing is named
        "layer 1 reads 2·d_x when bidirectional": (
            "d_in = d_x if layer == 0 else directions * d_h",
            "d_in = directions * d_x if layer == 0 else directions * d_h",
            "wrong for 54 of 54 bidirectional configurations",
        ),
        "one bias for the whole cell, d_x used for every layer": (
            LAYER_LINES,
            "d_in = d_x\n        " + CELL_BIAS,
            "d_x used for every layer",
        ),
    },
)

# name: (line in the reference answers.toml, the wrong line, words the feedback must contain)
SHEET_MUTANTS = bank(
    "ex04",
    "answers.toml",
    {
        "N_lstm without bias": ('N_lstm = "4*d_h*(d_x + d_h + 1)"', 'N_lstm = "4 d_h (d_x + d_h)"', "no bias"),
        "N_lstm with 3 blocks": ('N_lstm = "4*d_h*(d_x + d_h + 1)"', 'N_lstm = "3d_h(d_x+d_h+1)"', "LSTM counted as 3 blocks"),
        "N_lstm with one bias for the cell": ('N_lstm = "4*d_h*(d_x + d_h + 1)"', 'N_lstm = "4*d_h*(d_x+d_h) + d_h"', "one bias vector for the whole cell"),
        "N_lstm with PyTorch's biases": ('N_lstm = "4*d_h*(d_x + d_h + 1)"', 'N_lstm = "4*d_h*(d_x+d_h+2)"', "two biases per block"),
        "N_gru with 4 blocks": ('N_gru = "3*d_h*(d_x + d_h + 1)"', 'N_gru = "4*d_h*(d_x + d_h + 1)"', "wrong number of blocks"),
        "N_gru without the candidate": ('N_gru = "3*d_h*(d_x + d_h + 1)"', 'N_gru = "2 d_h (d_x + d_h + 1)"', "wrong number of blocks"),
        "N_rnn without W_hh": ('N_rnn = "d_h*(d_x + d_h + 1)"', 'N_rnn = "d_h*d_x + d_h"', "recurrent matrix is missing"),
        "N_rnn with a scalar bias": ('N_rnn = "d_h*(d_x + d_h + 1)"', 'N_rnn = "d_h*(d_x + d_h) + 1"', "scalar bias"),
        "N_rnn as a number": ('N_rnn = "d_h*(d_x + d_h + 1)"', "N_rnn = 40", "asks for a formula"),
        "gru_count without bias": ("gru_count = 90", "gru_count = 81", "no bias"),
        "lstm_count with PyTorch's biases": ("lstm_count = 46464", "lstm_count = 46848", "two biases per block"),
        "lstm_count with 3 blocks": ("lstm_count = 46464", 'lstm_count = "3*96*(24+96+1)"', "LSTM counted as 3 blocks"),
        "torch count without bias_hh": ("lstm_count_torch = 46848", "lstm_count_torch = 46464", "framework double bias forgotten"),
        "GRUCell without bias_hh": ("grucell_count_torch = 273", "grucell_count_torch = 252", "framework double bias forgotten"),
        "stack with d_x for every layer": ("lstm_stack_count_torch = 2624", "lstm_stack_count_torch = 1920", "d_x used for every layer"),
        "stack not doubled": ("lstm_stack_count_torch = 2624", "lstm_stack_count_torch = 1312", "bidirectional not doubled"),
        "stack with d_h into layer 2": ("lstm_stack_count_torch = 2624", "lstm_stack_count_torch = 2112", "later layers read one direction only"),
        "a fraction for a count": ("gru_count = 90", "gru_count = 90.5", "not a whole number"),
    },
)

MUTANTS = CODE_MUTANTS + SHEET_MUTANTS

# name: files in the reference folder's place; each earns full marks
ACCEPTED = {
    "expanded, implicit products, arithmetic for counts": {
        "answers.toml": (
            'N_rnn = "d_h^2 + d_h d_x + d_h"\n'
            'N_gru = "3 d_h (d_h + d_x + 1)"\n'
            'N_lstm = "(d_x + d_h + 1)·4d_h"\n'
            'gru_count = "3*3*(6+3+1)"\n'
            "lstm_count = 46464\n"
            'lstm_count_torch = "4*96*(24+96+2)"\n'
            "grucell_count_torch = 273\n"
            "lstm_stack_count_torch = 2624.0\n"
        )
    },
}

# name of a known mistake in params.py: the one check that must charge it (a mistake in the count of one layer
# costs points there only, not again in the stacking checks)
CHARGED_ONCE = {
    "no bias": "count_params for one layer, one bias per block",
    "LSTM counted as 3 blocks": "count_params for one layer, one bias per block",
    "framework double bias forgotten": "count_params(..., framework_biases=True)",
    "always two biases": "count_params for one layer, one bias per block",
    "float result": "count_params for one layer, one bias per block",
    # a mistake in stacking costs the stacked check only, not again in the bidirectional stacks
    "d_x used for every layer": "Stacked layers",
    "num_layers ignored": "Stacked layers",
    # a bias convention no named mistake is: charged where one layer is counted with one bias per block, alone
    "one bias for the whole cell": "count_params for one layer, one bias per block",
}

COUNT_PARAMS = "def count_params(cell, d_x, d_h, *, num_layers=1, bidirectional=False, framework_biases=False):\n"
VALIDATION = "    if cell not in ('rnn', 'gru', 'lstm') or min(d_x, d_h, num_layers) <= 0:\n        raise ValueError('no such layer')\n"
# name: files in the stub folder's place. Submissions that compute nothing: each earns nothing. A constant
# of 100 would be right by chance for nn.RNN(3, 5, num_layers=2) and keep 1 of that check's 36 counts.
DEGENERATE = {
    "zero": {"params.py": COUNT_PARAMS + "    return 0\n"},
    "constant": {"params.py": COUNT_PARAMS + "    return 1\n"},
    "returns its input": {"params.py": COUNT_PARAMS + "    return d_h\n"},
    "validates, then returns zero": {"params.py": COUNT_PARAMS + VALIDATION + "    return 0\n"},
}
