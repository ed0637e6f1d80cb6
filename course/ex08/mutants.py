"""ex08's known mistakes, in the data and the comparison protocol (protocol.py) and on the answer sheet, and its tables
of other submissions (tests/test_submission_tables.py)."""

from mutants import bank, mutate, reference, submission

LOOP_FAILURE = "            except Exception:\n                continue\n"
STATUS = '            row["status"] = "ok" if math.isfinite(result["final_loss"]) else "diverged"\n'

# name: (text in the reference, the mistake, words the feedback must contain)
CODE_MUTANTS = bank(
    "ex08",
    "protocol.py",
    {
        "blank token 0 in the inputs": ("torch.randint(1, vocab, (n, T)", "torch.randint(0, vocab, (n, T)", "blank token 0"),
        "exclusive upper bound": ("torch.randint(1, vocab, (n, T)", "torch.randint(1, vocab - 1, (n, T)", "never appears"),
        "delay off by one": (
            "targets[:, delay:] = inputs[:, : inputs.shape[1] - delay]",
            "targets[:, delay + 1:] = inputs[:, : inputs.shape[1] - delay - 1]",
            "delay off by one",
        ),
        "seed ignored": ("g = torch.Generator().manual_seed(seed)\n    inputs", "g = torch.Generator()\n    inputs", "the seed is ignored"),
        "make_splits seed ignored": ("g = torch.Generator().manual_seed(seed)\n    seen", "g = torch.Generator()\n    seen", "the seed is ignored"),
        "repeated sequences": ("if tuple(row) not in seen:", "if True:", "repeated sequences"),
        "sorted by torch.unique": (
            "    inputs = torch.tensor(rows, dtype=torch.int64).reshape(total, T)\n",
            "    inputs = torch.unique(torch.tensor(rows, dtype=torch.int64).reshape(total, T), dim=0)\n",
            "sorted sequences",
        ),
        "overlapping splits": ("(inputs[start : start + n], targets[start : start + n])", "(inputs[:n], targets[:n])", "overlapping splits"),
        "batch size differs across models": (
            'batch_size=settings["batch_size"],\n',
            'batch_size=settings["batch_size"] * (2 if cell == "lstm" else 1),\n',
            "settings differ across models",
        ),
        "seeds differ across models": (
            'for seed in settings["seeds"]:',
            'for seed in (settings["seeds"] if cell != "lstm" else [s + 1 for s in settings["seeds"]]):',
            "not the shared seed set",
        ),
        "update count differs across models": (
            'updates=settings["updates"], lr=',
            'updates=settings["updates"] + (cell == "rnn"), lr=',
            "different batch size or update count",
        ),
        "parameters hand-counted with one bias": (
            '"params": sum(p.numel() for p in model.parameters()),',
            '"params": {"rnn": 1, "gru": 3, "lstm": 4}[cell] * d_h * (settings["d_e"] + d_h + 1) + settings["vocab"] * (settings["d_e"] + d_h + 1),',
            "one bias per block",
        ),
        "parameters of the recurrent layer only": (
            '"params": sum(p.numel() for p in model.parameters()),',
            '"params": sum(p.numel() for p in model.rnn.parameters()),',
            "recurrent layer alone",
        ),
        "timing 500 sequences": ("model(test_x[:PREDICT_SEQUENCES])", "model(test_x[:500])", "covers 500 sequences"),
        "timing all test sequences": ("model(test_x[:PREDICT_SEQUENCES])", "model(test_x)", "all test sequences"),
        "dropping failed runs": (
            LOOP_FAILURE,
            "            except Exception:\n                rows.pop()\n                continue\n",
            "dropped the failed run",
        ),
        "only a NaN loss counts as diverged": (
            STATUS,
            '            row["status"] = "diverged" if math.isnan(result["final_loss"]) else "ok"\n',
            "final loss is infinite must have status",
        ),
        "dropping diverged runs": (
            STATUS,
            STATUS + '            if row["status"] == "diverged":\n                rows.pop()\n                continue\n',
            "dropped the diverged run",
        ),
        "diverged runs reported as ok": (STATUS, '            row["status"] = "ok"\n', 'status "diverged"'),
        "failing run not caught": (LOOP_FAILURE, "            except ZeroDivisionError:\n                continue\n", "must be caught"),
        "forward gives probabilities, not logits": (
            "return self.head(self.rnn(self.embedding(x))[0])",
            "return self.head(self.rnn(self.embedding(x))[0]).softmax(-1)",
            "does not give the logits",
        ),
        "accuracy bypasses the model's call": ("predicted = model(inputs).argmax(-1)", "predicted = model.forward(inputs).argmax(-1)", "saw no such call"),
        "accuracy over blank positions": ("(predicted[:, delay:] == targets[:, delay:])", "(predicted == targets)", "counted the blank positions"),
        "cell calls without T": (' * settings["batch_size"] * train_x.shape[1],', ' * settings["batch_size"],', "cell_calls"),
        "training on train + test": (
            "bench.train(model, (train_x, train_y),",
            "bench.train(model, (torch.cat([train_x, test_x]), torch.cat([train_y, test_y])),",
            "trained on test sequences",
        ),
        "training on the test split": ("bench.train(model, (train_x, train_y),", "bench.train(model, (test_x, test_y),", "trained on test sequences"),
        "training on train + validation": (
            "bench.train(model, (train_x, train_y),",
            'bench.train(model, (torch.cat([train_x, splits["val"][0]]), torch.cat([train_y, splits["val"][1]])),',
            "trained on validation sequences",
        ),
        "training on validation": ("bench.train(model, (train_x, train_y),", 'bench.train(model, splits["val"],', "trained on validation sequences"),
        "no seed before the build": ("            torch.manual_seed(seed)\n", "", "not built under torch.manual_seed(seed)"),
        "seeded once for all runs": (
            '    for cell, d_h in widths.items():\n        for seed in settings["seeds"]:\n            torch.manual_seed(seed)\n',
            '    torch.manual_seed(settings["seeds"][0])\n    for cell, d_h in widths.items():\n        for seed in settings["seeds"]:\n',
            "not built under torch.manual_seed(seed)",
        ),
        "wrong seed": ("torch.manual_seed(seed)", "torch.manual_seed(seed + 1)", "not built under torch.manual_seed(seed)"),
        "test accuracy on training data": (
            'accuracy(model, test_x, test_y, settings["delay"])',
            'accuracy(model, train_x, train_y, settings["delay"])',
            "test accuracy measured on training data",
        ),
        "matched table at equal width": (
            '"matched_params": run_comparison(bench, splits, dict(matched_widths), settings)',
            '"matched_params": run_comparison(bench, splits, {cell: d_h for cell in matched_widths}, settings)',
            "matched_params table",
        ),
    },
)

# name: (answer in the reference, the wrong answer, words the feedback must contain)
SHEET_MUTANTS = bank(
    "ex08",
    "answers.toml",
    {
        "equal width means equal cost": ('equal_width_shows = "D"', 'equal_width_shows = "A"', "took equal width for equal cost"),
        "equal width credits extra parameters": ('equal_width_shows = "D"', 'equal_width_shows = "B"', "credited the gap to the extra parameters"),
        "equal width means nothing": ('equal_width_shows = "D"', 'equal_width_shows = "C"', "dismissed the equal-width table"),
        "equal parameters means equal time": ('equal_params_shows = "A"', 'equal_params_shows = "B"', "close parameter counts do not mean"),
        "equal parameters isolates the gates": ('equal_params_shows = "A"', 'equal_params_shows = "C"', "not leave the gates as the only difference"),
        "equal widths as the only fair table": ('equal_params_shows = "A"', 'equal_params_shows = "D"', "took equal widths for the fair comparison"),
    },
)

MUTANTS = CODE_MUTANTS + SHEET_MUTANTS

REFERENCE = reference("ex08")["protocol.py"]

# name: (files in the reference folder's place, the points it costs): a misconception on the answer sheet costs
# exactly its share, 0.5 (its diagnosis: tests/test_mutants.py)
COSTS = {m.name: (submission(m), 0.5) for m in SHEET_MUTANTS}
# An accuracy measured another way (on the 512 predicted sequences, or from position delay + 1) costs the row-metrics
# check's quarter alone: the training-protocol check still believes the bench's record (the review's w_acc_first512).
COSTS |= {
    name: ({"protocol.py": mutate(REFERENCE, old, new)} | {"answers.toml": reference("ex08")["answers.toml"]}, 0.25)
    for name, (old, new) in {
        "test_acc on the 512 predicted sequences": (
            '            row["test_acc"] = accuracy(model, test_x, test_y, settings["delay"])',
            '            row["test_acc"] = accuracy(model, test_x[:PREDICT_SEQUENCES], test_y[:PREDICT_SEQUENCES], settings["delay"])',
        ),
        "test_acc from one position after delay": (
            '            row["test_acc"] = accuracy(model, test_x, test_y, settings["delay"])',
            '            row["test_acc"] = accuracy(model, test_x, test_y, settings["delay"] + 1)',
        ),
    }.items()
}

# Odd but plausible values in what the submission returns: a Fail naming the value, never an internal error.
# name: (text in the reference, the change, words the feedback must contain)
HOSTILE = bank(
    "ex08",
    "protocol.py",
    {
        "cell names in upper case": (
            '"cell": cell, "d_h": d_h,',
            '"cell": cell.upper(), "d_h": d_h,',
            "['cell']: expected 'rnn' or 'gru' or 'lstm', got str \"'RNN'\"",
        ),
        "seed as a list": ('"d_h": d_h, "seed": seed,', '"d_h": d_h, "seed": [seed],', "['seed']: expected int, got list"),
        "width missing for one cell": (
            '"cell": cell, "d_h": d_h,',
            '"cell": cell, "d_h": d_h if cell != "lstm" else None,',
            "['d_h']: expected int, got NoneType",
        ),
        "cell_calls as a tensor": (
            '"cell_calls": settings["updates"]',
            '"cell_calls": torch.ones(2) * settings["updates"]',
            "['cell_calls']: expected int or float or None, got Tensor",
        ),
        "prediction time NaN": ('row["predict_time"] = bench.clock() - start', 'row["predict_time"] = math.nan', "not the difference of two readings"),
        "plain lists for a new seed": (
            "    return inputs, _shift(inputs, delay)",
            "    if seed == 12:\n        return inputs.tolist(), _shift(inputs, delay).tolist()\n    return inputs, _shift(inputs, delay)",
            "make_delayed_copy (seed 12): inputs: expected a tensor, got list",
        ),
        "splits as lists when called again": (
            "    return splits\n",
            "    _CALLS.append(seed)\n    if _CALLS.count(seed) > 1:\n"
            "        return {k: [x.tolist(), y.tolist()] for k, (x, y) in splits.items()}\n    return splits\n\n\n_CALLS = []\n",
            "(same seed again): inputs: expected a tensor, got list",
        ),
    },
)

# Correct variants the statement allows: eval mode for prediction; the train split copied, rebuilt from halves or passed
# as given; a model whose __init__ makes its parts in another order; a failed row's params and cell_calls left out,
# which the grader does not check. name: (text in the reference, the variant)
VARIANTS = {
    "prediction in eval mode": (
        "            with torch.no_grad():\n                model(test_x[:PREDICT_SEQUENCES])",
        "            model.eval()\n            with torch.no_grad():\n                model(test_x[:PREDICT_SEQUENCES])",
    ),
    "the train split copied": ("bench.train(model, (train_x, train_y),", "bench.train(model, (train_x.clone(), train_y.clone()),"),
    "the train split concatenated from halves": (
        "bench.train(model, (train_x, train_y),",
        "bench.train(model, (torch.cat([train_x[:24], train_x[24:]]), torch.cat([train_y[:24], train_y[24:]])),",
    ),
    "the train split passed as given": ("bench.train(model, (train_x, train_y),", 'bench.train(model, splits["train"],'),
    "a model that makes its head first": (
        "        self.embedding = nn.Embedding(vocab, d_e)\n        self.rnn = CELLS[cell](d_e, d_h, batch_first=True)\n"
        "        self.head = nn.Linear(d_h, vocab)\n",
        "        self.head = nn.Linear(d_h, vocab)\n        self.embedding = nn.Embedding(vocab, d_e)\n"
        "        self.rnn = CELLS[cell](d_e, d_h, batch_first=True)\n",
    ),
    "a model moved to float64 after its seeded build": (
        'build_model(cell, settings["vocab"], settings["d_e"], d_h).to(train_x.device)',
        'build_model(cell, settings["vocab"], settings["d_e"], d_h).to(train_x.device).double()',
    ),
    "a failed row without params and cell_calls": (
        LOOP_FAILURE,
        '            except Exception:\n                row["params"] = row["cell_calls"] = None\n                continue\n',
    ),
    "test accuracy as a float32 mean": ("targets[:, delay:]).double().mean()", "targets[:, delay:]).float().mean()"),
}
# name: files in the reference folder's place; each earns full marks
ACCEPTED = {name: {"protocol.py": mutate(REFERENCE, old, new)} for name, (old, new) in VARIANTS.items()}

ZERO_DATA = """import torch

def make_delayed_copy(n, T, delay, vocab, seed):
    return torch.zeros(n, T, dtype=torch.int64), torch.zeros(n, T, dtype=torch.int64)

def make_splits(sizes, T, delay, vocab, seed):
    return {name: make_delayed_copy(n, T, delay, vocab, seed) for name, n in sizes.items()}
"""
CONSTANT_DATA = """import torch

def make_delayed_copy(n, T, delay, vocab, seed):
    inputs = torch.ones(n, T, dtype=torch.int64)
    targets = torch.zeros_like(inputs)
    targets[:, delay:] = inputs[:, :T - delay]
    return inputs, targets

def make_splits(sizes, T, delay, vocab, seed):
    if sum(sizes.values()) > (vocab - 1) ** T:
        raise ValueError("not enough distinct sequences")
    return {name: make_delayed_copy(n, T, delay, vocab, seed) for name, n in sizes.items()}
"""
NO_ROWS = """
def run_comparison(bench, splits, widths, settings):
    return []

def comparison_tables(bench, splits, settings, d_h, matched_widths):
    return {"equal_width": [], "matched_params": []}
"""
# One row per (cell, seed) that repeats the settings it was given, and trains nothing.
ECHOED_ROWS = """
def run_comparison(bench, splits, widths, settings):
    return [dict(cell=cell, d_h=d_h, seed=seed, status="ok", params=0, batch_size=settings["batch_size"],
                 updates=settings["updates"], lr=settings["lr"], cell_calls=0, test_acc=0.0, train_time=0.0,
                 predict_time=0.0, peak_memory=0)
            for cell, d_h in widths.items() for seed in settings["seeds"]]

def comparison_tables(bench, splits, settings, d_h, matched_widths):
    return {"equal_width": run_comparison(bench, splits, {cell: d_h for cell in matched_widths}, settings),
            "matched_params": run_comparison(bench, splits, dict(matched_widths), settings)}
"""
# Submissions that compute nothing (the sheet is the unanswered stub's): each earns nothing. The constant data
# is shifted right and make_splits refuses the impossible, yet neither earns: constant inputs show no shift.
# name: files in the stub folder's place
DEGENERATE = {
    "zeros and no rows": {"protocol.py": ZERO_DATA + NO_ROWS},
    "constant data and echoed rows": {"protocol.py": CONSTANT_DATA + ECHOED_ROWS},
    "zeros and echoed rows": {"protocol.py": ZERO_DATA + ECHOED_ROWS},
    "empty results": {
        "protocol.py": (
            "def make_delayed_copy(n, T, delay, vocab, seed):\n    return ()\n\n"
            "def make_splits(sizes, T, delay, vocab, seed):\n    return {}\n\n"
            "def run_comparison(bench, splits, widths, settings):\n    return []\n\n"
            "def comparison_tables(bench, splits, settings, d_h, matched_widths):\n    return {}\n"
        )
    },
}
