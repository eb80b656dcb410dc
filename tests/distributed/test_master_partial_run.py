"""Partial runs over grpc (PartialRunSetup, RunStep with a partial_run_handle) on a
cluster: fed and fetched in pieces across tasks, each op running once, TF's errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from local_cluster import local_cluster

CONFIG = tf.ConfigProto(operation_timeout_in_ms=20000)


def _graph():
    """a, b fed on the worker; r1 on the ps; r2 on the worker; a counter on the ps that
    the setup's target bumps once a is fed; noise drawn once on the ps."""
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [], name="a")
        b = tf.placeholder(tf.float32, [], name="b")
        c = tf.placeholder(tf.float32, [], name="c")
        with tf.device("/job:ps/task:0"):
            count = tf.Variable(0.0, name="count")
            r1 = tf.add(a, b, name="r1")
            noise = tf.random_uniform([3], seed=1, name="noise")
            bump = tf.assign_add(count, a, name="bump")
        with tf.device("/job:worker/task:0"):
            r2 = tf.multiply(r1, c, name="r2")
            noisy = tf.add(tf.reduce_sum(noise), r2, name="noisy")
    return g, dict(a=a, b=b, c=c, r1=r1, r2=r2, noise=noise, noisy=noisy, count=count,
                   bump=bump)


@pytest.fixture(scope="module")
def cluster():
    with local_cluster(ps=1, workers=1) as (spec, servers):
        yield servers["worker"][0].target


def test_fed_and_fetched_in_pieces_across_tasks_ops_run_once(cluster):
    g, m = _graph()
    with tf.Session(cluster, graph=g, config=CONFIG) as sess:
        sess.run(m["count"].initializer)
        h = sess.partial_run_setup([m["r1"], m["noise"], m["r2"], m["noisy"], m["bump"].op],
                                   [m["a"], m["b"], m["c"]])
        assert sess.partial_run(h, m["r1"], {m["a"]: 1.0, m["b"]: 2.0}) == 3.0
        noise = sess.partial_run(h, m["noise"])
        r2, noisy = sess.partial_run(h, [m["r2"], m["noisy"]], {m["c"]: 4.0})
        assert r2 == 12.0
        # The noise was drawn once: the later fetch used the same values.
        np.testing.assert_allclose(noisy, noise.sum() + 12.0, rtol=1e-6)
        # The target ran once, when `a` was fed.
        assert sess.run(m["count"]) == 1.0
        # Every feed fed and every fetch fetched: the handle is gone.
        with pytest.raises(errors.InvalidArgumentError, match="PartialRunSetup"):
            sess.partial_run(h, m["r1"])


@pytest.mark.parametrize("call, message", [
    (lambda s, h, m: s.partial_run(h, m["r1"], {m["a"]: 1.0, m["b"]: 2.0, m["r2"]: 0.0}),
     "The feed r2:0 was not specified in partial_run_setup."),
    (lambda s, h, m: s.partial_run(h, m["noisy"]),
     "The fetch noisy:0 was not specified in partial_run_setup."),
    (lambda s, h, m: s.partial_run(h, m["r2"], {m["a"]: 1.0, m["b"]: 2.0}),
     "Fetch c:0 can't be computed from the feeds that have been fed so far."),
    (lambda s, h, m: s.partial_run("no-such-handle", m["r1"]),
     "Must run PartialRunSetup before performing partial runs"),
])
def test_errors_as_tensorflow(cluster, call, message):
    g, m = _graph()
    with tf.Session(cluster, graph=g, config=CONFIG) as sess:
        h = sess.partial_run_setup([m["r1"], m["r2"]], [m["a"], m["b"], m["c"]])
        with pytest.raises(errors.InvalidArgumentError) as info:
            call(sess, h, m)
        assert info.value.message == message
        # A refused request leaves the partial run going.
        assert sess.partial_run(h, m["r1"], {m["a"]: 1.0, m["b"]: 2.0}) == 3.0


def test_fed_twice_fetched_twice_and_ops_as_fetches(cluster):
    g, m = _graph()
    with tf.Session(cluster, graph=g, config=CONFIG) as sess:
        h = sess.partial_run_setup([m["r1"], m["r2"], m["bump"].op],
                                   [m["a"], m["b"], m["c"]])
        sess.run(m["count"].initializer)
        assert sess.partial_run(h, m["r1"], {m["a"]: 1.0, m["b"]: 2.0}) == 3.0
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"^The fetch r1:0 has already been fetched\.$"):
            sess.partial_run(h, m["r1"])
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"^The feed a:0 has already been fed\.$"):
            sess.partial_run(h, m["r2"], {m["a"]: 1.0, m["c"]: 1.0})
        with pytest.raises(RuntimeError, match="requires empty `target_list`"):
            sess.partial_run(h, m["bump"].op)
        assert sess.partial_run(h, m["r2"], {m["c"]: 2.0}) == 6.0
        assert sess.run(m["count"]) == 1.0


def test_failed_step_ends_the_partial_run(cluster):
    g, m = _graph()
    with g.as_default():
        free = tf.placeholder(tf.float32, name="free")
        with tf.device("/job:ps/task:0"):
            bad = tf.reshape(free, [2], name="bad")
    with tf.Session(cluster, graph=g, config=CONFIG) as sess:
        h = sess.partial_run_setup([bad, m["r1"]], [free, m["a"], m["b"]])
        with pytest.raises(errors.InvalidArgumentError, match="bad"):
            sess.partial_run(h, bad, {free: [1.0, 2.0, 3.0], m["a"]: 1.0})
        with pytest.raises(errors.InvalidArgumentError, match="PartialRunSetup"):
            sess.partial_run(h, m["r1"], {m["b"]: 1.0})


def test_refs_across_requests(cluster):
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [], name="a")
        b = tf.placeholder(tf.float32, [], name="b")
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(1.0, name="v")
            bumped = tf.assign_add(v, a, name="bumped")
        later = tf.add(tf.identity(bumped), b, name="later")
        read = tf.multiply(v, b, name="read")
    with tf.Session(cluster, graph=g, config=CONFIG) as sess:
        sess.run(v.initializer)
        h = sess.partial_run_setup([bumped, later, read], [a, b])
        assert sess.partial_run(h, bumped, {a: 2.0}) == 3.0
        # The assignment's result is reused, not recomputed; the variable is read anew.
        assert sess.partial_run(h, [later, read], {b: 10.0}) == [13.0, 30.0]
        assert sess.run(v) == 3.0
