"""The NumPy backend: a segment compiled to straight-line code; errors name the op."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.ops.control_flow.switch import switch
from trainflow._src.runtime import planner
from trainflow._src.runtime.backends import numpy_backend


def _program(fetches, feeds):
    fed = set(feeds)
    ops = planner.needed_ops([t.op for t in fetches if t not in fed], fed)
    kernels = [numpy_backend.bind_kernel(op, None) for op in ops]
    folded = planner.fold_constants(ops, fed)
    return numpy_backend.Program(ops, list(fetches), list(feeds), folded, kernels)


def test_program_runs_a_segment_of_ops():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2], name="p")
        y = tf.multiply(tf.add(p, 1.0), 2.0, name="y")
        program = _program([y], [p])
    assert program.source.startswith("def _plan(_f):")
    assert not program.may_dead and program.fetch_is_ref == [False]
    np.testing.assert_allclose(program.run([np.float32([1, 2])])[0], [4, 6])
    trace = []
    program.run([np.float32([1, 2])], lambda k, t0, t1: trace.append(k))
    assert trace == list(range(len(program.ops)))


def test_program_maps_a_failure_to_the_op_and_its_line():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.int32, [], name="p")
        r = tf.reshape(tf.range(p), [2, 2], name="bad_reshape")
        line = r.op.traceback[-1][1]
        program = _program([r], [p])
    with pytest.raises(errors.InvalidArgumentError) as info:
        program.run([np.int32(3)])
    assert info.value.op is r.op
    assert f"bad_reshape (Reshape) defined at {__file__}:{line}" in info.value.message


def test_switch_makes_dead_values():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.bool, [], name="p")
        f, t = switch(tf.constant(1.0), p)
        program = _program([f, t], [p])
    assert program.may_dead
    out_false, out_true = program.run([np.bool_(True)])
    assert out_false is numpy_backend.DEAD and out_true == 1.0


def _error_state_seen(marked):
    """np.geterr() as a program's one kernel sees it, with and without a trace."""
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2], name="p")
        y = tf.identity(p, name="y")
    seen = []

    def kernel(x):
        seen.append(np.geterr()["divide"])
        return x
    if marked:
        kernel.handles_float_errors = True
    program = numpy_backend.Program([y.op], [y], [p], {}, [kernel])
    program.run([np.float32([1, 2])])
    program.run([np.float32([1, 2])], lambda k, t0, t1: None)
    return seen


def test_float_errors_are_ignored_unless_every_kernel_handles_its_own():
    # Kernels follow TF (inf/nan are values); a program made only of kernels that keep
    # NumPy's error state to themselves (fused XLA segments) runs without one.
    assert _error_state_seen(marked=False) == ["ignore", "ignore"]
    default = np.geterr()["divide"]
    assert default != "ignore"
    assert _error_state_seen(marked=True) == [default, "ignore"]
