"""Plain-data messages between the grader and a student process: JSON plus safetensors, never pickle.

A message is a 16-byte header (JSON length, tensor-blob length), a JSON document in which each
tensor is replaced by `{"$tensor": name}` (and each `Inject` by `{"$inject": name, "args": ...}`),
and one safetensors blob holding those tensors.
Both sides use this module; unpacking only ever builds dicts, lists, strings, numbers, tensors and
inert `Inject` records (which only the student process turns into code, from grader.injected).
"""

from __future__ import annotations

import json
import socket
import struct
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

_HEADER = struct.Struct("<QQ")
_TENSOR = "$tensor"
_INJECT = "$inject"


class WireError(ValueError):
    """A value that cannot cross the process boundary, or bytes that are not a valid message."""


@dataclass(frozen=True)
class Inject:
    """A stand-in for public course code built inside the student process (see grader.injected)."""

    name: str
    args: dict = field(default_factory=dict)


def pack(obj: object) -> bytes:
    """Encode `obj` (tensors, numbers, strings, booleans, None, and lists/tuples/dicts of those)."""
    tensors: dict = {}
    doc = _flatten(obj, tensors, "value")
    body = json.dumps(doc, allow_nan=True).encode()
    blob = b""
    if tensors:
        from safetensors.torch import save

        blob = save(tensors)
    return _HEADER.pack(len(body), len(blob)) + body + blob


def unpack(data: bytes) -> object:
    """Decode a whole message made by `pack`; anything malformed is a WireError."""
    if len(data) < _HEADER.size:
        raise WireError("truncated message")
    body_len, blob_len = _HEADER.unpack_from(data)
    if _HEADER.size + body_len + blob_len != len(data):
        raise WireError("message length does not match its header")
    body = data[_HEADER.size : _HEADER.size + body_len]
    blob = data[_HEADER.size + body_len :]
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError) as e:
        raise WireError(f"not a valid message: {e}") from None
    tensors = {}
    if blob:
        from safetensors.torch import load

        try:
            tensors = load(blob)
        except Exception as e:  # safetensors raises its own error types for corrupt blobs
            raise WireError(f"tensor data is not valid safetensors: {e}") from None
    try:
        return _restore(doc, tensors)
    except RecursionError:
        raise WireError("message nested too deeply") from None


def map_leaves(obj: object, fn: Callable[[object], object]) -> object:
    """`obj` with lists and dicts rebuilt and `fn` applied to everything else: the shape messages carry."""
    if isinstance(obj, list):
        return [map_leaves(v, fn) for v in obj]
    if isinstance(obj, dict):
        return {k: map_leaves(v, fn) for k, v in obj.items()}
    return fn(obj)


def leaves(obj: object) -> Iterator[object]:
    """Everything in `obj` that is not a list or a dict, in order."""
    if isinstance(obj, list):
        for v in obj:
            yield from leaves(v)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from leaves(v)
    else:
        yield obj


def recv(sock: socket.socket, *, timeout: float | None, limit: int) -> object:
    """Read one message; TimeoutError past `timeout` seconds, EOFError if the peer is gone."""
    deadline = None if timeout is None else time.monotonic() + timeout
    head = _read_exact(sock, _HEADER.size, deadline)
    body_len, blob_len = _HEADER.unpack(head)
    if body_len + blob_len > limit:
        raise WireError(f"message of {body_len + blob_len} bytes exceeds the limit of {limit} bytes")
    return unpack(head + _read_exact(sock, body_len + blob_len, deadline))


def _read_exact(sock: socket.socket, n: int, deadline: float | None) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            sock.settimeout(remaining)
        else:
            sock.settimeout(None)
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise EOFError
        buf += chunk
    return bytes(buf)


def _flatten(obj: object, tensors: dict, where: str) -> object:
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [_flatten(v, tensors, f"{where}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, Inject):
        return {_INJECT: obj.name, "args": _flatten(obj.args, tensors, f"{where}.args")}
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if not isinstance(k, str):
                raise WireError(f"{where}: dict key {k!r} is not a string")
            out[k] = _flatten(v, tensors, f"{where}[{k!r}]")
        return out
    import torch

    if isinstance(obj, torch.Tensor):
        if obj.layout != torch.strided:
            raise WireError(f"{where}: {obj.layout} tensors cannot be sent; use a dense tensor")
        name = f"t{len(tensors)}"
        tensors[name] = obj.detach().cpu().contiguous().clone()
        return {_TENSOR: name}
    raise WireError(
        f"{where} is a {type(obj).__module__}.{type(obj).__qualname__}; only tensors, numbers, "
        "strings, booleans, None, and lists/dicts of those can be returned"
    )


def _restore(doc: object, tensors: dict) -> object:
    if isinstance(doc, list):
        return [_restore(v, tensors) for v in doc]
    if isinstance(doc, dict):
        if set(doc) == {_TENSOR}:
            name = doc[_TENSOR]
            if not isinstance(name, str) or name not in tensors:
                raise WireError(f"message refers to a missing tensor {name!r}")
            return tensors[name]
        if set(doc) == {_INJECT, "args"} and isinstance(doc[_INJECT], str) and isinstance(doc["args"], dict):
            return Inject(doc[_INJECT], _restore(doc["args"], tensors))
        return {k: _restore(v, tensors) for k, v in doc.items()}
    return doc
