"""Whatever plain value a student's function returns, every check fails it cleanly: never an internal grader error."""

import ast

import pytest

from conftest import earned

CODE_EXERCISES = ["ex04", "ex05", "ex06", "ex07", "ex08", "ex09", "ex10"]
# Values that once crashed a check, and the odd cases around them (each must cross the wire).
VALUES = {
    "a two-element tensor": "torch.zeros(2, dtype=torch.int64)",
    "an empty tensor": "torch.zeros(0)",
    "a dict with unsortable keys": "{(1,): 0, 1.5: 0}",
    "NaN": "float('nan')",
    "a nested list": "[[[]], {}, ()]",
}


def every_function_returns(stub: str, expression: str) -> str:
    """The stub with each function's body replaced by `return <expression>`."""
    tree = ast.parse(stub)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            node.body = [ast.parse(f"return {expression}").body[0]]
    return "import torch\n" + ast.unparse(tree)


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("exercise_id", CODE_EXERCISES)
@pytest.mark.slow
def test_odd_return_values_fail_cleanly(grade, course, exercise_id, value):
    """Does every function returning this value lose all the exercise's points, with no internal error (the fixture
    asserts that)?"""
    exercise = course.exercise(exercise_id)
    files = {}
    for name in exercise.student_files:
        stub = (exercise.stub_dir / name).read_text()
        files[name] = every_function_returns(stub, VALUES[value]) if name.endswith(".py") else stub
    result = grade(exercise_id, files)
    assert earned(result) == {}
