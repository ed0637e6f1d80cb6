"""Plain-data messages between the grader and a student process: JSON plus safetensors, never pickle.

A message is a 16-byte header (JSON length, tensor-blob length), a JSON document and one
safetensors blob. In the JSON, a tensor is `{"$tensor": name}` (its data in the blob), a tuple is
`{"$tuple": [...]}`, a dict whose keys are not all plain strings is `{"$dict": [[key, value], ...]}`
(so tuple keys round-trip), an `Inject` is `{"$inject": name, "args": ...}` and a `Remote` is `{"$remote": index}`.

Both sides use this module. The grader decodes a reply under `Bounds` checked before anything is
built – bytes, containers, nesting depth, integer size, tensor dtypes – so a student process that
writes its own bytes costs the grader bounded time and memory. Unpacking only ever builds dicts,
lists, tuples, strings, numbers, tensors and inert `Inject` and `Remote` records.
"""

from __future__ import annotations

import json
import math
import select
import socket
import struct
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    import torch

_HEADER = struct.Struct("<QQ")
_TENSOR, _TUPLE, _DICT, _INJECT, _REMOTE = "$tensor", "$tuple", "$dict", "$inject", "$remote"
_INJECT_TEXT, _REMOTE_TEXT = b'"$inject"', b'"$remote"'  # what a message holding such a record holds in its JSON
# The key of a message a student process sends in the middle of a call: a call of a course object that stays in the
# grader (a `Remote`), answered before the call goes on.
CALLBACK = "callback"
# Tensor dtypes a reply may hold: those every check can compare, print and test for finiteness.
REPLY_DTYPES = ("BOOL", "U8", "I8", "I16", "I32", "I64", "F16", "BF16", "F32", "F64")


class WireError(ValueError):
    """A value that cannot cross the process boundary, or bytes that are not a valid message."""


@dataclass(frozen=True)
class Inject:
    """A stand-in for the exercise's given course code, built inside the student process (grader.inside.given)."""

    name: str
    args: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Remote:
    """A course object that stays in the grader (grader.sandbox.services.Service), by its index in the call's list:
    the student process gets a handle whose calls are sent back to the grader and answered there."""

    index: int


@dataclass(frozen=True)
class Bounds:
    """What one message may hold, checked before it is decoded."""

    json_bytes: int = 1 << 20
    blob_bytes: int = 16 << 20
    containers: int = 20_000  # lists, tuples and dicts (an upper bound: brackets inside strings count too)
    depth: int = 32
    tensors: int = 256
    dtypes: tuple[str, ...] | None = REPLY_DTYPES  # None: any dtype safetensors knows
    machine_ints: bool = True  # integers of at most 64 bits (False: any JSON integer)

    @property
    def total(self) -> int:
        return self.json_bytes + self.blob_bytes


# What the grader sends is trusted: the student process reads it with these.
TRUSTED = Bounds(json_bytes=1 << 30, blob_bytes=1 << 30, containers=1 << 30, depth=10_000, tensors=1 << 20, dtypes=None, machine_ints=False)


def pack(obj: object) -> bytes:
    """Encode `obj` (tensors, numbers, strings, booleans, None, and lists/tuples/dicts of those)."""
    tensors: dict[str, torch.Tensor] = {}
    try:
        doc = _flatten(obj, tensors, None)  # where each part sits is spelled only for a message that cannot be sent
    except WireError:
        _flatten(obj, {}, "value")  # raises the same refusal, naming where
        raise
    body = _ENCODER.encode(doc).encode()
    blob = _save(tensors) if tensors else b""
    return _HEADER.pack(len(body), len(blob)) + body + blob


def _save(tensors: dict[str, torch.Tensor]) -> bytes:
    """`tensors` (on the CPU, contiguous, no conjugate or negative view: a view is read where it lies) as safetensors
    bytes, by safetensors' own serializer reading each tensor's memory: its `save` checks for shared storage and copies
    each tensor through numpy first, ten times the cost of a message's few small tensors. `tensors` holds them alive
    while it reads."""
    from safetensors import TensorSpec, serialize

    specs = {
        name: TensorSpec(dtype=str(t.dtype).removeprefix("torch."), shape=list(t.shape), data_ptr=t.data_ptr(), data_len=t.nbytes)
        for name, t in tensors.items()
    }
    return bytes(serialize(specs))


def unpack(data: bytes, bounds: Bounds = TRUSTED) -> object:
    """Decode a whole message made by `pack`; anything malformed or over `bounds` is a WireError."""
    if len(data) < _HEADER.size:
        raise WireError("truncated message")
    body_len, blob_len = _HEADER.unpack_from(data)
    _check_lengths(body_len, blob_len, bounds)
    if _HEADER.size + body_len + blob_len != len(data):
        raise WireError("message length does not match its header")
    body = data[_HEADER.size : _HEADER.size + body_len]
    blob = data[_HEADER.size + body_len :]
    containers = body.count(b"[") + body.count(b"{")
    if containers > bounds.containers:
        raise WireError(f"message holds more than {bounds.containers} lists/dicts")
    try:
        doc = (_DECODER if bounds.machine_ints else _ANY_INTS).decode(body.decode("utf-8", "surrogatepass"))
    except (ValueError, RecursionError, UnicodeDecodeError) as e:
        raise WireError(f"not a valid message: {_short(e)}") from None
    tensors = _load_tensors(blob, bounds) if blob else {}
    return _restore(doc, tensors, bounds.depth)


def _check_lengths(body_len: int, blob_len: int, bounds: Bounds) -> None:
    if body_len > bounds.json_bytes:
        raise WireError(f"message of {body_len} bytes of data exceeds the limit of {bounds.json_bytes} bytes")
    if blob_len > bounds.blob_bytes:
        raise WireError(f"message of {blob_len} bytes of tensors exceeds the limit of {bounds.blob_bytes} bytes")


def _bounded_int(text: str) -> int:
    """Integers as a 64-bit machine holds them: no 5000-digit numbers, no crafted hash collisions."""
    if len(text) > 20:
        raise ValueError("integer too large")
    value = int(text)
    if not -(1 << 63) <= value < (1 << 63):
        raise ValueError("integer outside the 64-bit range")
    return value


# Made once: json.loads builds a decoder on every call that passes it an option. The document `pack` made holds no
# cycle (it is built afresh), so the encoder need not look for one.
_DECODER = json.JSONDecoder(parse_int=_bounded_int)
_ANY_INTS = json.JSONDecoder()  # integers parsed in C, not by a Python call each
_ENCODER = json.JSONEncoder(check_circular=False)


def _load_tensors(blob: bytes, bounds: Bounds) -> dict[str, torch.Tensor]:
    if len(blob) < 8:
        raise WireError("tensor data is truncated")
    header_len = int.from_bytes(blob[:8], "little")
    if header_len > min(len(blob) - 8, 1 << 20):
        raise WireError("tensor data has a malformed header")
    try:
        header = json.loads(blob[8 : 8 + header_len])
    except (ValueError, RecursionError, UnicodeDecodeError):
        raise WireError("tensor data has a malformed header") from None
    if not isinstance(header, dict):
        raise WireError("tensor data has a malformed header")
    entries = {k: v for k, v in header.items() if k != "__metadata__"}
    if len(entries) > bounds.tensors:
        raise WireError(f"message holds more than {bounds.tensors} tensors")
    for entry in entries.values():
        dtype = entry.get("dtype") if isinstance(entry, dict) else None
        if bounds.dtypes is not None and dtype not in bounds.dtypes:
            raise WireError(f"a tensor of dtype {_short(dtype)} cannot be sent back; use float64, float32, float16, bfloat16, an integer type or bool")
    from safetensors.torch import load

    try:
        return load(blob)
    except Exception as e:  # safetensors raises its own error types for corrupt blobs
        raise WireError(f"tensor data is not valid safetensors: {_short(e)}") from None


def _short(obj: object) -> str:
    text = str(obj)
    return text[:200] + (" [...]" if len(text) > 200 else "")


def map_leaves(obj: object, fn: Callable[[object], object]) -> object:
    """`obj` with lists, tuples and dicts rebuilt and `fn` applied to everything else: the shape messages carry."""
    # a leaf is mapped where its container is (one call a leaf, not two)
    if isinstance(obj, list):
        return [map_leaves(v, fn) if isinstance(v, _CONTAINERS) else fn(v) for v in obj]
    if isinstance(obj, tuple):
        return tuple([map_leaves(v, fn) if isinstance(v, _CONTAINERS) else fn(v) for v in obj])
    if isinstance(obj, dict):
        return {k: map_leaves(v, fn) if isinstance(v, _CONTAINERS) else fn(v) for k, v in obj.items()}
    return fn(obj)


_CONTAINERS = (list, tuple, dict)


def leaves(obj: object) -> Iterator[object]:
    """Everything in `obj` that is not a list, tuple or dict, in order."""
    if isinstance(obj, (list, tuple)):
        for v in obj:
            yield from leaves(v)
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from leaves(v)
    else:
        yield obj


class Channel:
    """One end of a stream socket that carries messages, both ways.

    Reads go through a buffer, so that a message's header and body, and the replies a batch of calls sends together,
    come in one read. The socket stays blocking and a deadline is kept with poll: a socket timeout costs a system call
    each time it is set, and the student process, which waits without one, reads and writes with one call each.
    `write` keeps a message for the next `flush` (or `send`), so that a batch's replies leave together.
    """

    _CHUNK = 1 << 16  # what one read asks for beyond the message it needs
    _KEPT = 1 << 20  # written bytes kept before they are sent anyway

    def __init__(self, sock: socket.socket):
        sock.settimeout(None)
        self.sock = sock
        self._in = bytearray()
        self._out: list[bytes] = []
        self._out_bytes = 0
        self.records = False  # whether the last message read may hold an Inject or a Remote (its text names one)
        self.received = 0  # bytes read from the socket so far
        self._readable = select.poll()
        self._readable.register(sock, select.POLLIN)
        self._writable = select.poll()
        self._writable.register(sock, select.POLLOUT)

    @property
    def pending(self) -> int:
        """Bytes received and not yet read as a message."""
        return len(self._in)

    def recv(self, *, deadline: float | None, bounds: Bounds = TRUSTED) -> object:
        """The next message; TimeoutError once `deadline` (time.monotonic) has passed before it came, EOFError if the
        peer is gone. The lengths its header gives are checked against `bounds` before its body is read. A message
        that had already arrived is read even after the deadline: a reply sent in time is not lost because the
        grader came to read it late (an import sent ahead, read after other exercises' checks)."""
        self._fill(_HEADER.size, deadline)
        body_len, blob_len = _HEADER.unpack_from(self._in)
        _check_lengths(body_len, blob_len, bounds)
        size = _HEADER.size + body_len + blob_len
        self._fill(size, deadline)
        if len(self._in) == size:  # the usual case: one message came, and nothing after it
            data = bytes(self._in)
            self._in.clear()
        else:
            data = bytes(self._in[:size])
            del self._in[:size]
        body = (_HEADER.size, _HEADER.size + body_len)  # the records are JSON: the tensors' bytes need no search
        self.records = data.find(_INJECT_TEXT, *body) >= 0 or data.find(_REMOTE_TEXT, *body) >= 0
        return unpack(data, bounds)

    def _fill(self, n: int, deadline: float | None) -> None:
        while len(self._in) < n:
            flags = 0
            if deadline is not None:  # past the deadline, a poll of 0 ms: only what is already there
                if not self._readable.poll(max(0, math.ceil(1000 * (deadline - time.monotonic())))):
                    raise TimeoutError
                flags = socket.MSG_DONTWAIT
            try:
                chunk = self.sock.recv(min(max(n - len(self._in), self._CHUNK), 1 << 20), flags)
            except BlockingIOError:
                continue  # woken for nothing: the next poll decides
            if not chunk:
                raise EOFError
            self._in += chunk
            self.received += len(chunk)

    def write(self, data: bytes) -> None:
        """Keep `data` for the next flush (sent now once a megabyte is kept)."""
        self._out.append(data)
        self._out_bytes += len(data)
        if self._out_bytes >= self._KEPT:
            self.flush()

    def send(self, data: bytes, *, deadline: float | None = None) -> None:
        """Send what was written and `data`; TimeoutError once `deadline` has passed with some of it unsent."""
        self._out.append(data)
        self.flush(deadline=deadline)

    def flush(self, *, deadline: float | None = None) -> None:
        data = b"".join(self._out)
        self._out.clear()
        self._out_bytes = 0
        if deadline is None:
            self.sock.sendall(data)
            return
        view = memoryview(data)
        while view:
            try:
                view = view[self.sock.send(view, socket.MSG_DONTWAIT) :]
            except BlockingIOError:
                if not self._writable.poll(max(0, math.ceil(1000 * (deadline - time.monotonic())))):
                    raise TimeoutError from None

    def close(self) -> None:
        self.sock.close()


def _flatten(obj: object, tensors: dict[str, torch.Tensor], where: str | None) -> object:
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, list):
        if all(type(v) in _PLAIN for v in obj):  # a list of plain values (a row of numbers): as it is
            return list(obj)
        return [v if type(v) in _PLAIN else _flatten(v, tensors, where and f"{where}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, tuple):
        return {_TUPLE: [v if type(v) in _PLAIN else _flatten(v, tensors, where and f"{where}[{i}]") for i, v in enumerate(obj)]}
    if isinstance(obj, Inject):
        return {_INJECT: obj.name, "args": _flatten(obj.args, tensors, where and f"{where}.args")}
    if isinstance(obj, Remote):
        return {_REMOTE: obj.index}
    if isinstance(obj, dict):
        if _plain_keys(obj):
            return {k: v if type(v) in _PLAIN else _flatten(v, tensors, where and f"{where}[{k!r}]") for k, v in obj.items()}
        pairs = []
        for k, v in obj.items():
            if not _hashable_plain(k):
                raise WireError(f"{where}: dict key {k!r} is not a number, string, bool, None or tuple of those")
            pairs.append([_flatten(k, tensors, where and f"{where} key"), _flatten(v, tensors, where and f"{where}[{k!r}]")])
        return {_DICT: pairs}
    import torch

    if isinstance(obj, torch.Tensor):
        if obj.layout != torch.strided:
            raise WireError(f"{where}: {obj.layout} tensors cannot be sent; use a dense tensor")
        name = f"t{len(tensors)}"
        # its own memory as it is now (the conjugate and negative views resolved): `_save` reads it before it changes
        tensors[name] = obj.detach().cpu().contiguous().resolve_conj().resolve_neg()
        return {_TENSOR: name}
    raise WireError(
        f"{where} is a {type(obj).__module__}.{type(obj).__qualname__}; only tensors, numbers, "
        "strings, booleans, None, and lists/tuples/dicts of those can be returned"
    )


_PLAIN = frozenset({bool, int, float, str, type(None)})  # exactly these types: a subclass takes the long way


def _plain_keys(obj: dict[object, object]) -> bool:
    """Whether every key of `obj` is a string that does not start with "$": a dict JSON holds as it is."""
    for k in obj:
        if not isinstance(k, str) or k.startswith("$"):
            return False
    return True


def _hashable_plain(key: object) -> bool:
    if key is None or isinstance(key, (bool, int, float, str)):
        return True
    return isinstance(key, tuple) and all(_hashable_plain(k) for k in key)


def _restore(doc: object, tensors: dict[str, torch.Tensor], depth: int) -> object:
    if isinstance(doc, (list, dict)) and depth <= 0:
        raise WireError("message nested too deeply")
    if isinstance(doc, list):
        if all(type(v) in _PLAIN for v in doc):  # a list of plain values (a row of numbers): as JSON read it
            return doc
        return [v if type(v) in _PLAIN else _restore(v, tensors, depth - 1) for v in doc]
    if not isinstance(doc, dict):
        return doc
    if len(doc) == 1 and _TENSOR in doc:
        name = doc[_TENSOR]
        if not isinstance(name, str) or name not in tensors:
            raise WireError(f"message refers to a missing tensor {_short(name)!r}")
        return tensors[name]
    if len(doc) == 1 and _TUPLE in doc and isinstance(doc[_TUPLE], list):
        return tuple(_restore(v, tensors, depth - 1) for v in doc[_TUPLE])
    if len(doc) == 1 and _DICT in doc and isinstance(doc[_DICT], list):
        out = {}
        for pair in doc[_DICT]:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise WireError("message holds a malformed dict entry")
            key = _restore(pair[0], tensors, depth - 1)
            if not _hashable_plain(key):
                raise WireError("message holds a dict key that is not a number, string, bool, None or tuple")
            out[key] = _restore(pair[1], tensors, depth - 1)
        return out
    if len(doc) == 2 and _INJECT in doc and "args" in doc and isinstance(doc[_INJECT], str) and isinstance(doc["args"], dict):
        # Keyword arguments, as the grader packs them; a reply may make them anything, but no check reads a reply's.
        args = cast("dict[str, object]", _restore(doc["args"], tensors, depth - 1))
        return Inject(doc[_INJECT], args)
    if len(doc) == 1 and _REMOTE in doc and type(doc[_REMOTE]) is int:
        return Remote(doc[_REMOTE])
    return {k: v if type(v) in _PLAIN else _restore(v, tensors, depth - 1) for k, v in doc.items()}
