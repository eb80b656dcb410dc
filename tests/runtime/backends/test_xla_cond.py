"""TF1 conds (Switch/Merge frames) inside XLA segments against the NumPy backend: training
programs whose step holds a cond run as one compiled segment per step and agree over
50 steps with the predicate flipping; checks fire only in the taken branch; conds that
need the host stay there. Skipped without jax."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

pytest.importorskip("jax")
import xla_compare  # noqa: E402

STEPS = 50
RNG = np.random.RandomState(7)
XS = RNG.randn(STEPS, 16, 6).astype(np.float32)
YS = RNG.randint(0, 3, (STEPS, 16))
FLIPS = RNG.rand(STEPS) < 0.5


@pytest.fixture(autouse=True)
def _switch_from_config_only(monkeypatch):
    """Sessions with the switch off and on: the config decides, not TF_XLA_FLAGS."""
    monkeypatch.delenv("TF_XLA_FLAGS", raising=False)


def _dense(h, n_in, n_out, seed):
    rng = np.random.RandomState(seed)
    limit = np.sqrt(6.0 / (n_in + n_out))
    w = tf.Variable(rng.uniform(-limit, limit, (n_in, n_out)).astype(np.float32))
    b = tf.Variable(np.zeros(n_out, np.float32))
    return tf.matmul(h, w) + b


def _loss(logits, y):
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                        logits=logits))


def _dropout_mlp():
    """Dropout behind `tf.cond(is_training, ...)`, an Adam step."""
    x = tf.placeholder(tf.float32, [16, 6])
    y = tf.placeholder(tf.int64, [16])
    training = tf.placeholder(tf.bool, [])
    h = tf.nn.relu(_dense(x, 6, 12, 1))
    h = tf.cond(training, lambda: tf.nn.dropout(h, keep_prob=0.7), lambda: h)
    loss = _loss(_dense(h, 12, 3, 2), y)
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    return [loss, train], [x, y, training]


def _lr_schedule():
    """`tf.cond` on the global step choosing a learning rate; batch norm and dropout
    layers behind an `is_training` placeholder."""
    x = tf.placeholder(tf.float32, [16, 6])
    y = tf.placeholder(tf.int64, [16])
    training = tf.placeholder(tf.bool, [])
    step = tf.train.get_or_create_global_step()
    h = tf.layers.batch_normalization(_dense(x, 6, 12, 3), training=training)
    h = tf.layers.dropout(tf.nn.relu(h), 0.4, training=training, seed=5)
    loss = _loss(_dense(h, 12, 3, 4), y)
    lr = tf.cond(step < 20, lambda: tf.constant(0.05), lambda: tf.constant(0.01))
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        train = tf.train.MomentumOptimizer(lr, 0.9).minimize(loss, step)
    return [loss, train, lr], [x, y, training]


def _nested():
    """A cond inside a cond's branch, trained through (the gradient of both); the
    learning rate from `piecewise_constant` (tf.case: nested conds and an Assert)."""
    x = tf.placeholder(tf.float32, [None, 6])
    y = tf.placeholder(tf.int64, [None])
    p = tf.placeholder(tf.bool, [])
    h = _dense(x, 6, 12, 5)

    def outer_true():
        inner = tf.reduce_mean(h) > 0.0
        return tf.cond(inner, lambda: tf.nn.relu(h) * 1.5, lambda: tf.tanh(h) - 0.5)
    h = tf.cond(p, outer_true, lambda: tf.sigmoid(h))
    loss = _loss(_dense(h, 12, 3, 6), y)
    step = tf.train.get_or_create_global_step()
    lr = tf.train.piecewise_constant(step, [15, 30], [0.02, 0.01, 0.005])
    train = tf.train.AdamOptimizer(lr).minimize(loss, step)
    return [loss, train, lr], [x, y, p]


def _gradient():
    """The gradient through a cond whose branches use different variables."""
    x = tf.placeholder(tf.float32, [None, 6])
    y = tf.placeholder(tf.int64, [None])
    p = tf.placeholder(tf.bool, [])
    h = tf.nn.relu(_dense(x, 6, 8, 7))
    w_t = tf.Variable(np.float32(np.random.RandomState(8).randn(8, 3) * 0.3))
    w_f = tf.Variable(np.float32(np.random.RandomState(9).randn(8, 3) * 0.3))
    logits = tf.cond(p, lambda: tf.matmul(h, w_t), lambda: tf.matmul(tf.square(h), w_f))
    loss = _loss(logits, y)
    grads = tf.gradients(loss, [w_t, w_f])
    train = tf.train.GradientDescentOptimizer(0.1).apply_gradients(
        zip(grads, [w_t, w_f]))
    return [loss, train, grads[0]], [x, y, p]


PROGRAMS = [("dropout_adam", _dropout_mlp), ("lr_on_global_step", _lr_schedule),
            ("nested", _nested), ("gradient", _gradient)]


def _feeds(i):
    return XS[i], YS[i], bool(FLIPS[i])


def _run(build, jit):
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        fetches, phs = build()
        init = tf.global_variables_initializer()
    with tf.Session(graph=g, config=xla_compare.config(jit)) as sess:
        sess.run(init)
        out = [sess.run(fetches, dict(zip(phs, _feeds(i)))) for i in range(STEPS)]
        if jit:
            assert not xla_compare.fallback_reasons(sess)
            plan = [p for k, p in sess._plans.items() if fetches[1] in k[0]][0]
            segments = [op for op in plan.ops if op.type == "XlaCluster"]
            assert len(segments) == 1, [op.type for op in plan.ops]
            assert xla_compare.lowered_types(sess) >= {"Switch", "Merge"}
            host = {op.type for op in plan.ops} - {"XlaCluster"}
            assert host <= xla_compare.HOST_BY_DESIGN, host
    return out


@pytest.mark.parametrize("name,build", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_training_through_a_cond_is_one_segment_and_agrees(name, build):
    np_run, xla_run = _run(build, False), _run(build, True)
    for a, b in zip(np_run, xla_run):
        np.testing.assert_allclose(b[0], a[0], rtol=1e-4, atol=1e-6)
        for u, v in zip(a[2:], b[2:]):
            np.testing.assert_allclose(v, u, rtol=1e-4, atol=1e-6)
    losses = np.array([r[0] for r in np_run])
    assert losses[-10:].mean() < losses[:10].mean()


def _assert_program():
    x = tf.placeholder(tf.float32, [None])
    p = tf.placeholder(tf.bool, [])

    def checked():
        with tf.control_dependencies([tf.Assert(tf.reduce_all(x > 0.0), ["x must be > 0"],
                                                name="positive")]):
            return tf.log(x)
    return tf.cond(p, checked, lambda: x * 2.0) + 1.0, x, p


@pytest.mark.parametrize("jit", [False, True], ids=["numpy", "xla"])
def test_assert_fires_only_in_the_taken_branch(jit):
    with tf.Graph().as_default():
        y, x, p = _assert_program()
        with tf.Session(config=xla_compare.config(jit)) as sess:
            assert sess.run(y, {x: [-1.0, 2.0], p: False}).tolist() == [-1.0, 5.0]
            np.testing.assert_allclose(sess.run(y, {x: [1.0], p: True}), [1.0])
            with pytest.raises(tf.errors.InvalidArgumentError, match="x must be > 0") as e:
                sess.run(y, {x: [-1.0, 2.0], p: True})
            if jit:
                assert "Switch" in xla_compare.lowered_types(sess)
                assert not xla_compare.fallback_reasons(sess)
    assert e.value.op.name == "cond/positive/Assert" and e.value.op.type == "Assert"
    assert isinstance(e.value.op, tf.Operation)
    assert "test_xla_cond.py" in e.value.message


def test_gather_check_in_the_untaken_branch_is_silent():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        i = tf.placeholder(tf.int32, [])
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: tf.gather(x, i), lambda: tf.reduce_sum(x))
        with tf.Session(config=xla_compare.config(True)) as sess:
            assert sess.run(y, {x: [1.0, 2.0], i: 5, p: False}) == 3.0
            assert sess.run(y, {x: [1.0, 2.0], i: 1, p: True}) == 2.0
            with pytest.raises(tf.errors.InvalidArgumentError, match="5 is not in"):
                sess.run(y, {x: [1.0, 2.0], i: 5, p: True})
            assert "GatherV2" in xla_compare.lowered_types(sess)


def _assign_in_branch():
    v = tf.Variable([1.0, 2.0])
    p = tf.placeholder(tf.bool, [])
    y = tf.cond(p, lambda: tf.assign_add(v, [10.0, 10.0]) * 1.0, lambda: v * 2.0)
    return [y, v.read_value()] if hasattr(v, "read_value") else [y, v], p


def test_variable_written_in_a_branch_only_when_taken():
    results = []
    for jit in (False, True):
        with tf.Graph().as_default():
            (y, v), p = _assign_in_branch()
            with tf.Session(config=xla_compare.config(jit)) as sess:
                sess.run(tf.global_variables_initializer())
                results.append([sess.run(y, {p: b}).tolist() for b in (True, False, True)] +
                               [sess.run(v).tolist()])
    assert results[0] == results[1] == [[11.0, 12.0], [22.0, 24.0], [21.0, 22.0],
                                        [21.0, 22.0]]


def test_pred_known_while_tracing_traces_the_taken_branch_only():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        p = tf.placeholder_with_default(True, [])
        y = tf.cond(p, lambda: x + 1.0, lambda: x - 1.0) * 2.0
        with tf.Session(config=xla_compare.config(True)) as sess:
            assert sess.run(y, {x: [1.0]}).tolist() == [4.0]
            assert sess.run(y, {x: [1.0], p: False}).tolist() == [0.0]
            assert not xla_compare.fallback_reasons(sess)


def test_a_branch_that_needs_the_host_keeps_the_cond_there():
    """py_func with an unknown output shape in a branch: that cond runs on the host as
    before; what follows its Merge still compiles."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: tf.py_func(lambda a: a * 3.0, [x], tf.float32),
                    lambda: x + 1.0)
        z = tf.reduce_sum(tf.exp(tf.reshape(y, [-1])))
        with tf.Session(config=xla_compare.config(True)) as sess:
            np.testing.assert_allclose(sess.run(z, {x: [0.0, 1.0], p: True}),
                                       1.0 + np.exp(3.0), rtol=1e-6)
            np.testing.assert_allclose(sess.run(z, {x: [0.0], p: False}), np.e, rtol=1e-6)
            plan = list(sess._plans.values())[-1]
            types = [op.type for op in plan.ops]
            assert "Switch" in types and "Merge" in types and "PyFunc" in types
            assert types[-1] == "XlaCluster"


def test_gated_host_op_runs_only_when_taken():
    """A host op in a branch (its shape known) runs behind a gate: a random op's stream
    advances only on the steps that take its branch, as on NumPy."""
    results = []
    for jit in (False, True):
        with tf.Graph().as_default():
            p = tf.placeholder(tf.bool, [])
            y = tf.cond(p, lambda: tf.random_uniform([3], seed=4), lambda: tf.zeros([3]))
            y = y * 2.0 + 1.0
            with tf.Session(config=xla_compare.config(jit)) as sess:
                results.append([sess.run(y, {p: b}) for b in (True, False, False, True)])
                if jit:
                    plan = list(sess._plans.values())[-1]
                    assert [op.type for op in plan.ops] == ["RandomUniform", "XlaCluster"]
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-6)


def test_check_numerics_in_a_branch_fires_only_when_taken():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: tf.check_numerics(tf.log(x), "log of x"), lambda: x * 2.0)
        with tf.Session(config=xla_compare.config(True)) as sess:
            assert sess.run(y, {x: [-1.0], p: False}).tolist() == [-2.0]
            with pytest.raises(tf.errors.InvalidArgumentError, match="log of x") as e:
                sess.run(y, {x: [-1.0], p: True})
            assert "CheckNumerics" in xla_compare.lowered_types(sess)
            plan = list(sess._plans.values())[-1]
            assert [op.type for op in plan.ops] == ["XlaCluster"]
    assert e.value.op.type == "CheckNumerics"


def test_a_loop_in_the_untaken_branch_does_not_run():
    """A branch holding a loop runs under lax.cond: on the untaken branch's values
    (zeros) this loop would never end."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        grow = tf.cond(x > 0.0, lambda: tf.while_loop(lambda v: v < 100.0,
                                                      lambda v: v * 2.0, [x]),
                       lambda: x - 1.0)
        with tf.Session(config=xla_compare.config(True)) as sess:
            assert sess.run(grow, {x: 0.0}) == -1.0
            assert sess.run(grow, {x: 3.0}) == 192.0
            assert "StatelessWhile" in xla_compare.lowered_types(sess) or \
                "While" in xla_compare.lowered_types(sess)
            assert not xla_compare.fallback_reasons(sess)


def test_a_branch_with_products_runs_under_lax_cond(monkeypatch):
    import jax
    calls = []
    real = jax.lax.cond

    def counting(pred, *args, **kwargs):
        calls.append(pred)
        return real(pred, *args, **kwargs)
    monkeypatch.setattr(jax.lax, "cond", counting)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, 2])
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: tf.matmul(x, x), lambda: x + 1.0)
        with tf.Session(config=xla_compare.config(True)) as sess:
            a = np.float32([[1, 2], [3, 4]])
            np.testing.assert_allclose(sess.run(y, {x: a, p: True}), a @ a)
            np.testing.assert_allclose(sess.run(y, {x: a, p: False}), a + 1)
            assert not xla_compare.fallback_reasons(sess)
    assert len(calls) == 1  # traced once: the product's branch; the other is predicated


@pytest.mark.parametrize("jit", [False, True], ids=["numpy", "xla"])
def test_uninitialized_variable_in_the_untaken_branch_is_not_read(jit):
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        p = tf.placeholder(tf.bool, [])
        ref = v.op.outputs[0]  # the variable itself, not its unconditional `read`
        y = tf.cond(p, lambda: ref * 2.0, lambda: tf.zeros([2])) + 1.0
        with tf.Session(config=xla_compare.config(jit)) as sess:
            assert sess.run(y, {p: False}).tolist() == [1.0, 1.0]
            with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
                sess.run(y, {p: True})
            sess.run(v.initializer)
            assert sess.run(y, {p: True}).tolist() == [3.0, 5.0]
            if jit:
                assert not xla_compare.fallback_reasons(sess)


def test_initialized_value_of_an_uninitialized_variable_compiles():
    """`initialized_value` is a cond on `is_variable_initialized` whose taken side reads
    the variable: before it is initialized, its initial value is used."""
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        w2 = tf.Variable(w.initialized_value() * 2.0, name="w2")
        with tf.Session(config=xla_compare.config(True)) as sess:
            sess.run(w2.initializer)
            assert sess.run(w2).tolist() == [2.0, 4.0]
            sess.run(w.initializer)
            sess.run(w.assign([5.0, 6.0]))
            sess.run(w2.initializer)
            assert sess.run(w2).tolist() == [10.0, 12.0]
            assert not xla_compare.fallback_reasons(sess)
