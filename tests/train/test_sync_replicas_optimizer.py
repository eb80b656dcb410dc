"""tf.train.SyncReplicasOptimizer in one process: the graph it builds (against TF's), the
hook under MonitoredTrainingSession, two replicas in one graph stepping in threads (one
global step per aggregated update, stale gradients dropped), numbers against TF."""
import threading
import time

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from sync_replicas_cases import GRAPH_NODES, SCENARIO
from tf_interop import needs_tf, run_json

F32 = np.float32


def _run_case(source, fn):
    env = {}
    exec(source, env)
    return env[fn](tf)


@pytest.fixture(scope="module")
def tf_results():
    """TensorFlow's scenario rounds and graph nodes, from one subprocess."""
    code = ("import json\nimport tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n" +
            SCENARIO + GRAPH_NODES +
            "\nprint(json.dumps([scenario(tf), graph_nodes(tf)]))\n")
    return run_json(code, timeout=120)


def _model(replicas=1, total=None, opt=None, **kwargs):
    gs = tf.train.get_or_create_global_step()
    v = tf.get_variable("v", [2], initializer=tf.constant_initializer([1.0, 2.0]))
    loss = tf.reduce_sum(v * v)
    sync = tf.train.SyncReplicasOptimizer(opt or tf.train.GradientDescentOptimizer(0.1),
                                          replicas_to_aggregate=replicas,
                                          total_num_replicas=total, **kwargs)
    return gs, v, sync, sync.minimize(loss, global_step=gs)


def _wait(sess, tensor, pred, what):
    deadline = time.monotonic() + 20
    while True:
        value = sess.run(tensor)
        if pred(value):
            return value
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


def _assert_threads_end(before):
    """The threads started since `before` (the chief's queue runner) end within 5 s."""
    deadline = time.monotonic() + 5
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not set(threading.enumerate()) - before


def _expected_rounds():
    """The scenario's variables by NumPy: each aggregated update applies the mean of the two
    replicas' gradients (per row for the sparse one); round "stale" changes nothing."""
    x = np.array([[0.5, -1.0], [2.0, 1.5]], F32)
    v = np.array([1.0, 2.0], F32)
    e = np.ones((3, 2), F32)
    rows = {0: x[0], 1: x[1], 2: (x[0] + x[1]) / F32(2)}
    out = [(v.copy(), e.copy())]
    for step in range(4):
        g = ((F32(2) * (v - x[0])) + (F32(2) * (v - x[1]))) / F32(2)
        v = v - F32(0.1) * g
        for r, gr in rows.items():
            e[r] = e[r] - gr * F32(0.1)
        out.append((v.copy(), e.copy()))
        if step == 0:
            out.append(out[-1])  # the stale round
    return out


def test_two_replicas_one_update_per_round_and_stale_gradients_dropped():
    rounds = _run_case(SCENARIO, "scenario")["rounds"]
    assert [r["name"] for r in rounds] == ["start", "initial tokens", "stale", "together 0",
                                           "together 1", "together 2"]
    assert [r["global_step"] for r in rounds] == [0, 1, 1, 2, 3, 4]
    # The initial tokens carry step 0, so round 2's gradients are stale and dropped.
    assert [r["local_steps"] for r in rounds] == [[0, 0], [0, 0], [1, 1], [2, 2], [3, 3],
                                                  [4, 4]]
    assert all(r["num_accumulated"] == [0, 0] for r in rounds)
    for r, (v, e) in zip(rounds, _expected_rounds()):
        np.testing.assert_allclose(r["v"], v, rtol=1e-6, err_msg=r["name"])
        np.testing.assert_allclose(r["e"], e, rtol=1e-6, err_msg=r["name"])


@needs_tf
def test_two_replicas_match_tensorflow(tf_results):
    ours = _run_case(SCENARIO, "scenario")["rounds"]
    theirs = tf_results[0]["rounds"]
    for a, b in zip(ours, theirs):
        assert {k: a[k] for k in ("name", "global_step", "local_steps", "num_accumulated")} \
            == {k: b[k] for k in ("name", "global_step", "local_steps", "num_accumulated")}
        np.testing.assert_allclose(a["v"], b["v"], rtol=1e-7, err_msg=a["name"])
        np.testing.assert_allclose(a["e"], b["e"], rtol=1e-7, err_msg=a["name"])
    assert len(ours) == len(theirs)


@needs_tf
def test_graph_matches_tensorflow(tf_results):
    ours = _run_case(GRAPH_NODES, "graph_nodes")
    theirs = tf_results[1]
    assert ours.pop("nodes") == theirs.pop("nodes")
    assert ours == theirs


def test_graph_structure_and_placement():
    cluster = tf.train.ClusterSpec({"ps": ["a:1"], "worker": ["b:1", "c:1"]})
    with tf.Graph().as_default() as g, tf.device(tf.train.replica_device_setter(
            worker_device="/job:worker/task:1", cluster=cluster)):
        gs, v, opt, train = _model(replicas=2, total=3)
        assert train.op.type == "Assign" and train.op.name == "Assign_1"
        assert [x.name for x in tf.local_variables()] == ["sync_rep_local_step:0"]
        assert opt._local_step not in tf.global_variables() + tf.trainable_variables()
        assert opt._local_step.dtype.base_dtype == tf.int64
        # The local step stays on the replica; accumulators, queue and update on the ps.
        assert opt._local_step.device == "/job:worker/task:1"
        acc = g.get_operation_by_name("sync_replicas/conditional_accumulator")
        assert acc.device == "/job:ps/task:0"
        assert acc.get_attr("shared_name") == b"v:0/grad_accum"
        q = g.get_operation_by_name("sync_token_q")
        assert q.device == "/job:ps/task:0"
        assert (q.get_attr("shared_name"), q.get_attr("capacity")) == (b"sync_token_q", -1)
        assert g.get_operation_by_name("GradientDescent").device == "/job:ps/task:0"
        assert opt.chief_init_op.name == "sync_replicas/group_deps"
        assert opt.local_step_init_op.op.inputs[1].name == "global_step/read:0"
        qr = opt.get_chief_queue_runner()
        assert qr.queue is opt._sync_token_queue
        assert [op.name for op in qr.enqueue_ops] == ["sync_token_q_EnqueueMany"]
        # Each aggregated update enqueues max(total, to_aggregate) tokens.
        fill = g.get_operation_by_name("Fill")
        assert tf.get_static_value(fill.inputs[0]).tolist() == [3]


def test_init_tokens():
    with tf.Graph().as_default():
        gs, v, opt, _ = _model(replicas=3, total=1)
        default = opt.get_init_tokens_op()
        more = opt.get_init_tokens_op(num_tokens=5)
        with pytest.raises(ValueError, match=r"Too few tokens to finish the first step: 1 "
                                             r"\(given\) vs 2 \(needed\)"):
            opt.get_init_tokens_op(num_tokens=1)
        size = opt._sync_token_queue.size()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(gs, 7))
            sess.run(default)
            assert sess.run(size) == 3
            sess.run(more)
            assert sess.run(opt._sync_token_queue.dequeue_many(8)).tolist() == [7] * 8
    with tf.Graph().as_default():
        _, _, opt, _ = _model(replicas=2, total=2)
        none = opt.get_init_tokens_op(num_tokens=0)
        assert (none.type, none.name) == ("NoOp", "no_init_tokens")


def test_errors():
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        v = tf.get_variable("v", [2])
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2)
        hook = opt.make_session_run_hook(True)
        with pytest.raises(ValueError, match="Should be called after apply_gradients"):
            opt.get_chief_queue_runner()
        with pytest.raises(ValueError, match=r"get_init_tokens_op\(\) should be called after"):
            opt.get_init_tokens_op()
        with pytest.raises(ValueError, match="apply_gradient should be called before using "
                                             "the hook"):
            hook.begin()
        with pytest.raises(ValueError, match="Must supply at least one variable"):
            opt.apply_gradients([], global_step=gs)
        with pytest.raises(ValueError, match="Global step is required to check staleness"):
            opt.apply_gradients([(tf.ones([2]), v)])
        with pytest.raises(ValueError, match="Unknown grad type!"):
            opt.apply_gradients([(np.ones(2, np.float32), v)], global_step=gs)
        with pytest.raises(ValueError, match="Must specify the optimizer name"):
            tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 2,
                                           name="")


def test_wraps_the_optimizer():
    with tf.Graph().as_default():
        _, v, opt, _ = _model(opt=tf.train.MomentumOptimizer(0.1, 0.9))
        inner = opt._opt
        assert opt.get_slot_names() == inner.get_slot_names() == ["momentum"]
        assert opt.get_slot(v, "momentum") is inner.get_slot(v, "momentum")
        assert opt.variables() == inner.variables()
        assert opt.compute_gradients(tf.reduce_sum(v))[0][1] is v


# After the monitored session closes, the chief's queue runner, blocked in TakeGradient,
# ends with CancelledError raised in its thread, as in TensorFlow.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_one_replica_with_monitored_training_session():
    before = set(threading.enumerate())
    with tf.Graph().as_default():
        gs, v, opt, train = _model(replicas=1)
        values = []
        with tf.train.MonitoredTrainingSession(
                hooks=[opt.make_session_run_hook(is_chief=True)],
                stop_grace_period_secs=0.5) as sess:
            assert sess.run(opt._local_step) == 0
            sess.run(train)
            _wait(sess, gs, lambda s: s == 1, "no update")
            values.append(sess.run(v))
            # The initial token carries step 0: the next gradient is stale and dropped.
            sess.run(train)
            assert sess.run([gs, opt._local_step]) == [1, 1]
            for step in range(2, 6):
                sess.run(train)
                _wait(sess, gs, lambda s, step=step: s == step, "no update")
                values.append(sess.run(v))
                # The replica records each token's global step as its local step.
                assert sess.run(opt._local_step) == step
    want, x = [], np.array([1.0, 2.0], F32)
    for _ in range(5):
        x = x - F32(0.1) * (x + x)
        want.append(x)
    # TensorFlow 2.21 gives v[0] = 0.8, 0.64, 0.51199996, 0.40959996, 0.32767996.
    np.testing.assert_allclose(np.array(values)[:, 0],
                               [0.8, 0.64, 0.51199996, 0.40959996, 0.32767996], rtol=1e-7)
    np.testing.assert_allclose(values, want, rtol=1e-6)
    _assert_threads_end(before)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_variable_averages_applied_by_the_chief():
    before = set(threading.enumerate())
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        v = tf.get_variable("v", [2], initializer=tf.constant_initializer([1.0, 2.0]))
        ema = tf.train.ExponentialMovingAverage(0.5)
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.1), 1,
                                             variable_averages=ema, variables_to_average=[v])
        train = opt.minimize(tf.reduce_sum(v * v), global_step=gs)
        shadow = ema.average(v)
        assert shadow.op.name == "v/ExponentialMovingAverage"
        x = np.array([1.0, 2.0], F32)
        avg = x.copy()
        with tf.train.MonitoredTrainingSession(
                hooks=[opt.make_session_run_hook(is_chief=True)],
                stop_grace_period_secs=0.5) as sess:
            for run in range(1, 5):
                sess.run(train)
                if run == 2:
                    continue  # stale: the initial token carries step 0
                x = x - F32(0.1) * (x + x)
                avg = avg - (avg - x) * F32(0.5)
                _wait(sess, shadow,
                      lambda s, a=avg.copy():  # noqa: B008 - binds this step's value
                      np.allclose(s, a, rtol=1e-6),
                      "the chief did not apply the moving average")
    _assert_threads_end(before)
