"""Course objects that stay in the grader (grader/sandbox/services.py): called by a student process mid-call, answered
here, believing nothing the student process sends."""

import pytest
import torch

from grader.failures import StudentError
from grader.inside.wire import Remote
from grader.sandbox import host
from grader.sandbox.host import Arguments
from grader.sandbox.services import Refusal, Service, answer, remotes

PROBE = """
import torch

def ask(clock, n):
    return [clock.call("tick") for _ in range(n)]

def ask_for(clock, method, **kwargs):
    return clock.call(method, **kwargs)

def refused(clock):
    try:
        clock.call("tick", by=-1)
    except RuntimeError as e:
        return str(e)

def forge(clock, index, method):
    from grader.inside import wire
    clock._channel.send(wire.pack({wire.CALLBACK: index, "method": method, "kwargs": {}}))
    return clock._channel.recv(deadline=None)

def flood(clock):
    while True:
        clock.call("tick")

def secrets(clock):
    return [repr(v) for v in vars(clock).values()]
"""


class Clock(Service):
    """A clock the student process can only read by asking: its step is never sent."""

    methods = frozenset({"tick"})

    def __init__(self, step: float = 0.25):
        self.step, self.now, self.asked = step, 0.0, 0

    def tick(self, by: float = 1.0) -> float:
        if by < 0:
            raise Refusal("a clock does not go back")
        self.asked += 1
        self.now += by * self.step
        return self.now

    def secret(self) -> float:  # not in `methods`: never answered
        return self.step


@pytest.fixture
def process(sandbox, tmp_path):
    (tmp_path / "probe.py").write_text(PROBE)
    process = sandbox.open(tmp_path, given=[])
    process.begin_check()
    yield process
    process.close()


def call(process, function, *args, **kwargs):
    services: list = []
    args, kwargs = remotes(list(args), services), remotes(kwargs, services)
    return process.call("probe", function, args, kwargs, None, services)["value"]


def test_calls_of_a_service_are_answered_in_the_middle_of_the_call(process):
    """Does a student function that calls a service three times get each answer, and does the service see three calls?"""
    clock = Clock()
    assert call(process, "ask", clock, 3) == [0.25, 0.5, 0.75]
    assert clock.asked == 3


def arguments(*args) -> Arguments:
    services: list = []
    return Arguments(remotes(list(args), services), {}, services)


def test_each_call_of_a_batch_has_its_services_answered_during_it(process):
    """In a batch, are a call's service calls answered after the earlier calls' replies, each with its own services –
    a call cannot reach another call's service?"""
    first, second = Clock(), Clock()
    replies = process.many("probe", "ask", [arguments(first, 2), arguments(second, 1)])
    assert [r["value"] for r in replies] == [[0.25, 0.5], [0.25]] and (first.asked, second.asked) == (2, 1)
    replies = process.many("probe", "forge", [arguments(first, 1, "tick"), arguments(second, 0, "tick")])
    assert "malformed call" in replies[0]["value"]["message"] and replies[1]["value"]["ok"]
    assert (first.asked, second.asked) == (2, 2)


def test_a_refusal_is_a_runtime_error_there_and_the_call_goes_on(process):
    """Is a service's Refusal raised as RuntimeError with its message in the student process, which can catch it?"""
    assert call(process, "refused", Clock()) == "a clock does not go back"


def test_the_student_process_holds_a_handle_and_nothing_of_the_service(process):
    """Does the student process's handle hold no state of the service (the clock's step and time stay here)?"""
    held = " ".join(call(process, "secrets", Clock(step=0.123)))
    assert "0.123" not in held


@pytest.mark.parametrize(
    ("index", "method", "said"),
    [(0, "secret", "has no method 'secret'"), (0, "__init__", "has no method"), (7, "tick", "malformed call"), ("0", "tick", "malformed call")],
)
def test_a_forged_call_is_refused_and_the_service_untouched(process, index, method, said):
    """Is a call of a method the service does not declare, or of a service that does not exist, refused with nothing run?"""
    clock = Clock()
    reply = call(process, "forge", clock, index, method)
    assert reply["ok"] is False and said in reply["message"], reply
    assert clock.asked == 0


def test_arguments_a_method_does_not_take_are_refused(process):
    """Is a call with an unknown keyword answered as a refusal (the student's call), not a grader error?"""
    with pytest.raises(StudentError, match="unexpected keyword"):
        call(process, "ask_for", Clock(), "tick", speed=2)


def test_a_flood_of_calls_stops_the_submission_not_the_grader(process, monkeypatch):
    """Does a function that calls a service without end fail as a crash once it passes the limit of calls?"""
    monkeypatch.setattr(host, "MAX_CALLBACKS", 50)
    with pytest.raises(StudentError, match="calls of the course code"):
        call(process, "flood", Clock())


def test_remotes_replace_services_inside_injects_and_containers():
    """Does `remotes` find services inside lists, dicts and an Inject's arguments, in order?"""
    from grader.checks import inject

    a, b = Clock(), Clock()
    found: list = []
    got = remotes([{"x": a}, inject("bench", service=b), (1, torch.ones(1))], found)
    assert found == [a, b] and got[0] == {"x": Remote(0)} and got[1].args == {"service": Remote(1)}


def test_answer_reads_nothing_but_a_well_formed_call():
    """Does `answer` refuse a message whose kwargs are not a str-keyed dict, without calling anything?"""
    clock = Clock()
    assert answer([clock], {"callback": 0, "method": "tick", "kwargs": {1: 2}})["ok"] is False
    assert answer([clock], {"callback": 0, "method": "tick", "kwargs": []})["ok"] is False
    assert clock.asked == 0
