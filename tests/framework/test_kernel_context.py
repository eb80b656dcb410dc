"""The KernelContext interface, DEAD and resource naming (framework side)."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import kernel_context
from trainflow._src.ops.state import state_ops
from trainflow._src.runtime.executor import ExecutionContext
from trainflow._src.runtime.kernel_context import KernelContext as RuntimeContext
from trainflow._src.runtime.resources import ResourceManager, VariableSlot


def test_dead_stays_dead_when_read():
    dead = kernel_context.DEAD
    assert dead.get() is dead and repr(dead) == "DEAD"
    assert kernel_context.SWITCH_TYPES == {"Switch", "RefSwitch"}
    assert kernel_context.MERGE_TYPES == {"Merge", "RefMerge"}


def test_the_interface_needs_a_runtime():
    with pytest.raises(TypeError):
        kernel_context.KernelContext(None, None, None)


def test_variable_storage_is_a_ref_slot_found_by_resource_name():
    with tf.Graph().as_default():
        plain = state_ops.variable_op_v2([2], tf.float32, name="plain")
        shared = state_ops.variable_op_v2([], tf.int32, name="other", shared_name="shared")
    rm = ResourceManager()
    ctx = RuntimeContext(plain.op, ExecutionContext(None, rm))
    slot = ctx.variable(shared.op)
    assert isinstance(slot, VariableSlot) and isinstance(slot, kernel_context.RefSlot)
    assert slot is rm.variable("shared") and slot.dtype == tf.int32
    assert kernel_context.resource_name(plain.op) == "plain"
    assert kernel_context.resource_name(shared.op) == "shared"


def test_make_callable_runs_a_graph_fragment_in_the_session():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [], name="p")
        y = tf.square(p)
        with tf.Session() as sess:
            ctx = RuntimeContext(y.op, sess._context)
            fn = ctx.make_callable([y], [p])
            assert fn([3.0]) == [9.0]
            assert ctx.run_state.cancelled is False
