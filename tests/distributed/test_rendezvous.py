"""Rendezvous keys in TF's format; per-step tables with timeouts and aborts."""
import threading
import time

import pytest

from trainflow._src.framework import errors
from trainflow._src.distributed import rendezvous

SRC = "/job:ps/replica:0/task:0/device:CPU:0"
DST = "/job:worker/replica:0/task:1/device:CPU:0"


def test_key_format_and_parse():
    key = rendezvous.create_key(SRC, 0xABC, DST, "edge_3_w/read:0")
    assert key == f"{SRC};0000000000000abc;{DST};edge_3_w/read:0;0:0"
    assert rendezvous.parse_key(key) == (SRC, 0xABC, DST, "edge_3_w/read:0", (0, 0))
    # Negative int64 attrs (incarnations above 2**63) print as their uint64 value.
    assert rendezvous.create_key(SRC, -1, DST, "t").split(";")[1] == "f" * 16


def test_malformed_key():
    with pytest.raises(errors.InvalidArgumentError, match="Invalid rendezvous key"):
        rendezvous.parse_key("a;b;c")


def test_recv_waits_for_send():
    rv = rendezvous.StepRendezvous()
    threading.Timer(0.05, rv.send, ("k", 5)).start()
    assert rv.recv("k", time.monotonic() + 5) == (5, False)


def test_recv_times_out():
    rv = rendezvous.StepRendezvous()
    t0 = time.monotonic()
    with pytest.raises(errors.DeadlineExceededError, match="tensor"):
        rv.recv(rendezvous.create_key(SRC, 1, DST, "x:0"), time.monotonic() + 0.1)
    assert time.monotonic() - t0 < 2


def test_cleanup_aborts_waiters():
    table = rendezvous.RendezvousTable()
    rv = table.find_or_create(7)
    threading.Timer(0.05, table.cleanup, (7,)).start()
    with pytest.raises(errors.AbortedError):
        rv.recv("k", time.monotonic() + 5)
    assert table.find_or_create(7) is not rv


def test_step_context_outside_a_step():
    with pytest.raises(errors.InternalError):
        rendezvous.current()


def test_late_arrivals_of_a_cleaned_up_step_fail_at_once():
    table = rendezvous.RendezvousTable()
    table.cleanup(9, errors.UnavailableError(None, None, "ps went away"))
    t0 = time.monotonic()
    with pytest.raises(errors.UnavailableError, match="ps went away"):
        table.find_or_create(9).recv("k", time.monotonic() + 30)
    assert time.monotonic() - t0 < 1


def test_finished_step_table_goes_when_emptied():
    table = rendezvous.RendezvousTable()
    rv = table.find_or_create(1)
    rv.send("k", 1)
    table.finish(1)
    assert table.find_or_create(1) is rv  # a value is still waiting for its receiver
    rv.recv("k", time.monotonic() + 1)
    table.release_if_done(1, rv)
    assert table.find_or_create(1) is not rv
    empty = table.find_or_create(2)
    table.finish(2)
    assert table.find_or_create(2) is not empty
