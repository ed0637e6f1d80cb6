"""The banks of known mistakes: the machinery here, the data in the course tree, one module per exercise
(`course/<id>/mutants.py`, importable as `mutants.<id>`), each a list of `Mutant`.

tests/test_mutants.py grades every mutant and asserts it loses points with its diagnosis named, and earns on each check
what the ledger (tests/mutant_ledger.toml, read and written here) says; bench/gpu_check.py runs the same banks on CUDA.
Beside its bank, a module holds tables of other submissions built for one question each (accepted forms, degenerate and
hostile submissions, what a mistake costs...), which tests/test_submission_tables.py grades. Nothing here imports pytest or torch.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

from grader.course import Course, load_course
from grader.inside import layout
from grader.results import ExerciseResult

ROOT = Path(__file__).resolve().parents[1]
LEDGER_PATH = "tests/mutant_ledger.toml"  # what every mutant earns on each check, as the bank tests hold it
LEDGER = ROOT / LEDGER_PATH
REWRITE_LEDGER = "python -m pytest tests/test_mutants.py -k ledger --update-ledger"


@dataclass(frozen=True)
class Mutant:
    """One known mistake: `old` replaced by `new` in the reference `file`; a failed check must name `diagnosis`."""

    exercise: str
    file: str
    old: str
    new: str
    diagnosis: str
    name: str

    @property
    def id(self) -> str:
        return f"{self.exercise}: {self.name}"


def bank(exercise: str, file: str, mistakes: dict[str, tuple[str, str, str]]) -> list[Mutant]:
    """The mutants of one reference file, from {name: (text in the reference, the mistake, words the feedback must contain)}."""
    return [Mutant(exercise, file, old, new, diagnosis, name) for name, (old, new, diagnosis) in mistakes.items()]


def mutate(source: str, old: str, new: str) -> str:
    """The reference with one mistake put in; fails loudly if the reference no longer has `old`."""
    assert old in source, f"mutant no longer applies: {old!r} is not in the reference"
    return source.replace(old, new)


def with_answers(sheet: str, **answers: str) -> str:
    """`sheet` with the answers to these keys replaced by TOML texts; fails loudly if a key has no single line."""
    for key, value in answers.items():
        line = re.compile(rf"^{re.escape(key)} = .*$", re.MULTILINE)
        assert len(line.findall(sheet)) == 1, f"the sheet has no single line for {key}"
        sheet = line.sub(lambda _, text=f"{key} = {value}": text, sheet)
    return sheet


@cache
def course() -> Course:
    return load_course(ROOT)


def reference(exercise_id: str) -> dict[str, str]:
    """{file name: text} of every file a student hands in for the exercise, as its reference folder (solutions/) has it."""
    exercise = course().exercise(exercise_id)
    return {name: (exercise.solution_dir / name).read_text(encoding="utf-8") for name in exercise.student_files}


def stub(exercise_id: str) -> dict[str, str]:
    """{file name: text} of every file a student hands in for the exercise, as its stub folder (exercises/) has it."""
    exercise = course().exercise(exercise_id)
    return {name: (exercise.stub_dir / name).read_text(encoding="utf-8") for name in exercise.student_files}


def submission(mutant: Mutant) -> dict[str, str]:
    """{file name: text} of the mutant's submission: its exercise's reference folder with the one file changed."""
    exercise = course().exercise(mutant.exercise)
    files = reference(mutant.exercise)
    assert mutant.file in files, f"{mutant.id}: {mutant.file} is not a file of {exercise.folder}"
    files[mutant.file] = mutate(files[mutant.file], mutant.old, mutant.new)
    return files


def named(exercise: str, name: str) -> Mutant:
    """The known mistake of `exercise` called `name`, for a test that grades it for another reason."""
    return next(m for m in ALL if m.exercise == exercise and m.name == name)


def costs(result: ExerciseResult) -> dict[str, float]:
    """{check name: points earned} for every check of a graded exercise worth points (a public check, worth none, costs
    nothing): a mutant's lines in the ledger."""
    graded = [v for v in result.checks if v.points]
    found = {v.name: float(v.earned) for v in graded}
    assert len(found) == len(graded), f"{result.exercise}: two checks share a title; the ledger tells checks apart by it"
    return found


def moved(before: dict[str, float], now: dict[str, float]) -> list[str]:
    """A line for each check whose points differ between two of a mutant's {check name: points} (its ledger line
    `before`, a grading `now`), saying both – and where it earns more now, that the check may be weaker."""
    return [
        f"  {check!r}: {before.get(check, 'no such check')} in the ledger, {now.get(check, 'no such check')} now"
        + (" (it keeps more: is the check weaker?)" if now.get(check, 0) > before.get(check, math.inf) else "")
        for check in sorted(before.keys() | now.keys())
        if check not in before or check not in now or not math.isclose(before[check], now[check], rel_tol=0, abs_tol=1e-9)
    ]


def read_ledger() -> dict[str, dict[str, float]]:
    """{mutant id: {check name: points earned}}, as tests/mutant_ledger.toml holds it ({} before it is first written)."""
    return tomllib.loads(LEDGER.read_text(encoding="utf-8")) if LEDGER.exists() else {}


def _quoted(text: str) -> str:
    """`text` as a TOML key: a JSON string (its escapes are TOML's too)."""
    return json.dumps(text, ensure_ascii=False)


def write_ledger(entries: dict[str, dict[str, float]]) -> None:
    """tests/mutant_ledger.toml holding `entries`: one line a mutant and check (`"mutant id"."check name" = points`, so
    that each line of a diff says whose points moved), sorted, a blank line between mutants; read back to prove it."""
    blocks = ["\n".join(f"{_quoted(mutant)}.{_quoted(check)} = {points!r}" for check, points in sorted(entries[mutant].items())) for mutant in sorted(entries)]
    text = (
        "# What each known mistake (tests/mutants.py's ALL) earns on each check of its exercise worth points, as\n"
        "# tests/test_mutants.py grades it. After a deliberate change to a check or a bank, rewritten by\n"
        f"# {REWRITE_LEDGER}\n# and its diff reviewed: a mutant that earns more than before is a check made weaker.\n\n" + "\n\n".join(blocks) + "\n"
    )
    assert tomllib.loads(text) == entries, "the ledger would not read back as written"
    LEDGER.write_text(text, encoding="utf-8")


def _bank_module(exercise_id: str) -> ModuleType:
    """course/<id>/mutants.py, imported from its path as `mutants.<id>` (so that `from mutants import ex05` and
    `from mutants.ex08 import NO_ROWS` find it)."""
    name = f"{__name__}.{exercise_id}"
    spec = importlib.util.spec_from_file_location(name, layout.part(ROOT, exercise_id, layout.MUTANTS))
    assert spec is not None and spec.loader is not None, f"{exercise_id} has no bank of known mistakes"
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    globals()[exercise_id] = module
    return module


ALL: list[Mutant] = [m for e in course().exercises for m in _bank_module(e.id).MUTANTS]
