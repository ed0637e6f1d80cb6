"""Course objects that stay in the grader while a student process uses them: ex08's bench, ex10's trainer.

A check passes a `Service` inside an argument (usually inside an `Inject`: the given code wraps it for the
student); the student process gets a handle whose `call(method, **kwargs)` comes back here, in the middle of
the call, and is answered before the call goes on. So what the service keeps – its clock, its record of
every call, the outcomes it has scripted, the weights it hands out – never enters the student process, and
the checks read the service itself afterwards: the only record of what happened that they believe.

Whatever a call carries was written by the student process: a method checks what it uses, bounds the work and the
memory it spends on it, and raises `Refusal` for what it cannot take, which the student process sees as a
RuntimeError; anything else a method raises is answered the same way, so that no call can stop the grader or leave
the channel out of step. The check's deadline covers the calls: none is answered after it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from grader.inside.wire import Inject, Remote, map_leaves

# Calls of course objects one call of a submission may make: past this, the submission is stopped.
MAX_CALLBACKS = 100_000


class Service:
    """A course object the student process calls and the grader keeps: only the names in `methods` are answered."""

    methods: ClassVar[frozenset[str]] = frozenset()


class Refusal(Exception):
    """A service's answer that is not a value: raised as RuntimeError, with this message, in the student process."""


def remotes(obj: object, found: list[Service], injects: list[Inject] | None = None) -> object:
    """`obj` with every Service (inside lists, tuples, dicts and Inject arguments too) replaced by a `Remote` to its
    index in `found`, to which it is appended; each Inject of `obj` itself (not of another's arguments) is appended to
    `injects`."""

    def leaf(value: object) -> object:
        if isinstance(value, Service):
            found.append(value)
            return Remote(len(found) - 1)
        if isinstance(value, Inject):
            if injects is not None:
                injects.append(value)
            return Inject(value.name, {k: remotes(v, found) for k, v in value.args.items()})
        return value

    return map_leaves(obj, leaf)


def answer(services: list[Service], message: dict[str, Any]) -> dict[str, Any]:
    """The answer to one call the student process made of a service: {"ok": True, "value"} or {"ok": False, "message"}."""
    index, method, kwargs = message.get("callback"), message.get("method"), message.get("kwargs")
    if not (
        type(index) is int and 0 <= index < len(services) and isinstance(method, str) and isinstance(kwargs, dict) and all(isinstance(k, str) for k in kwargs)
    ):
        return {"ok": False, "message": "a malformed call of the course code"}
    service = services[index]
    if method not in service.methods:
        return {"ok": False, "message": f"the course code has no method {method[:100]!r}"}
    try:
        return {"ok": True, "value": getattr(service, method)(**kwargs)}
    except Refusal as e:
        return {"ok": False, "message": str(e)}
    except Exception as e:  # noqa: BLE001 – what the call's arguments, written by the student process, set off
        return {"ok": False, "message": f"{method}: the course code could not take this call ({type(e).__name__}: {str(e)[:200]})"}
