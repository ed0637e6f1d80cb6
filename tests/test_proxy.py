"""A check's handle on a submission (grader/sandbox/proxy.py): `fn.many([...])` is the calls one after another, in one
message, and a student process that answers a batch with anything but its replies earns a StudentError of its own."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import torch

from grader.checks import call
from grader.failures import StudentError
from grader.results import Outcome
from grader.sandbox.host import Limits, Sandbox, StudentTimeout
from grader.sandbox.proxy import ExerciseProcess, StudentModule

ROOT = Path(__file__).resolve().parent.parent

PROBE = textwrap.dedent("""\
    import sys
    import time

    seen = []

    def record(x):
        print(f"record {x}")
        seen.append(x)
        if x == 3:
            raise ValueError(f"three, after {len(seen)} calls")
        return seen  # the same list each time: a reply is what it held when its call returned

    def calls():
        return list(seen)

    def hang(x):
        if x == "hang":
            while True:
                pass
        return x

    def arm(kind):
        '''From now on the runtime answers a call that returns "x" as a hostile runtime would.'''
        wire = sys.modules["grader.inside.wire"]
        pack = wire.pack

        def forged(obj):
            if not (isinstance(obj, dict) and obj.get("value") == "x"):
                return pack(obj)
            if kind == "twice":
                return pack(obj) * 2
            if kind == "junk":
                return b"\\x07" * 40
            return pack({**obj, "value": "y" * (2 << 20)})  # "huge": past what one reply may hold

        wire.pack = forged

    def echo(value):
        return value
    """)


@pytest.fixture
def probe(sandbox, tmp_path):
    """The probe module's proxy, in an exercise process of its own, one check begun."""
    (tmp_path / "probe.py").write_text(PROBE)
    process = ExerciseProcess(sandbox, tmp_path, given=[], missing=[])
    process.begin_check()
    yield StudentModule("probe", process, torch.device("cpu"))
    process.close()


def fresh(probe: StudentModule) -> None:
    """A new check of the module, in a fresh process."""
    probe._process.close()
    probe._process.begin_check()


def raised(run) -> StudentError:
    with pytest.raises(StudentError) as info:
        run()
    return info.value


def test_a_batch_runs_its_calls_in_order_and_stops_where_the_loop_would(probe):
    """Does a batch whose third call raises report what calling them one by one reports – the same error, the same
    output, the later calls not run – and is each value what its call returned, not what a later call made of it?"""
    one_by_one = raised(lambda: [probe.record(x) for x in (1, 2, 3, 4)])
    output = probe._process.get().output()
    assert probe.calls() == [1, 2, 3]

    fresh(probe)
    batched = raised(lambda: probe.record.many([call(x) for x in (1, 2, 3, 4)]))
    assert (batched.message, batched.outcome, batched.types) == (one_by_one.message, one_by_one.outcome, one_by_one.types)
    assert "three, after 3 calls" in batched.message.en and "probe.py" in batched.message.en
    assert probe._process.get().output() == output
    assert probe.calls() == [1, 2, 3]

    fresh(probe)
    assert probe.record.many([call(1), call(x=2)]) == [[1], [1, 2]]
    assert probe.record.many([]) == [] and probe.calls() == [1, 2]


def test_a_hostile_reply_to_a_batch_is_the_students_error(probe):
    """Does a student process that answers a batch with a reply twice over, junk bytes, or more than one reply may
    hold earn a StudentError that says so (its process ended), never a grader error or a value it was not asked for?"""
    cases = {
        "twice": ([call("a"), call("x"), call("b")], "malformed reply"),
        "junk": ([call("a"), call("x")], "cannot read"),
        "huge": ([call("a"), call("x")], "exceeds the limit"),
    }
    for kind, (calls, said) in cases.items():
        fresh(probe)
        probe.arm(kind)
        error = raised(lambda calls=calls: probe.echo.many(calls))
        assert error.outcome == Outcome.CRASHED and said in error.message.en, (kind, error.message.en)
        assert not probe._process.get().usable
    fresh(probe)
    probe.arm("twice")
    error = raised(lambda: probe.echo.many([call("x")]))  # the extra reply came with the batch's own
    assert "more replies than the 1 calls" in error.message.en


def test_each_reply_of_a_batch_is_bounded_as_one_call_is(probe):
    """May a batch's replies together hold what the calls could one by one, while no single reply holds more?"""
    big = "z" * (700 << 10)  # under one reply's 1 MiB of data, three of them over it
    assert probe.echo.many([call(big)] * 3) == [big] * 3
    error = raised(lambda: probe.echo.many([call("a"), call(big * 2)]))
    assert error.outcome == Outcome.CRASHED and "exceeds the limit" in error.message.en


@pytest.fixture(scope="module")
def quick():
    """A sandbox whose checks have one second each."""
    box = Sandbox.start(course_root=ROOT, device="cpu", limits=Limits(time_limit=1.0, memory_mib=1024))
    yield box
    box.close()


@pytest.mark.slow
def test_a_call_that_hangs_in_a_batch_times_out_as_one_call(quick, tmp_path):
    """Does a batch whose second call never ends time out once, on the check's limit, as that function – not called
    again, while the module's other functions still are?"""
    (tmp_path / "probe.py").write_text(PROBE)
    process = ExerciseProcess(quick, tmp_path, given=[], missing=[])
    probe = StudentModule("probe", process, torch.device("cpu"))
    try:
        process.begin_check()
        with pytest.raises(StudentTimeout, match=r"probe\.hang did not finish within the 1 s limit for this check"):
            probe.hang.many([call(1), call("hang"), call(2)])
        assert process.timed_out == {"probe.hang"}
        process.end_check()
        process.begin_check()
        error = raised(lambda: probe.hang.many([call(1)]))
        assert error.outcome == Outcome.NOT_RUN and "was not run" in error.message.en
        assert probe.echo.many([call(1), call(2)]) == [1, 2]
    finally:
        process.close()


@pytest.mark.slow
def test_an_import_sent_ahead_that_hangs_is_charged_to_its_own_module(quick, tmp_path):
    """An exercise of two code files whose first hangs at import: does a call of the second time out as that import
    (the process never reached its own), and is the first module, not the second, the one not run again – the second's
    functions still called in a later check's fresh process?"""
    (tmp_path / "first.py").write_text("while True:\n    pass\n")
    (tmp_path / "second.py").write_text("def g():\n    return 'second'\n")
    process = ExerciseProcess(quick, tmp_path, given=[], missing=[])
    second = StudentModule("second", process, torch.device("cpu"))
    try:
        process.prefetch(["first", "second"])
        process.begin_check()
        with pytest.raises(StudentTimeout, match=r"importing first\.py did not finish"):
            second.g()
        assert process.timed_out == {"first.py"}
        process.end_check()
        process.begin_check()
        assert second.g() == "second"
    finally:
        process.close()
