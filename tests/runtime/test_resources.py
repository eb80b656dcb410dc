"""ResourceManager, VariableSlot, RunState and in-process session targets."""
import threading
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.ops.state import state_ops
from trainflow._src.runtime import run_state, targets
from trainflow._src.runtime.resources import ResourceManager, Uninitialized, VariableSlot


def test_variable_slots():
    rm = ResourceManager()
    slot = rm.variable("v", tf.float32)
    assert rm.variable("v") is slot and rm.variables() == {"v": slot}
    with pytest.raises(Uninitialized) as info:
        slot.get()
    assert info.value.name == "v"
    slot.value = np.zeros(2, np.float32)
    assert slot.get() is slot.value
    assert repr(slot) == "<VariableSlot v initialized=True>"


def test_lookup_or_create_and_clear_closes_resources():
    rm = ResourceManager()
    closed = []

    class Queue:
        def close(self):
            closed.append(True)

    q = rm.lookup_or_create("queue", "q", Queue)
    assert rm.lookup_or_create("queue", "q", Queue) is q
    assert rm.lookup("queue", "q") is q and rm.lookup("queue", "other") is None
    assert rm.resources() == {("queue", "q"): q}
    rm.variable("v")
    rm.clear()
    assert closed == [True] and rm.variables() == {} and rm.lookup("queue", "q") is None


def test_concurrent_creation_makes_one_resource():
    rm = ResourceManager()
    made = []

    def factory():
        time.sleep(0.01)
        made.append(1)
        return object()

    threads = [threading.Thread(target=rm.lookup_or_create, args=("k", "n", factory))
               for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1


def test_run_state_check_cancel_and_wait():
    state = run_state.RunState(timeout_in_ms=0)
    state.check()
    cond = threading.Condition()
    flag = []

    def release():
        time.sleep(0.02)
        with cond:
            flag.append(True)
            cond.notify_all()
    threading.Thread(target=release).start()
    with cond:
        assert state.wait(cond, lambda: bool(flag))
    state.cancel("stop now")
    with pytest.raises(errors.CancelledError, match="stop now"):
        state.check()
    timed = run_state.RunState(timeout_in_ms=10)
    with cond:
        with pytest.raises(errors.DeadlineExceededError):
            timed.wait(cond, lambda: False)


def test_current_run_state_is_per_thread():
    mine = run_state.RunState()
    prev = run_state.set_current(mine)
    try:
        seen = []
        t = threading.Thread(target=lambda: seen.append(run_state.current()))
        t.start()
        t.join()
        assert run_state.current() is mine and seen[0] is not mine
    finally:
        run_state.set_current(prev)


def test_sessions_on_a_served_target_share_variables():
    rm = ResourceManager()
    targets.register("local://test_resources", rm)
    try:
        with tf.Graph().as_default():
            v = state_ops.variable_op_v2([], tf.float32, name="shared_v")
            init = state_ops.assign(v, np.float32(4.0))
            with tf.Session("local://test_resources") as s1:
                s1.run(init)
                assert s1.sess_str == b"local://test_resources"
            # Closing a session on a server target keeps the server's variables.
            with tf.Session("local://test_resources") as s2:
                assert s2.run(v) == 4.0
            tf.Session.reset("local://test_resources")
            with tf.Session("local://test_resources") as s3:
                with pytest.raises(tf.errors.FailedPreconditionError):
                    s3.run(v)
    finally:
        targets.unregister("local://test_resources")
    with pytest.raises(tf.errors.UnavailableError, match="No server is serving target"):
        tf.Session("local://test_resources")


def test_kernel_context_resource_name():
    from trainflow._src.runtime.executor import ExecutionContext
    from trainflow._src.runtime.kernel_context import KernelContext
    with tf.Graph().as_default():
        a = state_ops.variable_op_v2([], tf.float32, name="plain")
        b = state_ops.variable_op_v2([], tf.float32, name="named", shared_name="shared")
    rm = ResourceManager()
    assert KernelContext(a.op, ExecutionContext(None, rm)).resource_name == "plain"
    assert KernelContext(b.op, ExecutionContext(None, rm)).resource_name == "shared"
    assert isinstance(rm.variable("x"), VariableSlot)


def test_containers_are_kept_apart_and_cleared_by_name():
    rm = ResourceManager()
    default_v = rm.variable("v")
    exp = rm.container("exp")
    exp_v = exp.variable("v")
    assert exp_v is not default_v and rm.container("") is rm.container("localhost") is rm
    assert rm.variables("exp") == {"v": exp_v} and rm.variables("localhost") == {"v": default_v}
    closed = []

    class Queue:
        def close(self):
            closed.append(True)

    exp.lookup_or_create("queue", "q", Queue)
    rm.clear_containers([])  # the default container only
    assert default_v.dropped and not exp_v.dropped and rm.variables("exp") == {"v": exp_v}
    assert rm.variable("v") is not default_v
    rm.clear_containers(["exp", "never-made"])
    assert exp_v.dropped and closed == [True] and exp.lookup("queue", "q") is None
    assert rm.container("exp") is exp  # a cleared container stays usable


def test_session_sees_a_reset_container_as_uninitialized():
    server = tf.train.Server.create_local_server()
    try:
        with tf.Graph().as_default():
            with tf.container("exp"):
                v = tf.Variable(3.0, name="v")
            with tf.Session(server.target) as sess:
                sess.run(v.initializer)
                assert sess.run(v) == 3.0
            in_process = tf.Session(server._resources_target)
            assert in_process.run(v) == 3.0
            targets.reset(server._resources_target, ["exp"])
            with pytest.raises(errors.FailedPreconditionError, match="uninitialized value v"):
                in_process.run(v)
            in_process.close()
    finally:
        server.stop()


class _Device(np.ndarray):
    """Stands for a device array (any array NumPy can read)."""


def _put(host):
    return np.array(host).view(_Device)


def test_variable_slot_device_copy_and_host_sync():
    slot = VariableSlot("v", tf.float32)
    assert slot.device_value(_put) is None and not slot.initialized
    host = np.arange(3, dtype=np.float32)
    slot.value = host
    dev = slot.device_value(_put)
    assert isinstance(dev, _Device) and slot.device_value(_put) is dev  # put once
    step = object()
    # Exposed (assigned from the host): the first store updates the host buffer too.
    slot.store_device(_put(host + 1), step)
    assert host.tolist() == [1, 2, 3] and not slot._stale
    # Within the same step the host keeps being updated; in a later one it falls behind.
    slot.store_device(_put(host + 1), step)
    assert host.tolist() == [2, 3, 4]
    slot.store_device(_put(host + 1), object())
    assert host.tolist() == [2, 3, 4] and slot._stale and slot.host_buffer() is None
    assert slot.initialized and repr(slot) == "<VariableSlot v initialized=True>"
    # A host read syncs into the same buffer and takes ownership back.
    assert slot.get() is host and host.tolist() == [3, 4, 5]
    assert slot._device is None and slot.host_buffer() is host
    # A host write drops the device copy; the next device read puts the new buffer.
    slot.device_value(_put)
    slot.value = np.zeros(2, np.float32)
    assert slot._device is None
    assert slot.device_value(_put).tolist() == [0, 0]


def test_variable_slot_device_value_of_a_new_shape():
    slot = VariableSlot("v", tf.float32)
    slot.value = np.zeros(2, np.float32)
    slot.device_value(_put)
    slot.store_device(_put(np.ones(3, np.float32)), object())  # exposed: host replaced
    slot.store_device(_put(np.full(4, 2.0, np.float32)), object())
    assert slot.value.tolist() == [2.0] * 4 and slot.value.flags.writeable
