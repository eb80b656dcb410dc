"""Session.make_callable and partial_run_setup / partial_run.

Expected behaviour and messages were recorded from TensorFlow 2.21 (compat.v1).
"""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.shape_inference import unchanged_shape
from trainflow._src.ops.state import state_ops

if not registry.is_registered("TestCallablesCountingIdentity"):
    def _counting_identity(x, *, ctx):
        ctx.state["n"] = ctx.state.get("n", 0) + 1
        return x.copy()

    registry.register_op("TestCallablesCountingIdentity", inputs=["x: T"], outputs=["y: T"],
                         attrs=["T: type"], shape_fn=unchanged_shape,
                         kernel=_counting_identity, stateful=True)


def _runs(sess, t):
    """How many times the counting op of `t` ran in `sess`."""
    return sess._context.kernels[t.op].keywords["ctx"].state.get("n", 0)


@pytest.fixture
def env():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        p = tf.placeholder(tf.float32, [2], name="p")
        q = tf.placeholder(tf.float32, [2], name="q")
        pi = apply_op("TestCallablesCountingIdentity", x=p, name="pi").outputs[0]
        qi = tf.identity(q, name="qi")
        noop = tf.no_op(name="noop")
        v = state_ops.variable_op_v2([2], tf.float32, name="v")
        init = state_ops.assign(v, np.array([1.0, 2.0], np.float32), name="init")
    with tf.Session(graph=g) as sess:
        yield sess, a, p, q, pi, qi, noop, v, init


class TestMakeCallable:
    def test_fetch_structures(self, env):
        sess, a, p, q, pi, qi, noop, v, init = env
        f = sess.make_callable(pi, [p])
        np.testing.assert_array_equal(f([1, 2]), [1, 2])
        np.testing.assert_array_equal(f(np.array([3, 4], np.float32)), [3, 4])
        out = sess.make_callable([pi, qi], [p, q])([1, 2], [3, 4])
        assert isinstance(out, list) and [list(x) for x in out] == [[1, 2], [3, 4]]
        assert sess.make_callable(a)() == np.float32(1.0)
        assert sess.make_callable(noop)() is None
        assert sess.make_callable([a])() == [np.float32(1.0)]
        assert sess.make_callable([noop])() == [None]
        assert sess.make_callable("a:0")() == np.float32(1.0)
        out = sess.make_callable({"x": a, "y": (pi,)}, ["p:0"])([5, 6])
        assert out["x"] == 1.0 and isinstance(out["y"], tuple)
        np.testing.assert_array_equal(out["y"][0], [5, 6])

    def test_bad_calls(self, env):
        sess, a, p, q, pi, *_ = env
        f = sess.make_callable(pi, [p])
        with pytest.raises(TypeError, match="Expected 1 feed values, got 0"):
            f()
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\) for Tensor "
                           r"p:0, which has shape \(2,\)"):
            f([1, 2, 3])
        with pytest.raises(TypeError, match="unexpected keyword argument 'options'"):
            sess.make_callable(a)(options=tf.RunOptions())

    def test_options_and_metadata(self, env):
        sess, a, *_ = env
        f = sess.make_callable(a, accept_options=True)
        md = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
        assert f(options=opts, run_metadata=md) == 1.0
        assert [n.node_name for n in md.step_stats.dev_stats[0].node_stats] == ["a"]

    def test_variables_and_results_are_copies(self, env):
        sess, a, p, q, pi, qi, noop, v, init = env
        f = sess.make_callable(v, [])
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized value v"):
            f()
        sess.run(init)
        out = f()
        out[0] = 9
        np.testing.assert_array_equal(f(), [1, 2])

    def test_after_close(self, env):
        sess, a, *_ = env
        f = sess.make_callable(a)
        sess.close()
        with pytest.raises(tf.errors.CancelledError, match="Session has been closed."):
            f()


class TestPartialRun:
    def test_feeds_and_fetches_in_steps(self, env):
        sess, a, p, q, pi, qi, *_ = env
        h = sess.partial_run_setup([pi, qi], [p, q])
        assert isinstance(h, str)
        np.testing.assert_array_equal(sess.partial_run(h, pi, {p: [1, 2]}), [1, 2])
        out = sess.partial_run(h, [qi], {q: [3, 4]})
        np.testing.assert_array_equal(out[0], [3, 4])
        assert _runs(sess, pi) == 1

    def test_ops_run_once(self, env):
        sess, a, p, q, pi, *_ = env
        with sess.graph.as_default():
            later = tf.identity(pi, name="later")
        h = sess.partial_run_setup([pi, later, a], [p])
        out = sess.partial_run(h, pi, {p: [7, 7]})
        out[0] = 0  # results are copies
        np.testing.assert_array_equal(sess.partial_run(h, later), [7, 7])
        assert sess.partial_run(h, a) == np.float32(1.0)
        assert _runs(sess, pi) == 1

    def test_target_operations_run_with_the_first_step_that_can(self, env):
        sess, a, p, q, pi, qi, noop, v, init = env
        h = sess.partial_run_setup([init.op, v], [])
        np.testing.assert_array_equal(sess.partial_run(h, v), [1, 2])

    def test_fetching_an_operation_raises(self, env):
        sess, a, p, q, pi, qi, noop, v, init = env
        h = sess.partial_run_setup([init.op, v], [])
        with pytest.raises(RuntimeError, match="partial_run\\(\\) requires empty `target_list`"):
            sess.partial_run(h, init.op)

    def test_target_waits_for_its_feed(self, env):
        sess, a, p, q, pi, qi, noop, v, init = env
        with sess.graph.as_default():
            store = tf.assign(v, tf.cast(p, tf.float32) * 10.0)
        sess.run(init)
        h = sess.partial_run_setup([store.op, pi, a], [p])
        assert sess.partial_run(h, a) == np.float32(1.0)
        np.testing.assert_array_equal(sess.run(v), [1, 2])  # p not fed yet: not run
        sess.partial_run(h, pi, {p: [3, 4]})
        np.testing.assert_array_equal(sess.run(v), [30, 40])

    @pytest.mark.parametrize("step, message", [
        (lambda s, h, e: s.partial_run(h, e["pi"], {e["p"]: [1, 2]}),
         "The feed p:0 has already been fed."),
        (lambda s, h, e: s.partial_run(h, e["qi"], {e["q"]: [1, 2]}),
         "The feed q:0 was not specified in partial_run_setup."),
        (lambda s, h, e: s.partial_run(h, e["a"]),
         "The fetch a:0 was not specified in partial_run_setup."),
        (lambda s, h, e: s.partial_run(h, e["pi"]),
         "The fetch pi:0 has already been fetched."),
        (lambda s, h, e: s.partial_run("bogus", e["pi"]),
         "Must run 'setup' before performing partial runs!"),
    ])
    def test_errors(self, env, step, message):
        sess, a, p, q, pi, qi, *_ = env
        h = sess.partial_run_setup([pi, qi], [p])
        sess.partial_run(h, pi, {p: [1, 2]})
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            step(sess, h, {"a": a, "p": p, "q": q, "pi": pi, "qi": qi})
        assert info.value.message == message

    def test_fetch_needing_a_feed_not_yet_fed(self, env):
        sess, a, p, q, pi, *_ = env
        h = sess.partial_run_setup([pi], [p])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Fetch p:0 can't be computed from the feeds that have been "
                                 "fed so far."):
            sess.partial_run(h, pi)

    def test_handle_expires_after_every_fetch(self, env):
        sess, a, p, q, pi, qi, *_ = env
        h = sess.partial_run_setup([pi, qi], [p, q])
        sess.partial_run(h, pi, {p: [1, 2]})
        sess.partial_run(h, qi, {q: [3, 4]})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Must run 'setup' before performing partial runs!"):
            sess.partial_run(h, qi)
