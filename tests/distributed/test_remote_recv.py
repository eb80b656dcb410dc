"""Remote receives started ahead of the _Recv kernels: each key asked for once, at
most WINDOW at a time, in order; what no kernel took is cancelled."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.distributed import remote_recv, rendezvous, send_recv  # noqa: F401
from trainflow._src.distributed.tensor_codec import RecvTensorReply

PS = "/job:ps/replica:0/task:0"
ME = "/job:worker/replica:0/task:0/device:CPU:0"


class _Call:
    def __init__(self, log, key, reply):
        self.log, self.key, self.reply = log, key, reply
        self.cancelled = False

    def result(self):
        if isinstance(self.reply, Exception):
            raise self.reply
        return self.reply

    def cancel(self):
        self.cancelled = True
        self.log.append(("cancel", self.key))


class _Stub:
    def __init__(self, log, replies):
        self.log, self.replies = log, replies

    def start(self, method, request, timeout=None, what=""):
        assert method == "RecvTensor"
        self.log.append(("start", request.rendezvous_key))
        return _Call(self.log, request.rendezvous_key,
                     self.replies.get(request.rendezvous_key, RecvTensorReply(np.float32(1))))


def _key(name):
    return rendezvous.create_key(PS + "/device:CPU:0", 7, ME, name)


def _recvs(n, window, monkeypatch, replies=None):
    monkeypatch.setattr(remote_recv, "WINDOW", window)
    log = []
    stub = _Stub(log, replies or {})
    keys = [(_key(f"t{i}"), PS) for i in range(n)]
    return remote_recv.StepRecvs(1, keys, lambda task: stub, None), keys, log


def test_window_and_order(monkeypatch):
    recvs, keys, log = _recvs(5, 2, monkeypatch)
    assert log == [("start", keys[0][0]), ("start", keys[1][0])]
    assert recvs.recv(keys[0][0]) == (np.float32(1), False)
    assert log[-1] == ("start", keys[2][0])


def test_out_of_order_key_is_asked_once(monkeypatch):
    recvs, keys, log = _recvs(4, 1, monkeypatch)
    recvs.recv(keys[3][0])  # not started yet: asked for now, never again
    for key, _ in keys[:3]:
        recvs.recv(key)
    starts = [k for what, k in log if what == "start"]
    assert sorted(starts) == sorted(k for k, _ in keys)


def test_close_cancels_untaken(monkeypatch):
    recvs, keys, log = _recvs(3, 8, monkeypatch)
    recvs.recv(keys[1][0])
    recvs.close()
    assert sorted(k for what, k in log if what == "cancel") == sorted([keys[0][0], keys[2][0]])


def test_dead_and_failed_replies(monkeypatch):
    replies = {_key("t0"): RecvTensorReply(None, True),
               _key("t1"): errors.UnavailableError(None, None, "gone")}
    recvs, keys, _ = _recvs(2, 8, monkeypatch, replies)
    assert recvs.recv(keys[0][0]) == (None, True)
    with pytest.raises(errors.UnavailableError):
        recvs.recv(keys[1][0])


def test_prefetchable_picks_remote_recvs_without_control_inputs():
    g = tf.Graph()
    with g.as_default():
        common = dict(tensor_type=tf.float32, send_device_incarnation=7, recv_device=ME)
        remote = apply_op("_Recv", name="ra", tensor_name="a", send_device=PS + "/device:CPU:0",
                          **common)
        apply_op("_Recv", name="rb", tensor_name="b", send_device=ME, **common)  # local
        apply_op("_Recv", name="rc", tensor_name="c", send_device=PS + "/device:CPU:0",
                 client_terminated=True, **common)
        with g.control_dependencies([remote]):
            apply_op("_Recv", name="rd", tensor_name="d", send_device=PS + "/device:CPU:0",
                     **common)
    got = remote_recv.prefetchable(g.get_operations(), (ME,))
    assert got == [(_key("a"), PS)]
