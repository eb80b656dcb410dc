"""Session.run from many threads at once: the plan cache and results stay consistent."""
import threading

import numpy as np

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.shape_inference import unchanged_shape

if not registry.is_registered("TestThreadsAddOne"):
    def _add_one(x):
        return (x + x.dtype.type(1)).astype(x.dtype)

    registry.register_op("TestThreadsAddOne", inputs=["x: T"], outputs=["y: T"],
                         attrs=["T: {float, int32}"], shape_fn=unchanged_shape,
                         kernel=_add_one)


def _chain(x, n):
    for _ in range(n):
        x = apply_op("TestThreadsAddOne", x=x).outputs[0]
    return x


def test_concurrent_runs_with_many_signatures():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None], name="p")
        q = tf.placeholder(tf.int32, [], name="q")
        outs = [_chain(p, n) for n in range(1, 6)]
        iq = _chain(q, 3)
        sess = tf.Session()
    errors = []
    n_threads, n_steps = 8, 60
    barrier = threading.Barrier(n_threads)

    def worker(k):
        try:
            barrier.wait()
            rng = np.random.default_rng(k)
            for step in range(n_steps):
                picks = sorted(rng.choice(5, size=rng.integers(1, 4), replace=False))
                value = rng.standard_normal(rng.integers(1, 5)).astype(np.float32)
                fetches = [outs[i] for i in picks]
                if step % 3 == 0:
                    got, gq = sess.run([fetches, iq], {p: value, q: step})
                    assert gq == step + 3
                else:
                    got = sess.run(fetches, {p: value})
                for i, g in zip(picks, got):
                    np.testing.assert_allclose(g, value + (i + 1), rtol=1e-6)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    sess.close()
    assert not errors, errors[0]


def test_concurrent_variable_updates_see_one_buffer():
    """Runs from several threads write the same variable; every write lands in the one
    buffer the session holds (reads after the joins see the last write)."""
    from trainflow._src.ops.state import state_ops
    with tf.Graph().as_default():
        v = state_ops.variable_op_v2([3], tf.float32, name="v")
        p = tf.placeholder(tf.float32, [3])
        assign = state_ops.assign(v, p)
        sess = tf.Session()
    sess.run(assign, {p: np.zeros(3, np.float32)})
    slot = sess._resources.variable("v")
    buffer = slot.value

    def worker(k):
        for _ in range(50):
            sess.run(assign.op, {p: np.full(3, k, np.float32)})

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    final = sess.run(v)
    assert slot.value is buffer
    assert final[0] in range(4) and np.all(final == final[0])
    sess.close()
