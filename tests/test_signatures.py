"""Stubs are contracts: every stub module defines exactly the reference's functions with equal signatures."""

import importlib.util
import inspect

import pytest

from conftest import ROOT
from grader.course import load_course

COURSE = load_course(ROOT)
PAIRS = [(exercise, name) for exercise in COURSE.exercises if exercise.available for name in exercise.student_files if name.endswith(".py")]


def public_functions(path):
    spec = importlib.util.spec_from_file_location(f"sig_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {
        name: inspect.signature(fn)
        for name, fn in vars(module).items()
        if inspect.isfunction(fn) and not name.startswith("_") and fn.__module__ == module.__name__
    }


@pytest.mark.parametrize(("exercise", "name"), PAIRS, ids=[f"{e.id}/{n}" for e, n in PAIRS])
def test_stub_signatures_equal_the_reference(exercise, name):
    """Does the stub define the reference's public functions with identical signatures?"""
    stub = public_functions(exercise.stub_dir / name)
    reference = public_functions(exercise.solution_dir / name)
    assert stub.keys() == reference.keys()
    for fn in stub:
        assert stub[fn] == reference[fn], fn


def test_there_are_code_exercises_to_compare():
    """Does the signature test actually cover something?"""
    assert any(e.id == "ex05" for e, _ in PAIRS)


@pytest.mark.parametrize("exercise", [e for e in COURSE.exercises if e.available], ids=lambda e: e.id)
def test_solutions_mirror_the_stubs_file_for_file(exercise):
    """Does solutions/<folder> hold a reference for every file a student edits?"""
    for name in exercise.student_files:
        assert (exercise.solution_dir / name).is_file(), f"{exercise.solution_dir / name} is missing"
