"""ex10's known mistakes, in the sweep and the selection (sweep.py) and on the answer sheet, and its tables of other
submissions (tests/test_submission_tables.py)."""

from mutants import bank, mutate, reference, submission

STATUS = '                    status = "ok" if math.isfinite(result["final_loss"]) else "diverged"\n'
FAILED_ROW = '                        rows.append(row | {"status": "failed"} | {key: None for key in MEASURED})\n'
CALL = """                for seed in seeds:
                    row = {"model": model, "length": length, "lr": lr, "seed": seed}
                    try:
                        result = train_fn(model, length, lr, seed)
"""
MEANS = """    for row in rows:
        runs.setdefault((row["model"], row["length"]), {}).setdefault(row["lr"], []).append(_counted(row, metric))
    return {key: {lr: sum(v) / len(v) for lr, v in by_lr.items()} for key, by_lr in runs.items()}
"""
# a reviewer's _means that leaves runs of one status out of the mean, an lr left without runs counting 0
LEFT_OUT = """    for row in rows:
        lst = runs.setdefault((row["model"], row["length"]), {{}}).setdefault(row["lr"], [])
        if row["status"] != "{status}":
            lst.append(_counted(row, metric))
    return {{key: {{lr: (sum(v) / len(v) if v else 0.0) for lr, v in by_lr.items()}} for key, by_lr in runs.items()}}
"""

# name: (text in the reference, the mistake, words the feedback must contain)
CODE_MUTANTS = bank(
    "ex10",
    "sweep.py",
    {
        "selecting on test accuracy": ('_means(rows, "val_acc").items()', '_means(rows, "test_acc").items()', "selected on test accuracy"),
        "selecting on the mean of validation and test accuracy": (
            '    chosen = {}\n    for key, by_lr in _means(rows, "val_acc").items():\n',
            '    chosen = {}\n    test = _means(rows, "test_acc")\n    for key, by_lr in _means(rows, "val_acc").items():\n'
            "        by_lr = {lr: (v + test[key][lr]) / 2 for lr, v in by_lr.items()}\n",
            "selected on test accuracy",
        ),
        "test accuracy breaking ties": (
            "            if best is None or by_lr[lr] > by_lr[best]:\n",
            "            test = _means(rows, 'test_acc')[key]\n"
            "            if best is None or by_lr[lr] > by_lr[best] or (by_lr[lr] == by_lr[best] and test[lr] > test[best]):\n",
            "selected on test accuracy",
        ),
        "dropping diverged rows": (
            STATUS,
            STATUS + '                    if status == "diverged":\n                        continue\n',
            "dropped the diverged run",
        ),
        "dropping failed rows": (FAILED_ROW, "                        pass\n", "dropped the failed run"),
        "failing run not caught": ("except Exception:", "except KeyError:", "must be caught"),
        "only NaN counts as diverged": ('math.isfinite(result["final_loss"])', 'not math.isnan(result["final_loss"])', "infinite final loss"),
        "failed run with accuracies 0": (
            '{"status": "failed"} | {key: None for key in MEASURED}',
            '{"status": "failed"} | {key: 0.0 for key in MEASURED}',
            "not 0: nothing was measured",
        ),
        "report fields dropped": (
            "{key: result[key] for key in MEASURED}",
            "{key: result[key] for key in MEASURED[:3]}",
            "train_seconds, predict_seconds, peak_memory, grad_norm, updates as train_fn returned them",
        ),
        "a loss threshold for divergence": ('math.isfinite(result["final_loss"])', 'result["final_loss"] < 1.0', "every real run trains to a finite loss"),
        "one seed for every run": ("result = train_fn(model, length, lr, seed)", "result = train_fn(model, length, lr, seeds[0])", "another seed's outcome"),
        "the seed's index passed to train_fn": (
            CALL,
            CALL.replace("for seed in seeds:", "for run, seed in enumerate(seeds):").replace(
                "train_fn(model, length, lr, seed)", "train_fn(model, length, lr, run)"
            ),
            "another seed's outcome",
        ),
        "median over seeds instead of the mean": (
            "{lr: sum(v) / len(v) for lr, v in by_lr.items()}",
            '{lr: __import__("statistics").median(v) for lr, v in by_lr.items()}',
            "the median over seeds instead of the mean",
        ),
        "best seed instead of the mean": (
            "{lr: sum(v) / len(v) for lr, v in by_lr.items()}",
            "{lr: max(v) for lr, v in by_lr.items()}",
            "the best seed instead of the mean over seeds",
        ),
        "summary reports the best seed's test accuracy": (
            '"test_acc": test[(model, length)][lr],',
            '"test_acc": max(_counted(r, "test_acc") for r in mine if r["lr"] == lr),',
            "the best seed instead of the mean over seeds",
        ),
        "summary reports the best seed's validation accuracy": (
            '"val_acc": val[(model, length)][lr],',
            '"val_acc": max(_counted(r, "val_acc") for r in mine if r["lr"] == lr),',
            "val_acc is the mean validation accuracy over seeds",
        ),
        "ties to the larger lr": ("by_lr[lr] > by_lr[best]", "by_lr[lr] >= by_lr[best]", "tie went to the larger lr"),
        "ties by grid order": ("for lr in sorted(by_lr):", "for lr in by_lr:", "tie went to the larger lr"),
        "diverged accuracy counted": (
            'return row[metric] if row["status"] == "ok" else 0.0',
            'return row[metric] if row["status"] != "failed" else 0.0',
            "diverged run's accuracy",
        ),
        "failed run left out of the mean": (
            "    for row in rows:\n        runs.setdefault",
            '    for row in [r for r in rows if r["status"] != "failed"]:\n        runs.setdefault',
            "failed run was left out",
        ),
        "failed run left out of the mean, an empty lr counting 0": (MEANS, LEFT_OUT.format(status="failed"), "failed run was left out"),
        "diverged run left out of the mean": (MEANS, LEFT_OUT.format(status="diverged"), "diverged run was left out"),
        "summary leaves the failed run out of its test mean": (
            'val, test = _means(rows, "val_acc"), _means(rows, "test_acc")',
            'val, test = _means(rows, "val_acc"), _means([r for r in rows if r["status"] != "failed"], "test_acc")',
            "failed run was left out",
        ),
        "summary counts the diverged run's test accuracy": (
            'val, test = _means(rows, "val_acc"), _means(rows, "test_acc")',
            'val, test = _means(rows, "val_acc"), _means([r | {"status": "ok"} if r["status"] == "diverged" else r for r in rows], "test_acc")',
            "diverged run's accuracy was counted",
        ),
        "summary reports the best test accuracy": (
            '"test_acc": test[(model, length)][lr],',
            '"test_acc": max(test[(model, length)].values()),',
            "best test accuracy over all lrs",
        ),
        "summary counts one lr only": (
            '"diverged": sum(r["status"] == "diverged" for r in mine),',
            '"diverged": sum(r["status"] == "diverged" for r in mine if r["lr"] == lr),',
            "all lrs",
        ),
        "length without a fixed tail": (
            "make_splits(sizes, length + TAIL, length, vocab, seed)",
            "make_splits(sizes, length, length, vocab, seed)",
            "T is not length + 8",
        ),
        "delay off by one": (
            "make_splits(sizes, length + TAIL, length, vocab, seed)",
            "make_splits(sizes, length + TAIL, length - 1, vocab, seed)",
            "the dependency length is the delay",
        ),
        "sizes grow with length": (
            "make_splits(sizes, length + TAIL, length, vocab, seed)",
            "make_splits({k: n * length for k, n in sizes.items()}, length + TAIL, length, vocab, seed)",
            "same split sizes",
        ),
    },
)

# One lr pooled over lengths: each model's means over seeds averaged over its lengths, one lr for all of them. The check
# on mean validation accuracy charges it; the failure and tie checks judge the select_lr on each pair's rows alone.
SELECT_LOOP = '    chosen = {}\n    for key, by_lr in _means(rows, "val_acc").items():\n'
POOLED_LOOP = (
    '    chosen = {}\n    means = _means(rows, "val_acc")\n    pooled = {}\n    for (model, _), by_lr in means.items():\n'
    "        for lr, m in by_lr.items():\n            pooled.setdefault(model, {}).setdefault(lr, []).append(m)\n"
    "    for key in means:\n        by_lr = {lr: sum(v) / len(v) for lr, v in pooled[key[0]].items()}\n"
)
CODE_MUTANTS += bank("ex10", "sweep.py", {"one lr pooled over lengths": (SELECT_LOOP, POOLED_LOOP, "one lr pooled over lengths")})

# name: (answer in the reference, the wrong answer, words the feedback must contain)
SHEET_MUTANTS = bank(
    "ex10",
    "answers.toml",
    {
        "longer time means harder optimisation": ('time_vs_length = "C"', 'time_vs_length = "A"', "read training time as optimisation difficulty"),
        "time as a memory artefact": ('time_vs_length = "C"', 'time_vs_length = "B"', "called the rise a memory artefact"),
        "time is noise": ('time_vs_length = "C"', 'time_vs_length = "D"', "systematic"),
        "diverged runs as lr noise": ('failed_runs = "B"', 'failed_runs = "A"', "hides exactly the instability"),
        "dropping as counting 0": ('failed_runs = "B"', 'failed_runs = "C"', "took dropping a run for counting it as 0"),
        "dropping fair when symmetric": ('failed_runs = "B"', 'failed_runs = "D"', "misreports both cells alike"),
    },
)

MUTANTS = CODE_MUTANTS + SHEET_MUTANTS

REFERENCE = reference("ex10")["sweep.py"]

# name: (files in the reference folder's place, the points it costs): a misconception on the answer sheet costs
# exactly its share, 0.5 (its diagnosis: tests/test_mutants.py)
COSTS = {m.name: (submission(m), 0.5) for m in SHEET_MUTANTS} | {
    # a selection mistake costs the one judged pair where it alone picks another lr: 1.5 / 3 or 1 / 3
    **{
        name: (submission(m), cost)
        for m in CODE_MUTANTS
        for name, cost in {
            "selecting on the mean of validation and test accuracy": 0.5,
            "median over seeds instead of the mean": 0.5,
            "best seed instead of the mean": 0.5,
            "diverged run left out of the mean": 1 / 3,
            "failed run left out of the mean, an empty lr counting 0": 1 / 3,
            # every row holds another seed's outcome: the values half of the full grid check, nothing else
            "the seed's index passed to train_fn": 1.0,
        }.items()
        if m.name == name
    },
}

# name of a known mistake: the one check that must charge it (a summarize that reports what its own, test-selecting
# select_lr chose keeps the summary point, and so does one whose test accuracy is averaged as its select_lr averages;
# a row holding another seed's outcome keeps the status it shows)
CHARGED_ONCE = {
    "selecting on test accuracy": "select_lr picks",
    "selecting on the mean of validation and test accuracy": "select_lr picks",
    "best seed instead of the mean": "select_lr picks",
    "median over seeds instead of the mean": "select_lr picks",
    "diverged accuracy counted": "In select_lr's means",
    "failed run left out of the mean": "In select_lr's means",
    "failed run left out of the mean, an empty lr counting 0": "In select_lr's means",
    "diverged run left out of the mean": "In select_lr's means",
    "one seed for every run": "run_sweep: one row",
    "the seed's index passed to train_fn": "run_sweep: one row",
    # the failure and tie checks, the summary and the real sweep judge it on each pair's rows alone
    "one lr pooled over lengths": "select_lr picks",
}

# Odd but plausible values in what the submission returns: a Fail naming the value, never an internal error; a
# select_lr keyed by "model|length" strings is told that the contract is (model, length) tuples.
# name: (text in the reference, the change, words the feedback must contain)
HOSTILE = bank(
    "ex10",
    "sweep.py",
    {
        "lr as a list in the rows": (
            'row = {"model": model, "length": length, "lr": lr, "seed": seed}',
            'row = {"model": model, "length": length, "lr": [lr], "seed": seed}',
            "run_sweep: row 0['lr']: expected int or float or None, got list",
        ),
        "select_lr values as lists": (
            "        chosen[key] = best\n",
            "        chosen[key] = [best]\n",
            'select_lr()[("gru", 4)]: expected int or float, got list',
        ),
        "summary runs as the list of rows": ('"runs": len(mine),', '"runs": mine,', "summarize: entry 0['runs']: expected"),
        "summary model as a list": (
            '"model": model, "length": length, "lr": lr,\n',
            '"model": [model], "length": length, "lr": lr,\n',
            "summarize: entry 0['model']: expected str or None, got list",
        ),
        "split sizes as tensors": (
            "make_splits(sizes, length + TAIL, length, vocab, seed)",
            'make_splits({k: __import__("torch").tensor([n, n]) for k, n in sizes.items()}, length + TAIL, length, vocab, seed)',
            "['sizes']['train']: expected int or float, got Tensor",
        ),
        "select_lr keyed by strings": ("        chosen[key] = best\n", '        chosen[f"{key[0]}|{key[1]}"] = best\n', "(model, length) tuples"),
    },
)

SWEEP = """TAIL = 8

def length_data(make_splits, lengths, sizes, vocab, seed):
    return {data}

def run_sweep(train_fn, models, lengths, lrs, seeds):
    return {rows}

def select_lr(rows):
    return {chosen}

def summarize(rows):
    return {summary}
"""
GRID = "[dict(model=m, length=n, lr=lr, seed=s{extra}) for m in models for n in lengths for lr in lrs for s in seeds]"
# Submissions that compute nothing (the sheet is the unanswered stub's): each earns nothing. The grid of rows
# that never called train_fn, the all-"ok" statuses and the smallest lr (which wins the scripted tie) earn
# nothing either; nor does 0.01, which is the right lr of every scripted (model, length) but the tied one.
# name: files in the stub folder's place
DEGENERATE = {
    "empty results": {"sweep.py": SWEEP.format(data="[]", rows="[]", chosen="{}", summary="[]")},
    "returns its input": {"sweep.py": SWEEP.format(data="lengths", rows=GRID.format(extra=""), chosen="rows", summary="rows")},
    "constant rows and the smallest lr": {
        "sweep.py": SWEEP.format(
            data="[make_splits(sizes, TAIL, 0, vocab, seed) for _ in lengths]",
            rows=GRID.format(extra=", status='ok', val_acc=0.0, test_acc=0.0"),
            chosen="{(r['model'], r['length']): min(q['lr'] for q in rows) for r in rows}",
            summary="[]",
        )
    },
    "a constant lr": {"sweep.py": SWEEP.format(data="[]", rows="[]", chosen="{(r['model'], r['length']): 0.01 for r in rows}", summary="[]")},
    "invented rows that differ from call to call": {
        "sweep.py": "import itertools\n\nCALLS = itertools.count()\n"
        + SWEEP.format(data="[]", rows=GRID.format(extra=", status='ok', val_acc=0.5, test_acc=0.5, call=next(CALLS)"), chosen="{}", summary="[]")
    },
}

# select_lr and summarize that read every key the statement promises a row (final_loss included), and hold it to its
# status: the rows the grader hands them (the reference run_sweep's, and its control pairs) must be such rows – none
# lacks a key or contradicts its status – so this earns every point.
READS_EVERY_KEY = '''

def _promised(row):
    """Every key the statement promises, consistent with the row's status (a KeyError or AssertionError otherwise)."""
    values = [row[k] for k in ("model", "length", "lr", "seed", "status", *MEASURED)]
    if row["status"] == "failed":
        assert all(row[k] is None for k in MEASURED), row
    else:
        assert math.isfinite(row["final_loss"]) == (row["status"] == "ok"), row
    return values
'''
READING_EVERY_KEY = (
    mutate(
        mutate(REFERENCE, "def select_lr(rows: list[dict]) -> dict:\n", "def select_lr(rows: list[dict]) -> dict:\n    [_promised(row) for row in rows]\n"),
        "    chosen = select_lr(rows)\n",
        "    [_promised(row) for row in rows]\n    chosen = select_lr(rows)\n",
    )
    + READS_EVERY_KEY
)
# name: files in the reference folder's place; each earns full marks
ACCEPTED = {"select_lr and summarize that read every promised key": {"sweep.py": READING_EVERY_KEY}}
