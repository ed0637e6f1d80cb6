"""The check author's API (grader/checks.py): a check's title in both languages, gradients against finite differences."""

import ast
import re

import pytest

from conftest import ROOT
from grader.checks import agrees_with_finite_differences, remembered, title
from grader.inside import layout

CJK = re.compile(r"[\u4e00-\u9fff]")
CHECK_FILES = layout.all_checks(ROOT) + sorted((ROOT / "exercises").glob("*/test_public.py"))


def checks() -> list[tuple[str, str]]:
    """(file:line, docstring) of every check, hidden and public."""
    found = []
    for path in CHECK_FILES:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                found.append((f"{path.relative_to(ROOT)}:{node.lineno}", ast.get_docstring(node) or ""))
    return found


def test_a_title_is_the_docstring_in_two_lines():
    """Is a check's title its docstring's first line in English and its second in Chinese, and a check
    with one line titled in English in both languages?"""

    def both():
        """values match the reference
        数值与参考实现一致

        What follows a blank line is for readers of the check."""

    def english():
        """values match the reference"""

    assert (title(both).en, title(both).zh) == ("values match the reference", "数值与参考实现一致")
    assert (title(english).en, title(english).zh) == ("values match the reference",) * 2


@pytest.mark.parametrize(("where", "doc"), checks(), ids=[where for where, _ in checks()])
def test_every_check_is_titled_in_both_languages(where, doc):
    """Does this check's docstring give an English title and, on its second line, a Chinese one?"""
    lines = doc.splitlines()
    assert lines and not CJK.search(lines[0]), f"{where}: the first line is the English title"
    assert len(lines) > 1 and CJK.search(lines[1]), f"{where}: the second line is the Chinese title"


def test_finite_differences_see_a_detach_whatever_the_values():
    """Do a function's own gradients agree with finite differences of its outputs, and does a .detach() on one slice of
    an input (its gradient there missing, or None for a whole input) disagree, whatever the function computes?"""
    import torch

    g = torch.Generator().manual_seed(0)
    theta = {"a": torch.randn(3, 4, generator=g, dtype=torch.float64), "b": torch.randn(4, generator=g, dtype=torch.float64)}
    w = torch.randn(3, 4, generator=g, dtype=torch.float64)

    def project(t):
        return float((torch.tanh(t["a"] * t["b"] + 0.3) * w).sum())

    leaves = {k: v.clone().requires_grad_(True) for k, v in theta.items()}
    loss = (torch.tanh(leaves["a"] * leaves["b"] + 0.3) * w).sum()
    grads = dict(zip(leaves, torch.autograd.grad(loss, list(leaves.values()))))
    assert agrees_with_finite_differences(project, theta, grads, seed=1)
    sliced = grads | {"a": torch.cat([grads["a"][:1], torch.zeros(2, 4, dtype=torch.float64)])}
    assert not agrees_with_finite_differences(project, theta, sliced, seed=1)
    assert not agrees_with_finite_differences(project, theta, grads | {"b": None}, seed=1)


def test_remembered_runs_once_for_the_same_content_and_hands_out_copies():
    """Does a remembered function run once for arguments of the same content (tensors by dtype, shape and bytes), again
    for any other, and hand out copies that a caller may change?"""
    import torch

    runs = []

    @remembered
    def doubled(weights: dict, lr: float) -> dict:
        runs.append(lr)
        return {k: 2 * v for k, v in weights.items()}

    first = doubled({"w": torch.ones(2)}, 0.1)
    first["w"] += 1
    assert torch.equal(doubled({"w": torch.ones(2)}, 0.1)["w"], torch.full((2,), 2.0)) and runs == [0.1]
    doubled({"w": torch.ones(2, dtype=torch.float64)}, 0.1)
    doubled({"w": torch.ones(1, 2)}, 0.1)
    doubled({"w": torch.ones(2)}, 0.2)
    assert runs == [0.1, 0.1, 0.1, 0.2]
