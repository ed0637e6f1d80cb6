"""Messages between grader and student processes carry plain data only, and junk is rejected."""

import socket

import pytest
import torch

from grader import wire


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


def test_views_and_shared_storage_are_sent_as_copies():
    """Can a result that returns two views of one tensor be sent (safetensors refuses shared storage)?"""
    base = torch.randn(4, 4)
    back = wire.unpack(wire.pack({"a": base[:2], "b": base[2:].T}))
    assert torch.equal(back["b"], base[2:].T)


@pytest.mark.parametrize("value", [object(), {1: "int key"}, (x for x in range(3)), torch.randn(3).to_sparse()])
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


def test_recv_enforces_the_size_limit_before_reading():
    """Is an oversized message refused from its header alone?"""
    a, b = socket.socketpair()
    with a, b:
        a.sendall(wire._HEADER.pack(10**9, 0))
        with pytest.raises(wire.WireError, match="exceeds the limit"):
            wire.recv(b, timeout=1, limit=1 << 20)


def test_recv_times_out_and_sees_eof():
    """Does recv raise TimeoutError on silence and EOFError when the peer is gone?"""
    a, b = socket.socketpair()
    with b:
        with pytest.raises(TimeoutError):
            wire.recv(b, timeout=0.05, limit=1 << 20)
        a.close()
        with pytest.raises(EOFError):
            wire.recv(b, timeout=1, limit=1 << 20)
