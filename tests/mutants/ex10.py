"""ex10's known mistakes, in the sweep and the selection (sweep.py) and on the answer sheet."""

from . import bank

STATUS = '                    status = "ok" if math.isfinite(result["final_loss"]) else "diverged"\n'
FAILED_ROW = '                        rows.append(row | {"status": "failed"} | {key: None for key in MEASURED})\n'

# name: (text in the reference, the mistake, words the feedback must contain)
CODE_MUTANTS = bank("ex10", "sweep.py", {
    "selecting on test accuracy": ('_means(rows, "val_acc").items()', '_means(rows, "test_acc").items()',
                                   "selected on test accuracy"),
    "dropping diverged rows": (STATUS, STATUS + '                    if status == "diverged":\n                        continue\n',
                               "dropped the diverged run"),
    "dropping failed rows": (FAILED_ROW, "                        pass\n", "dropped the failed run"),
    "failing run not caught": ("except Exception:", "except KeyError:", "must be caught"),
    "only NaN counts as diverged": ('math.isfinite(result["final_loss"])', 'not math.isnan(result["final_loss"])',
                                    "infinite final loss"),
    "failed run with accuracies 0": ('{"status": "failed"} | {key: None for key in MEASURED}',
                                     '{"status": "failed"} | {key: 0.0 for key in MEASURED}', "not 0: nothing was measured"),
    "report fields dropped": ('{key: result[key] for key in MEASURED}', '{key: result[key] for key in MEASURED[:3]}',
                              "train_seconds, predict_seconds, peak_memory, grad_norm, updates as train_fn returned them"),
    "a loss threshold for divergence": ('math.isfinite(result["final_loss"])', 'result["final_loss"] < 1.0',
                                        "every real run trains to a finite loss"),
    "one seed for every run": ("result = train_fn(model, length, lr, seed)", "result = train_fn(model, length, lr, seeds[0])",
                               "another seed's outcome"),
    "best seed instead of the mean": ("{lr: sum(v) / len(v) for lr, v in by_lr.items()}", "{lr: max(v) for lr, v in by_lr.items()}",
                                      "the best seed instead of the mean over seeds"),
    "summary reports the best seed's test accuracy": (
        '"test_acc": test[(model, length)][lr],',
        '"test_acc": max(_counted(r, "test_acc") for r in mine if r["lr"] == lr),',
        "the best seed instead of the mean over seeds"),
    "ties to the larger lr": ("by_lr[lr] > by_lr[best]", "by_lr[lr] >= by_lr[best]", "tie went to the larger lr"),
    "ties by grid order": ("for lr in sorted(by_lr):", "for lr in by_lr:", "tie went to the larger lr"),
    "diverged accuracy counted": ('return row[metric] if row["status"] == "ok" else 0.0',
                                  'return row[metric] if row["status"] != "failed" else 0.0', "diverged run's accuracy"),
    "failed run left out of the mean": ("    for row in rows:\n        runs.setdefault",
                                        '    for row in [r for r in rows if r["status"] != "failed"]:\n        runs.setdefault',
                                        "failed run was left out"),
    "summary reports the best test accuracy": ('"test_acc": test[(model, length)][lr],',
                                               '"test_acc": max(test[(model, length)].values()),',
                                               "best test accuracy over all lrs"),
    "summary counts one lr only": ('"diverged": sum(r["status"] == "diverged" for r in mine),',
                                   '"diverged": sum(r["status"] == "diverged" for r in mine if r["lr"] == lr),',
                                   "all lrs"),
    "length without a fixed tail": ("make_splits(sizes, length + TAIL, length, vocab, seed)",
                                    "make_splits(sizes, length, length, vocab, seed)", "T is not length + 8"),
    "delay off by one": ("make_splits(sizes, length + TAIL, length, vocab, seed)",
                         "make_splits(sizes, length + TAIL, length - 1, vocab, seed)", "the dependency length is the delay"),
    "sizes grow with length": ("make_splits(sizes, length + TAIL, length, vocab, seed)",
                               "make_splits({k: n * length for k, n in sizes.items()}, length + TAIL, length, vocab, seed)",
                               "same split sizes"),
})

# name: (answer in the reference, the wrong answer, words the feedback must contain)
SHEET_MUTANTS = bank("ex10", "answers.toml", {
    "longer time means harder optimisation": (
        'time_vs_length = "C"', 'time_vs_length = "A"', "read training time as optimisation difficulty"),
    "time as a memory artefact": ('time_vs_length = "C"', 'time_vs_length = "B"', "called the rise a memory artefact"),
    "time is noise": ('time_vs_length = "C"', 'time_vs_length = "D"', "systematic"),
    "drop failed runs": ('failed_runs = "B"', 'failed_runs = "A"', "hides exactly the instability"),
    "rerun until success": ('failed_runs = "B"', 'failed_runs = "C"', "rerunning until a seed succeeds"),
    "tune only the failing model": ('failed_runs = "B"', 'failed_runs = "D"', "same lr grid"),
})

MUTANTS = CODE_MUTANTS + SHEET_MUTANTS
