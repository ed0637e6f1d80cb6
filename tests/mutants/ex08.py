"""ex08's known mistakes, in the data and the comparison protocol (protocol.py) and on the answer sheet."""

from . import bank

LOOP_FAILURE = "            except Exception:\n                continue\n"
STATUS = '            row["status"] = "ok" if math.isfinite(result["final_loss"]) else "diverged"\n'

# name: (text in the reference, the mistake, words the feedback must contain)
CODE_MUTANTS = bank("ex08", "protocol.py", {
    "blank token 0 in the inputs": ("torch.randint(1, vocab, (n, T)", "torch.randint(0, vocab, (n, T)", "blank token 0"),
    "exclusive upper bound": ("torch.randint(1, vocab, (n, T)", "torch.randint(1, vocab - 1, (n, T)", "never appears"),
    "delay off by one": (
        "targets[:, delay:] = inputs[:, : inputs.shape[1] - delay]",
        "targets[:, delay + 1:] = inputs[:, : inputs.shape[1] - delay - 1]", "delay off by one"),
    "seed ignored": (
        "g = torch.Generator().manual_seed(seed)\n    inputs", "g = torch.Generator()\n    inputs", "the seed is ignored"),
    "repeated sequences": ("if tuple(row) not in seen:", "if True:", "repeated sequences"),
    "overlapping splits": (
        "(inputs[start : start + n], targets[start : start + n])", "(inputs[:n], targets[:n])", "overlapping splits"),
    "batch size differs across models": (
        'batch_size=settings["batch_size"],\n', 'batch_size=settings["batch_size"] * (2 if cell == "lstm" else 1),\n',
        "settings differ across models"),
    "seeds differ across models": (
        'for seed in settings["seeds"]:',
        'for seed in (settings["seeds"] if cell != "lstm" else [s + 1 for s in settings["seeds"]]):',
        "not the shared seed set"),
    "update count differs across models": (
        'updates=settings["updates"], lr=', 'updates=settings["updates"] + (cell == "rnn"), lr=',
        "different batch size or update count"),
    "parameters hand-counted with one bias": (
        '"params": sum(p.numel() for p in model.parameters()),',
        '"params": {"rnn": 1, "gru": 3, "lstm": 4}[cell] * d_h * (settings["d_e"] + d_h + 1)'
        ' + settings["vocab"] * (settings["d_e"] + d_h + 1),',
        "one bias per block"),
    "parameters of the recurrent layer only": (
        '"params": sum(p.numel() for p in model.parameters()),', '"params": sum(p.numel() for p in model.rnn.parameters()),',
        "recurrent layer alone"),
    "timing 500 sequences": ("model(test_x[:PREDICT_SEQUENCES])", "model(test_x[:500])", "covers 500 sequences"),
    "timing all test sequences": ("model(test_x[:PREDICT_SEQUENCES])", "model(test_x)", "all test sequences"),
    "dropping failed runs": (LOOP_FAILURE, "            except Exception:\n                rows.pop()\n                continue\n",
                             "dropped the failed run"),
    "dropping diverged runs": (
        STATUS, STATUS + '            if row["status"] == "diverged":\n                rows.pop()\n                continue\n',
        "dropped the diverged run"),
    "diverged runs reported as ok": (STATUS, '            row["status"] = "ok"\n', 'status "diverged"'),
    "failing run not caught": (LOOP_FAILURE, "            except ZeroDivisionError:\n                continue\n",
                               "must be caught"),
    "accuracy over blank positions": (
        "(predicted[:, delay:] == targets[:, delay:])", "(predicted == targets)", "counted the blank positions"),
    "cell calls without T": (' * settings["batch_size"] * train_x.shape[1],', ' * settings["batch_size"],', "cell_calls"),
    "training on train + test": (
        "bench.train(model, (train_x, train_y),",
        "bench.train(model, (torch.cat([train_x, test_x]), torch.cat([train_y, test_y])),", "trained on test sequences"),
    "training on the test split": ("bench.train(model, (train_x, train_y),", "bench.train(model, (test_x, test_y),",
                                   "trained on test sequences"),
    "training on train + validation": (
        "bench.train(model, (train_x, train_y),",
        'bench.train(model, (torch.cat([train_x, splits["val"][0]]), torch.cat([train_y, splits["val"][1]])),',
        "trained on validation sequences"),
    "training on validation": ("bench.train(model, (train_x, train_y),", 'bench.train(model, splits["val"],',
                               "trained on validation sequences"),
    "no seed before the build": ("            torch.manual_seed(seed)\n", "", "not built under torch.manual_seed(seed)"),
    "seeded once for all runs": (
        '    for cell, d_h in widths.items():\n        for seed in settings["seeds"]:\n            torch.manual_seed(seed)\n',
        '    torch.manual_seed(settings["seeds"][0])\n    for cell, d_h in widths.items():\n'
        '        for seed in settings["seeds"]:\n', "not built under torch.manual_seed(seed)"),
    "wrong seed": ("torch.manual_seed(seed)", "torch.manual_seed(seed + 1)", "not built under torch.manual_seed(seed)"),
    "test accuracy on training data": ('accuracy(model, test_x, test_y, settings["delay"])',
                                       'accuracy(model, train_x, train_y, settings["delay"])',
                                       "test accuracy measured on training data"),
    "matched table at equal width": (
        '"matched_params": run_comparison(bench, splits, dict(matched_widths), settings)',
        '"matched_params": run_comparison(bench, splits, {cell: d_h for cell in matched_widths}, settings)',
        "matched_params table"),
})

# name: (answer in the reference, the wrong answer, words the feedback must contain)
SHEET_MUTANTS = bank("ex08", "answers.toml", {
    "equal width means equal cost": ('equal_width_shows = "D"', 'equal_width_shows = "A"', "took equal width for equal cost"),
    "equal width credits extra parameters": (
        'equal_width_shows = "D"', 'equal_width_shows = "B"', "credited the gap to the extra parameters"),
    "equal width means nothing": ('equal_width_shows = "D"', 'equal_width_shows = "C"', "dismissed the equal-width table"),
    "equal parameters means equal time": (
        'equal_params_shows = "A"', 'equal_params_shows = "B"', "close parameter counts do not mean"),
    "equal parameters isolates the gates": (
        'equal_params_shows = "A"', 'equal_params_shows = "C"', "not leave the gates as the only difference"),
    "the wider GRU must win": ('equal_params_shows = "A"', 'equal_params_shows = "D"', "does not guarantee better accuracy"),
})

MUTANTS = CODE_MUTANTS + SHEET_MUTANTS

POINTS = 10  # what the reference earns (tests/test_submission_tables.py)
