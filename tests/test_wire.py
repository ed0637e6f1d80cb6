"""Messages between grader and student processes carry plain data only, and junk is rejected."""

import socket
import time

import pytest
import torch

from grader.inside import wire


def test_round_trip_keeps_structure_dtype_and_values():
    """Do nested dicts and lists of tensors, numbers and strings survive pack/unpack exactly?"""
    value = {
        "h": torch.randn(3, 4, dtype=torch.float64),
        "ids": torch.arange(5),
        "items": [1, 2.5, "x", None, True, float("nan")],
        "nested": {"half": torch.ones(2, dtype=torch.float32)},
    }
    back = wire.unpack(wire.pack(value))
    assert torch.equal(back["h"], value["h"]) and back["h"].dtype == torch.float64
    assert torch.equal(back["ids"], value["ids"])
    assert back["items"][:5] == [1, 2.5, "x", None, True]
    assert back["nested"]["half"].dtype == torch.float32


def test_tuples_and_tuple_keys_round_trip():
    """Do tuples, nested tuples and dicts keyed by tuples or numbers come back as they were sent (ex10's select_lr)?"""
    value = {("gru", 4): 0.01, ("lstm", (16, 2)): [1, (2, 3)], 7: "seven", "$tensor": "not a tensor"}
    back = wire.unpack(wire.pack(value))
    assert back == value and isinstance(back[("lstm", (16, 2))][1], tuple)


def test_views_and_shared_storage_are_sent_as_copies():
    """Can a result that returns two views of one tensor be sent (safetensors refuses shared storage)?"""
    base = torch.randn(4, 4)
    back = wire.unpack(wire.pack({"a": base[:2], "b": base[2:].T}))
    assert torch.equal(back["b"], base[2:].T)


@pytest.mark.parametrize(
    "dtype", [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32, torch.float64]
)
def test_the_blob_pack_writes_is_safetensors_for_every_reply_dtype(dtype):
    """Does the blob pack writes (safetensors serializing each tensor from its memory) load in safetensors, every reply
    dtype exact: 0-dim, empty and strided tensors too?"""
    from safetensors.torch import load

    value = [(torch.randn(3, 4) * 5).to(dtype), torch.zeros(0, 2, dtype=dtype), torch.tensor(1).to(dtype), (torch.randn(4, 3) * 3).to(dtype).T]
    message = wire.pack(value)
    body_len, _ = wire._HEADER.unpack_from(message)
    tensors = load(message[wire._HEADER.size + body_len :])
    back = wire.unpack(message, wire.Bounds())
    assert len(tensors) == len(value)
    assert all(b.dtype == v.dtype and b.shape == v.shape and torch.equal(b, v) for b, v in zip(back, value))


@pytest.mark.parametrize("value", [object(), {frozenset(): "set key"}, (x for x in range(3)), torch.randn(3).to_sparse()])
def test_unsupported_values_are_refused_with_their_place(value):
    """Is a value that is not plain data refused, naming where it sits?"""
    with pytest.raises(wire.WireError, match=r"value"):
        wire.pack({"result": value})


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x00" * 3,
        wire.pack({"a": 1})[:-1],
        wire._HEADER.pack(4, 0) + b"nope",
        wire._HEADER.pack(12, 0) + b'{"$tensor":1}',
        wire._HEADER.pack(2, 5) + b"{}" + b"junk!",
        wire._HEADER.pack(20000, 0) + b"[" * 10000 + b"]" * 10000,
    ],
)
def test_junk_bytes_are_a_wire_error(data):
    """Are truncated, malformed or hostile messages a WireError rather than a crash?"""
    with pytest.raises(wire.WireError):
        wire.unpack(data)


HOSTILE_BOUNDS = wire.Bounds(json_bytes=1 << 16, containers=100, depth=8)


@pytest.mark.parametrize(
    "body, why",
    [
        (b"[" + b"[]," * 200 + b"[]]", "more than 100"),
        (b"[" * 9 + b"]" * 9, "nested too deeply"),
        (b"1" + b"0" * 400, "not a valid message"),
        (b"9" * 5001, "not a valid message"),
        (b"[" * 5000 + b"]" * 5000, "more than 100"),
        (b" " * (1 << 17), "exceeds the limit"),
    ],
)
def test_hostile_replies_are_refused_before_they_are_built(body, why):
    """Are replies over the bounds (containers, depth, integer size, bytes) refused with a message, not built?"""
    with pytest.raises(wire.WireError, match=why):
        wire.unpack(wire._HEADER.pack(len(body), 0) + body, HOSTILE_BOUNDS)


def test_odd_dtypes_are_refused_in_replies():
    """Is a float8 tensor (which torch.isfinite cannot test) refused in a reply, naming its dtype?"""
    data = wire.pack({"g": torch.zeros(2, dtype=torch.float8_e4m3fn)})
    with pytest.raises(wire.WireError, match="F8_E4M3"):
        wire.unpack(data, wire.Bounds())
    assert wire.unpack(data)["g"].dtype == torch.float8_e4m3fn  # what the grader sends is not bounded


def test_the_graders_integers_are_read_as_they_are_and_a_replys_within_64_bits():
    """Does a student process read the grader's integers whatever their size (JSON's own parser, no Python call an
    integer), while a reply's beyond 64 bits is still refused?"""
    data = wire.pack({"n": [10**30, -(10**30), 7]})
    assert wire.unpack(data) == {"n": [10**30, -(10**30), 7]}
    with pytest.raises(wire.WireError, match="not a valid message"):
        wire.unpack(data, wire.Bounds())


def test_a_channel_says_whether_a_message_may_hold_records():
    """Does a channel say whether the message it last read may hold an Inject or a Remote (which a student process
    builds before a call), and not for one that holds none? (A string "$inject" may make it say so: the call then
    only builds what is there.)"""
    a, b = socket.socketpair()
    with a, b:
        ours, theirs = wire.Channel(a), wire.Channel(b)
        for message, records in [
            ({"x": [torch.zeros(2), {"k": (1, "inject")}]}, False),
            ({"x": [wire.Inject("lstm_cell", {"w": torch.zeros(2)})]}, True),
            ({"x": {"bench": wire.Remote(0)}}, True),
        ]:
            theirs.send(wire.pack(message))
            ours.recv(deadline=None)
            assert ours.records is records, message


def test_recv_enforces_the_size_limit_before_reading():
    """Is an oversized message refused from its header alone?"""
    a, b = socket.socketpair()
    with a, b:
        a.sendall(wire._HEADER.pack(10**9, 0))
        with pytest.raises(wire.WireError, match="exceeds the limit"):
            wire.Channel(b).recv(deadline=time.monotonic() + 1, bounds=wire.Bounds())


def test_recv_times_out_and_sees_eof():
    """Does recv raise TimeoutError on silence and EOFError when the peer is gone?"""
    a, b = socket.socketpair()
    with b:
        channel = wire.Channel(b)
        with pytest.raises(TimeoutError):
            channel.recv(deadline=time.monotonic() + 0.05, bounds=wire.Bounds())
        a.close()
        with pytest.raises(EOFError):
            channel.recv(deadline=time.monotonic() + 1, bounds=wire.Bounds())


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.one_of(st.binary(max_size=400), _JSONISH.map(lambda d: __import__("json").dumps(d).encode())), blob=st.binary(max_size=200))
@pytest.mark.slow
def test_any_reply_bytes_decode_or_raise_wire_error(body, blob):
    """Whatever bytes a student process sends, does decoding under the reply bounds give plain data or a WireError only?"""
    data = wire._HEADER.pack(len(body), len(blob)) + body + blob
    try:
        wire.unpack(data, wire.Bounds())
    except wire.WireError:
        pass


@settings(max_examples=200, deadline=None, derandomize=True)
@given(value=_JSONISH)
@pytest.mark.slow
def test_plain_values_round_trip(value):
    """Does every plain value (lists, dicts, numbers within 64 bits, strings) come back equal after pack/unpack?"""
    import math

    def same(a, b):
        if isinstance(a, float) and math.isnan(a):
            return isinstance(b, float) and math.isnan(b)
        if isinstance(a, list):
            return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        if isinstance(a, dict):
            return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        return a == b and type(a) is type(b)

    try:
        back = wire.unpack(wire.pack(value), wire.Bounds())
    except wire.WireError as e:  # only integers beyond 64 bits are refused
        assert "not a valid message" in str(e)
        return
    assert same(value, back)


def test_a_reply_that_arrived_in_time_is_read_after_the_deadline():
    """Is a message already waiting read when the reader comes after its deadline (an import sent ahead, read after
    other checks), while a message that has not arrived times out at once?"""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        channel = wire.Channel(ours)
        theirs.sendall(wire.pack({"ok": True, "value": 1}))
        assert channel.recv(deadline=time.monotonic() - 1.0) == {"ok": True, "value": 1}
        with pytest.raises(TimeoutError):
            channel.recv(deadline=time.monotonic() - 1.0)


def test_messages_written_together_are_read_one_by_one():
    """Are messages written together (a batch's replies) held until the flush, then read one at a time, each under
    the bounds, with nothing left over?"""
    a, b = socket.socketpair()
    with a, b:
        ours, theirs = wire.Channel(a), wire.Channel(b)
        theirs.write(wire.pack(1))
        theirs.write(wire.pack({"ok": [2, 3]}))
        with pytest.raises(TimeoutError):
            ours.recv(deadline=time.monotonic() + 0.05)
        theirs.flush()
        assert ours.recv(deadline=time.monotonic() + 1, bounds=wire.Bounds()) == 1
        assert ours.pending > 0
        assert ours.recv(deadline=time.monotonic() + 1, bounds=wire.Bounds()) == {"ok": [2, 3]}
        assert ours.pending == 0
