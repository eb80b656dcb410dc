"""Resource variables inside XLA segments: training programs on resource variables run as
one compiled segment per step and give the NumPy backend's losses; the host (fetches,
Saver, reads between steps) sees the device values; uninitialized variables and bad
indices raise the NumPy path's errors. Skipped when jax is not installed."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

pytest.importorskip("jax")
import xla_compare  # noqa: E402
from trainflow._src.runtime.backends import xla_backend  # noqa: E402


@pytest.fixture(autouse=True)
def _switch_from_config_only(monkeypatch):
    """Sessions with the switch off and on: the config decides, not TF_XLA_FLAGS."""
    monkeypatch.delenv("TF_XLA_FLAGS", raising=False)


def _segments(plan):
    return [op for op in plan.ops if isinstance(op, xla_backend.SegmentOp)]


def _train_plan(sess, train):
    return [p for k, p in sess._plans.items() if train in k[0]][0]


def _host_types(plan):
    """The op types of a plan that run outside segments, less the handles and constants."""
    return [op.type for op in plan.ops if not isinstance(op, xla_backend.SegmentOp)
            and op.type not in ("VarHandleOp", "Const")]


OPTIMIZERS = {
    "sgd": (lambda: tf.train.GradientDescentOptimizer(0.1), "ResourceApplyGradientDescent"),
    "momentum": (lambda: tf.train.MomentumOptimizer(0.05, 0.9), "ResourceApplyMomentum"),
    "adam": (lambda: tf.train.AdamOptimizer(0.01), "ResourceApplyAdam"),
    "adagrad": (lambda: tf.train.AdagradOptimizer(0.1), "ResourceApplyAdagrad"),
    "rmsprop": (lambda: tf.train.RMSPropOptimizer(0.01, momentum=0.5), "ResourceApplyRMSProp"),
    "ftrl": (lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.001,
                                            l2_regularization_strength=0.01),
             "ResourceApplyFtrl"),
}


def _mlp(optimizer, sizes=(16, 12, 12, 4)):
    """An MLP on resource variables (`use_resource=True`), with a global step."""
    def build():
        x = tf.placeholder(tf.float32, [None, sizes[0]])
        y = tf.placeholder(tf.int64, [None])
        h = x
        for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            w = tf.get_variable(f"w{i}", [n_in, n_out], use_resource=True,
                                initializer=tf.glorot_uniform_initializer(seed=i))
            b = tf.get_variable(f"b{i}", [n_out], use_resource=True,
                                initializer=tf.zeros_initializer())
            h = tf.matmul(h, w) + b
            if i < len(sizes) - 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                            logits=h))
        step = tf.get_variable("global_step", [], tf.int64, tf.zeros_initializer(),
                               trainable=False, use_resource=True)
        train = optimizer().minimize(loss, global_step=step)
        return [loss, train], tf.global_variables_initializer(), [x, y]
    rng = np.random.RandomState(1)
    data = rng.rand(32, sizes[0]).astype(np.float32), rng.randint(0, sizes[-1], 32)
    return build, lambda i: data


def _embedding(optimizer):
    """Embedding lookup on a resource variable (ResourceGather) with a sparse update."""
    def build():
        ids = tf.placeholder(tf.int32, [None])
        targets = tf.placeholder(tf.int64, [None])
        emb = tf.get_variable("emb", [30, 8], use_resource=True,
                              initializer=tf.random_uniform_initializer(-1, 1, seed=4))
        out_w = tf.get_variable("out_w", [8, 30], use_resource=True,
                                initializer=tf.glorot_uniform_initializer(seed=5))
        logits = tf.matmul(tf.nn.embedding_lookup(emb, ids), out_w)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=targets, logits=logits))
        train = optimizer().minimize(loss)
        return [loss, train], tf.global_variables_initializer(), [ids, targets]
    rng = np.random.RandomState(6)
    # Sixteen ids a step, four of them repeats (Adagrad sums repeated rows with Unique,
    # whose output size then stays the same from step to step).
    centres = np.array([np.r_[p, p[:4]] for p in (rng.permutation(30)[:12]
                                                 for _ in range(50))], np.int32)
    return build, lambda i: (centres[i], (centres[i].astype(np.int64) * 7 + 3) % 30)


def _run_both(build, feeds, steps=50):
    """Losses on NumPy and on XLA, and the XLA session's training plan."""
    out, plans = [], []
    for jit in (False, True):
        g = tf.Graph()
        with g.as_default():
            (loss, train), init, phs = build()
        with tf.Session(graph=g, config=xla_compare.config(jit)) as sess:
            sess.run(init)
            out.append([sess.run([loss, train], dict(zip(phs, feeds(i))))[0]
                        for i in range(steps)])
            if jit:
                assert not xla_compare.fallback_reasons(sess)
                plans.append(_train_plan(sess, train))
    return np.array(out[0]), np.array(out[1]), plans[0]


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_resource_mlp_is_one_segment_and_trains_as_on_numpy(name):
    optimizer, apply_type = OPTIMIZERS[name]
    np_loss, xla_loss, plan = _run_both(*_mlp(optimizer))
    assert len(_segments(plan)) == 1 and _host_types(plan) == []
    seg = _segments(plan)[0]
    types = {op.type for op in seg.ops}
    assert {apply_type, "ReadVariableOp", "AssignAddVariableOp"} <= types
    assert np_loss[-1] < np_loss[0]
    np.testing.assert_allclose(xla_loss, np_loss, rtol=2e-5, atol=1e-6)


def test_embedding_with_gradient_descent_is_one_segment():
    # GradientDescent applies the rows with ResourceScatterAdd (no Unique first).
    np_loss, xla_loss, plan = _run_both(*_embedding(
        lambda: tf.train.GradientDescentOptimizer(0.5)))
    assert len(_segments(plan)) == 1 and _host_types(plan) == []
    assert {"ResourceGather", "ResourceScatterAdd"} <= {op.type for op in plan.ops[-1].ops}
    assert np_loss[-1] < np_loss[0]
    np.testing.assert_allclose(xla_loss, np_loss, rtol=2e-5, atol=1e-6)


def test_embedding_with_adagrad_lowers_the_sparse_apply():
    # Adagrad sums repeated rows first with Unique, whose output size depends on the
    # values: that op alone runs on the host, between two segments.
    np_loss, xla_loss, plan = _run_both(*_embedding(lambda: tf.train.AdagradOptimizer(0.3)))
    assert _host_types(plan) == ["Unique"] and len(_segments(plan)) == 2
    assert "ResourceSparseApplyAdagrad" in {op.type for op in _segments(plan)[1].ops}
    assert np_loss[-1] < np_loss[0]
    np.testing.assert_allclose(xla_loss, np_loss, rtol=2e-5, atol=1e-6)


def _host_paths_scenario(jit, ckpt):
    """Trains resource variables with host reads, a Saver save/restore and a host
    assignment in between; every observation, in order."""
    build, feeds = _mlp(lambda: tf.train.AdamOptimizer(0.05), sizes=(6, 5, 3))
    g = tf.Graph()
    with g.as_default():
        (loss, train), init, phs = build()
        w = tf.trainable_variables()[0]
        step = [v for v in tf.global_variables() if v.op.name == "global_step"][0]
        # ResourceCountUpTo has no lowering: it reads and increments on the host.
        count = step.count_up_to(100)
        saver = tf.train.Saver()
        doubled = w.read_value() * 2.0
        fed = tf.placeholder(tf.float32, w.shape)
        assign = w.assign(fed)
    seen = []
    with tf.Session(graph=g, config=xla_compare.config(jit)) as sess:
        sess.run(init)

        def steps(n):
            return [sess.run([loss, train], dict(zip(phs, feeds(i))))[0] for i in range(n)]
        seen += steps(3)
        if jit:
            # Nothing on the host read the variables: their values live on the device.
            slots = sess._resources.variables()
            assert slots["w0"]._device is not None and slots["w0"]._stale
        seen.append(sess.run(w))  # a host read between steps syncs the device value
        seen.append(sess.run(doubled))
        seen.append(sess.run(count))  # the step count the device wrote: 3
        path = saver.save(sess, ckpt)
        seen += steps(2)
        sess.run(assign, {fed: np.full(w.shape, -0.5, np.float32)})
        seen += steps(1)
        saver.restore(sess, path)
        seen.append(sess.run(w))
        seen += steps(2)
        seen.append(sess.run(w))
        seen.append(sess.run(step))  # the restored 4, plus two steps on the device
    reader = tf.train.load_checkpoint(path)
    seen.append(reader.get_tensor("w0"))
    return seen


def test_host_reads_and_saver_see_the_device_values(tmp_path):
    got = _host_paths_scenario(True, str(tmp_path / "xla" / "model"))
    want = _host_paths_scenario(False, str(tmp_path / "numpy" / "model"))
    xla_compare.assert_same_observations(got, want)
    # The checkpoint holds the values after the three steps, not the initial ones.
    np.testing.assert_allclose(got[-1], got[3], rtol=0, atol=0)
    assert got[5] == 3 and got[-2] == 6


def test_read_after_assign_in_one_segment_sees_the_assigned_value():
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=np.ones(3, np.float32), use_resource=True)
        x = tf.placeholder(tf.float32, [None])
        before = v.read_value() * 1.0
        with tf.control_dependencies([before]):
            add = v.assign_add(x * 2.0, read_value=False)
        with tf.control_dependencies([add]):
            after = v.read_value() + 0.0
        with tf.Session(config=xla_compare.config(True)) as sess:
            sess.run(v.initializer)
            got = sess.run([before, after], {x: [1.0, 2.0, 3.0]})
            plan = list(sess._plans.values())[-1]
            assert len(_segments(plan)) == 1 and _host_types(plan) == []
            assert got[0].tolist() == [1.0, 1.0, 1.0] and got[1].tolist() == [3.0, 5.0, 7.0]
            assert sess.run(v).tolist() == [3.0, 5.0, 7.0]


def test_uninitialized_resource_variable_raises_the_numpy_error():
    messages = []
    for jit in (False, True):
        with tf.Graph().as_default():
            v = tf.get_variable("v", initializer=np.ones(3, np.float32), use_resource=True)
            y = v.read_value() * 2.0
            ready = tf.report_uninitialized_variables()
            with tf.Session(config=xla_compare.config(jit)) as sess:
                assert sess.run(ready).tolist() == [b"v"]
                with pytest.raises(tf.errors.FailedPreconditionError) as info:
                    sess.run(y)
                messages.append(info.value.message)
                sess.run(tf.global_variables_initializer())
                assert sess.run(ready).tolist() == []
                assert sess.run(y).tolist() == [2.0, 2.0, 2.0]
    assert messages[0] == messages[1] and "v" in messages[1]


def test_gather_out_of_range_raises_the_numpy_error():
    errors = []
    for jit in (False, True):
        with tf.Graph().as_default():
            v = tf.get_variable("v", initializer=np.eye(3, dtype=np.float32),
                                use_resource=True)
            ids = tf.placeholder(tf.int32, [None])
            y = tf.nn.embedding_lookup(v, ids) * 2.0
            with tf.Session(config=xla_compare.config(jit)) as sess:
                sess.run(v.initializer)
                assert sess.run(y, {ids: [2, 0]}).tolist() == [[0, 0, 2], [2, 0, 0]]
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(y, {ids: [1, 3]})
                errors.append((info.value.op.type, info.value.message))
    assert errors[0] == errors[1] and errors[1][0] == "ResourceGather"
    assert "indices[1] = 3 is not in [0, 3)" in errors[1][1]
