"""docs/adding-an-exercise.md, followed: a throwaway twelfth exercise in a copy of the course, with no change to grader/."""

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT, course_toml, mutate
from grader.cli import main
from grader.course import load_course
from grader.grading.pipeline import Grader, check_course

pytestmark = pytest.mark.slow  # a twelfth exercise added and graded

FOLDER = "ex12_peephole"
STUB = '''"""ex12: the forget gate with a peephole connection."""

from torch import Tensor


def peephole_forget(a: Tensor, c: Tensor, p: Tensor) -> Tensor:
    """f = sigmoid(a + p * c). a, c: (B, d_h) the gate's pre-activation and the previous cell state; p: (d_h,)."""
    raise NotImplementedError("ex12: implement peephole_forget")
'''
REFERENCE = STUB.replace('    raise NotImplementedError("ex12: implement peephole_forget")\n', "    return torch.sigmoid(a + p * c)\n").replace(
    "from torch import Tensor", "import torch\nfrom torch import Tensor"
)
PUBLIC = '''"""Public checks for ex12 (worth no points). Run: grade run ex12"""

import torch

from grader.checks import require, student_module

peephole = student_module("peephole")


def test_shape(peephole):
    """peephole_forget returns a (B, d_h) tensor
    peephole_forget 返回形状为 (B, d_h) 的张量"""
    got = peephole.peephole_forget(torch.zeros(2, 3), torch.zeros(2, 3), torch.zeros(3))
    require(tuple(got.shape) == (2, 3), f"peephole_forget returned shape {tuple(got.shape)}; expected (2, 3)",
            f"peephole_forget 返回的形状为 {tuple(got.shape)}，应为 (2, 3)")
'''
HIDDEN = '''"""Hidden checks for ex12: the peephole forget gate against the reference (4 points)."""

import torch

from grader.checks import Fail, check, expect_tensor, reference_module, student_module

peephole = student_module("peephole")
reference = reference_module("peephole")

NO_PEEPHOLE = ("the peephole term p * c is missing", "漏了窥视孔项 p * c")


@check(points=4)
def test_values(peephole, reference, device):
    """peephole_forget matches the reference in float64
    peephole_forget 在 float64 下与参考实现一致"""
    g = torch.Generator().manual_seed(0)
    a, c = (torch.randn(3, 4, generator=g, dtype=torch.float64) for _ in range(2))
    p = torch.randn(4, generator=g, dtype=torch.float64)
    got = expect_tensor(peephole.peephole_forget(a.to(device), c.to(device), p.to(device)),
                        name="peephole_forget()", shape=(3, 4), dtype=torch.float64).cpu()
    if not torch.allclose(got, reference.peephole_forget(a, c, p), rtol=1e-10, atol=1e-12):
        missing = torch.allclose(got, torch.sigmoid(a), rtol=1e-10, atol=1e-12)
        raise Fail("peephole_forget: wrong values (float64, batch 3, d_h 4)", "peephole_forget：数值错误（float64，批量 3，d_h 4）",
                   diagnosis=NO_PEEPHOLE if missing else ())
'''
ENTRY = """
[[exercises]]
id = "ex12"
folder = "ex12_peephole"
title = "Peephole connections"
title_zh = "窥视孔连接"
points = 4
"""


def twelve_exercise_course(tmp_path: Path) -> Path:
    """A copy of the course (course.toml, statements and stubs, references, the course tree) with ex12 added as the guide
    says: exercises/ex12_peephole/, solutions/ex12_peephole/, course/ex12/ and an entry in course.toml."""
    root = tmp_path / "course"
    for part in ("exercises", "solutions", "course"):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    (root / "course.toml").write_text(course_toml() + ENTRY)
    for folder, text in (("exercises", STUB), ("solutions", REFERENCE)):
        (root / folder / FOLDER).mkdir()
        (root / folder / FOLDER / "peephole.py").write_text(text)
    (root / "exercises" / FOLDER / "README.md").write_text("# ex12 — Peephole connections / 窥视孔连接\n")
    (root / "exercises" / FOLDER / "test_public.py").write_text(PUBLIC)
    (root / "course" / "ex12").mkdir()
    (root / "course" / "ex12" / "checks.py").write_text(HIDDEN)
    return root


def test_a_twelfth_exercise_needs_no_change_to_the_engine(tmp_path, monkeypatch):
    """Added by the guide alone, is ex12 graded: its reference full marks and its stub none (grade check's rule), a known
    mistake caught with its diagnosis, and `grade run ex12` working from the course folder?"""
    root = twelve_exercise_course(tmp_path)
    course = load_course(root)
    ex12 = course.exercise("ex12")
    (references, stubs), problems = check_course(course=dataclasses.replace(course, exercises=(ex12,)), device="cpu")
    assert problems == [] and references.score == 4 and stubs.score == 0, problems

    wrong = tmp_path / "wrong"
    (wrong / FOLDER).mkdir(parents=True)
    (wrong / FOLDER / "peephole.py").write_text(mutate(REFERENCE, "torch.sigmoid(a + p * c)", "torch.sigmoid(a)"))
    with Grader(course, [ex12], "cpu") as grader:
        [result] = grader.grade(wrong).exercises
    assert result.score == 0 and any("peephole term" in d.en for v in result.checks for d in v.diagnosis)
    assert result.heading.render("zh") == "窥视孔连接"
    assert {v.title.render("zh") for v in result.checks} == {"peephole_forget 返回形状为 (B, d_h) 的张量", "peephole_forget 在 float64 下与参考实现一致"}

    monkeypatch.chdir(root)
    done = CliRunner().invoke(main, ["run", "ex12", "--submission", "solutions", "--json"])
    assert done.exit_code == 0 and json.loads(done.output)["score"] == 4, done.output
