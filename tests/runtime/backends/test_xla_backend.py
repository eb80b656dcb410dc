"""The XLA backend against the NumPy backend: each lowering on sample inputs (fed, so they
are traced), training programs over 100 steps, errors, variables and the fused plan.
Skipped when jax is not installed."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry

pytest.importorskip("jax")
from trainflow._src.runtime.backends import xla_backend  # noqa: E402
from xla_compare import assert_same_observations  # noqa: E402
from xla_compare import config as _config  # noqa: E402
from xla_compare import segment_kernels as _segment_kernels  # noqa: E402

xla_backend.load_lowerings()


@pytest.fixture(autouse=True)
def _switch_from_config_only(monkeypatch):
    """These tests compare sessions with the switch off and on: the config decides, not
    TF_XLA_FLAGS (set for the whole suite when TRAINFLOW_XLA=1)."""
    monkeypatch.delenv("TF_XLA_FLAGS", raising=False)


def _run_both(build, feeds_of, steps=1):
    """Runs `build()` -> (fetches, init or None) on NumPy and on XLA; both results."""
    out = []
    for jit in (False, True):
        g = tf.Graph()
        with g.as_default():
            tf.set_random_seed(1)
            fetches, init, phs = build()
        with tf.Session(graph=g, config=_config(jit)) as sess:
            assert (sess._context.xla is not None) == jit
            if init is not None:
                sess.run(init)
            vals = [sess.run(fetches, dict(zip(phs, feeds_of(i)))) for i in range(steps)]
            if jit:
                _assert_compiled(sess)
        out.append(vals)
    return out


def _assert_compiled(sess):
    """Every plan that ran has a segment, and no segment fell back to NumPy."""
    kernels = list(_segment_kernels(sess))
    assert kernels
    for k in kernels:
        assert k._traces
        reasons = [t.reason for t in k._traces.values() if t.fallback]
        assert not reasons, f"{k.seg.name} ran on NumPy: {reasons[0][:300]}"


def _ph(value):
    """A placeholder for `value` whose first dimension is unknown (so that nothing about
    it folds away when the plan is built)."""
    value = np.asarray(value)
    shape = (None,) + value.shape[1:] if value.ndim else ()
    return tf.placeholder(tf.as_dtype(value.dtype), shape)


R = np.random.RandomState(0)
A = R.randn(3, 4).astype(np.float32)
B = R.randn(4, 5).astype(np.float32)
P = (R.rand(3, 4).astype(np.float32) + 0.5)
IMG = R.randn(2, 6, 6, 3).astype(np.float32)
FILT = R.randn(3, 3, 3, 4).astype(np.float32)
LAB = np.array([1, 0, 3], np.int64)

# (id, fn(*placeholders) -> tensor or list, inputs)
LOWERINGS = [
    ("add", lambda a, b: a + b, [A, A]), ("sub_bcast", lambda a, b: a - b, [A, A[0]]),
    ("mul", lambda a, b: a * b, [A, A]), ("realdiv", lambda a, b: a / b, [A, P]),
    ("floordiv_int", tf.floordiv, [np.array([7, -7, 5]), np.array([2, 2, -3])]),
    ("truncdiv_int", tf.truncatediv, [np.array([7, -7, 5]), np.array([2, 2, -3])]),
    ("floormod", tf.floormod, [np.array([7., -7.]), np.array([3., 3.])]),
    ("maximum", tf.maximum, [A, P]), ("minimum", tf.minimum, [A, P]),
    ("pow", tf.pow, [P, A]), ("sqdiff", tf.squared_difference, [A, P]),
    ("exp", tf.exp, [A]), ("log", tf.log, [P]), ("sqrt", tf.sqrt, [P]),
    ("rsqrt", tf.rsqrt, [P]), ("square", tf.square, [A]), ("neg", tf.negative, [A]),
    ("abs", tf.abs, [A]), ("tanh", tf.tanh, [A]), ("sigmoid", tf.sigmoid, [A]),
    ("reciprocal", tf.reciprocal, [P]), ("sign", tf.sign, [A]), ("floor", tf.floor, [A]),
    ("log1p", tf.log1p, [P]), ("erf", tf.erf, [A]),
    ("less", tf.less, [A, P]), ("equal", tf.equal, [A, A]),
    ("logical_and", tf.logical_and, [A > 0, P > 1]),
    ("select", tf.where, [A > 0, A, P]),
    ("matmul", tf.matmul, [A, B]),
    ("matmul_t", lambda a, b: tf.matmul(a, b, transpose_a=True, transpose_b=True), [B, B.T]),
    ("batch_matmul", tf.matmul, [np.stack([A, A]), np.stack([B, B])]),
    ("sum", lambda a: tf.reduce_sum(a, 1), [A]), ("mean", tf.reduce_mean, [A]),
    ("max_keep", lambda a: tf.reduce_max(a, 0, keepdims=True), [A]),
    ("prod", lambda a: tf.reduce_prod(a, 1), [P]), ("argmax", lambda a: tf.argmax(a, 1), [A]),
    ("add_n", lambda a, b: tf.add_n([a, b, a]), [A, P]),
    ("cast", lambda a: tf.cast(a, tf.int32), [A * 3]),
    ("cast_bool", lambda a: tf.cast(a, tf.bool), [np.array([0., 2.])]),
    ("reshape", lambda a: tf.reshape(a, [2, -1]), [A]),
    ("transpose", tf.transpose, [A]), ("concat", lambda a, b: tf.concat([a, b], 1), [A, P]),
    ("stack", lambda a, b: tf.stack([a, b], 1), [A, P]),
    ("unstack", lambda a: tf.unstack(a, axis=1), [A]),
    ("slice", lambda a: tf.slice(a, [1, 1], [2, -1]), [A]),
    ("strided_slice", lambda a: a[::-1, 1:3], [A]), ("shrink", lambda a: a[1], [A]),
    ("gather", lambda a, i: tf.gather(a, i), [A, np.array([2, 0, 2])]),
    ("gather_axis1", lambda a, i: tf.gather(a, i, axis=1), [A, np.array([3, 0])]),
    ("fill_shape", lambda a: tf.fill(tf.shape(a), 2.0), [A]),
    ("zeros_like", tf.zeros_like, [A]), ("ones_like", tf.ones_like, [A]),
    ("one_hot", lambda i: tf.one_hot(i, 4), [LAB]),
    ("tile", lambda a: tf.tile(a, [2, 1]), [A]),
    ("pad", lambda a: tf.pad(a, [[1, 0], [0, 2]]), [A]),
    ("expand_squeeze", lambda a: tf.squeeze(tf.expand_dims(a, 0)), [A]),
    ("identity", tf.identity, [A]), ("stop_gradient", tf.stop_gradient, [A]),
    ("broadcast_to", lambda a: tf.broadcast_to(a, [2, 3, 4]), [A]),
    ("shape_size_rank", lambda a: [tf.shape(a), tf.size(a), tf.rank(a)], [A]),
    ("relu", tf.nn.relu, [A]), ("relu6", lambda a: tf.nn.relu6(a * 5), [A]),
    ("elu", tf.nn.elu, [A]), ("softplus", tf.nn.softplus, [A]),
    ("leaky_relu", tf.nn.leaky_relu, [A]),
    ("bias_add", tf.nn.bias_add, [A, A[0]]),
    ("bias_add_nchw", lambda a, b: tf.nn.bias_add(a, b, data_format="NCHW"),
     [IMG.transpose(0, 3, 1, 2), FILT[0, 0, :, 0]]),
    ("softmax", tf.nn.softmax, [A]), ("log_softmax", tf.nn.log_softmax, [A]),
    ("l2_loss", tf.nn.l2_loss, [A]),
    ("sparse_xent", lambda a, lab: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=lab, logits=a), [A, LAB]),
    ("xent", lambda a, b: tf.nn.softmax_cross_entropy_with_logits_v2(labels=b, logits=a),
     [A, P / P.sum(1, keepdims=True)]),
    ("conv2d_same", lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), [IMG, FILT]),
    ("conv2d_valid_s2", lambda x, f: tf.nn.conv2d(x, f, [1, 2, 2, 1], "VALID"), [IMG, FILT]),
    ("max_pool", lambda x: tf.nn.max_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"), [IMG]),
    ("avg_pool_same", lambda x: tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"), [IMG]),
    ("avg_pool_valid", lambda x: tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
     [IMG]),
    ("lrn", lambda x: tf.nn.lrn(x, 2, bias=1.0, alpha=0.1, beta=0.75), [IMG]),
    ("cumsum_excl_rev", lambda a: tf.cumsum(a, 1, exclusive=True, reverse=True), [A]),
]

# Gradients go through the *Grad ops (ReluGrad, Conv2DBackprop*, MaxPoolGrad ...).
GRADIENTS = [
    ("grad_activations", lambda a: tf.nn.relu(a) + tf.nn.relu6(a) + tf.nn.elu(a) +
     tf.nn.softplus(a) + tf.tanh(a) + tf.sigmoid(a) + tf.sqrt(tf.abs(a) + 1), [A]),
    ("grad_conv_pool", lambda x, f: tf.nn.avg_pool(tf.nn.max_pool(
        tf.nn.conv2d(x, f, [1, 1, 1, 1], "SAME"), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
        [1, 2, 2, 1], [1, 1, 1, 1], "SAME"), [IMG, FILT]),
    ("grad_conv_strided", lambda x, f: tf.nn.conv2d(x, f, [1, 2, 2, 1], "VALID"),
     [IMG, FILT]),
    ("grad_slices", lambda a: tf.reduce_sum(a[1:, ::2] ** 2) + tf.reduce_sum(
        tf.gather(a, [0, 0, 2])), [A]),
    ("grad_bias_xent", lambda a, b: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf.nn.softmax(b), logits=tf.nn.bias_add(a, b[0])), [A, P]),
    ("grad_lrn", lambda x: tf.nn.lrn(x, 2, bias=1.0, alpha=0.1, beta=0.75), [IMG]),
]


def _check_table(case, grad):
    _, fn, inputs = case

    def build():
        phs = [_ph(v) for v in inputs]
        out = fn(*phs)
        if grad:
            floats = [p for p in phs if p.dtype.is_floating]
            out = tf.gradients(tf.reduce_sum(out), floats)
        return out, None, phs

    (np_vals,), (xla_vals,) = _run_both(build, lambda i: inputs)
    if not isinstance(np_vals, list):
        np_vals, xla_vals = [np_vals], [xla_vals]
    for a, b in zip(np_vals, xla_vals):
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("case", LOWERINGS, ids=[c[0] for c in LOWERINGS])
def test_lowering_matches_numpy_kernel(case):
    _check_table(case, grad=False)


@pytest.mark.parametrize("case", GRADIENTS, ids=[c[0] for c in GRADIENTS])
def test_gradient_lowerings_match_numpy(case):
    _check_table(case, grad=True)


# The op types the training programs of the tests use; each must have a lowering.
TRAINING_OPS = [
    "MatMul", "BiasAdd", "BiasAddGrad", "Relu", "ReluGrad", "Conv2D", "Conv2DBackpropInput",
    "Conv2DBackpropFilter", "MaxPool", "MaxPoolGrad", "LRN", "LRNGrad", "Reshape",
    "SparseSoftmaxCrossEntropyWithLogits", "SoftmaxCrossEntropyWithLogits", "Mean", "Sum",
    "AddN", "L2Loss", "Mul", "AddV2", "Fill", "Tile", "RealDiv", "Cast", "Prod",
    "ExpandDims", "PreventGradient", "Identity", "NoOp", "ApplyAdam", "ApplyGradientDescent",
    "AssignAdd", "Assign", "GatherV2", "UnsortedSegmentSum", "StridedSlice", "Shape",
    "ConcatV2", "Pack", "Transpose", "Sub", "Neg", "Exp", "Log", "Softmax",
]


def test_training_ops_have_lowerings():
    missing = [t for t in TRAINING_OPS if registry.kernel(t, "xla") is None]
    assert not missing, f"op types without an XLA lowering: {missing}"


def test_lowered_op_report():
    """Which registered op types have no lowering (they stay on the NumPy host)."""
    names = registry.registered_names()
    lowered = [n for n in names if "xla" in registry.kernel_backends(n)]
    assert len(lowered) >= 150
    assert all(registry.kernel(n, "xla") is not None for n in lowered)


# -- training programs: 100 steps on NumPy and on XLA -----------------------------------
def _mlp(sizes, optimizer):
    def build():
        x = tf.placeholder(tf.float32, [None, sizes[0]])
        y = tf.placeholder(tf.int64, [None])
        h = x
        rng = np.random.RandomState(0)
        for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            limit = np.sqrt(6.0 / (n_in + n_out))
            w = tf.Variable(rng.uniform(-limit, limit, (n_in, n_out)).astype(np.float32))
            b = tf.Variable(np.zeros(n_out, np.float32))
            h = tf.matmul(h, w) + b
            if i < len(sizes) - 2:
                h = tf.nn.relu(h)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y,
                                                                            logits=h))
        train = optimizer().minimize(loss)
        return [loss, train], tf.global_variables_initializer(), [x, y]
    rng = np.random.RandomState(1)
    data = rng.rand(32, sizes[0]).astype(np.float32), rng.randint(0, sizes[-1], 32)
    return build, lambda i: data


def _fixture_mlp():
    """The fixture MLP of tests/integration/test_mlp_fixture.py (dense layers, softmax
    cross-entropy v2, Adam with a global step)."""
    def build():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 3], name="y")
        hidden = tf.layers.dense(x, 8, activation=tf.nn.relu,
                                 kernel_initializer=tf.glorot_uniform_initializer(seed=11))
        logits = tf.layers.dense(hidden, 3,
                                 kernel_initializer=tf.glorot_uniform_initializer(seed=12))
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y,
                                                                         logits=logits))
        step = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.01).minimize(loss, step)
        return [loss, train, step], tf.global_variables_initializer(), [x, y]
    rng = np.random.RandomState(2)
    xs = rng.randn(16, 4).astype(np.float32)
    ys = np.eye(3, dtype=np.float32)[rng.randint(0, 3, 16)]
    return build, lambda i: (xs, ys)


def _convnet():
    """A CIFAR-style convnet (conv, bias, relu, max pool, LRN, dense, weight decay)."""
    def build():
        images = tf.placeholder(tf.float32, [None, 12, 12, 3])
        labels = tf.placeholder(tf.int64, [None])
        init = tf.truncated_normal_initializer(stddev=0.05, seed=1)
        k1 = tf.get_variable("k1", [5, 5, 3, 8], initializer=init)
        h = tf.nn.relu(tf.nn.bias_add(
            tf.nn.conv2d(images, k1, [1, 1, 1, 1], "SAME"),
            tf.get_variable("b1", [8], initializer=tf.zeros_initializer())))
        h = tf.nn.lrn(tf.nn.max_pool(h, [1, 3, 3, 1], [1, 2, 2, 1], "SAME"), 2, 1.0, 1e-3, 0.75)
        k2 = tf.get_variable("k2", [3, 3, 8, 8], initializer=init)
        h = tf.nn.relu(tf.nn.conv2d(h, k2, [1, 2, 2, 1], "VALID"))
        h = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
        flat = tf.reshape(h, [-1, 2 * 2 * 8])
        w = tf.get_variable("w", [32, 4], initializer=init)
        logits = tf.matmul(flat, w)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits)) + 0.004 * tf.nn.l2_loss(w)
        train = tf.train.AdamOptimizer(0.01).minimize(loss)
        return [loss, train], tf.global_variables_initializer(), [images, labels]
    rng = np.random.RandomState(3)
    data = rng.rand(8, 12, 12, 3).astype(np.float32), rng.randint(0, 4, 8)
    return build, lambda i: data


def _embedding():
    """A word2vec-style embedding model: sparse gradients (IndexedSlices) into Adam."""
    def build():
        ids = tf.placeholder(tf.int32, [None])
        targets = tf.placeholder(tf.int64, [None])
        emb = tf.Variable(np.random.RandomState(4).uniform(-1, 1, (30, 8)).astype(np.float32))
        out_w = tf.Variable(np.random.RandomState(5).randn(8, 30).astype(np.float32) * 0.1)
        logits = tf.matmul(tf.nn.embedding_lookup(emb, ids), out_w)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=targets, logits=logits))
        train = tf.train.AdamOptimizer(0.05).minimize(loss)
        return [loss, train], tf.global_variables_initializer(), [ids, targets]
    rng = np.random.RandomState(6)
    centres = rng.randint(0, 30, (100, 16)).astype(np.int32)
    return build, lambda i: (centres[i], (centres[i].astype(np.int64) * 7 + 3) % 30)


PROGRAMS = {
    "mlp_sgd": lambda: _mlp([64, 32, 32, 10], lambda: tf.train.GradientDescentOptimizer(0.1)),
    "mlp_adam": lambda: _mlp([64, 32, 10], lambda: tf.train.AdamOptimizer(0.01)),
    "fixture_mlp": _fixture_mlp,
    "convnet": _convnet,
    "embedding": _embedding,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_training_program_losses_agree_over_100_steps(name):
    build, feeds = PROGRAMS[name]()
    np_run, xla_run = _run_both(build, feeds, steps=100)
    np_loss = np.array([r[0] for r in np_run])
    xla_loss = np.array([r[0] for r in xla_run])
    assert np_loss[-1] < np_loss[0]
    # Round-off (XLA's convolution sums in another order than im2col + BLAS) compounds
    # over the steps: tight at first, a little looser after 100 steps of a convnet.
    np.testing.assert_allclose(xla_loss[:10], np_loss[:10], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(xla_loss, np_loss, rtol=5e-4 if name == "convnet" else 1e-4,
                               atol=1e-6)


# -- errors, variables, plans --------------------------------------------------------------
def _xla_session(graph=None):
    return tf.Session(graph=graph, config=_config(True))


def test_errors_keep_the_numpy_class_op_and_line():
    cases = [
        (lambda x: tf.check_numerics(tf.log(x), "log of x"), np.array([1.0, -1.0], np.float32),
         "CheckNumerics", "log of x"),
        (lambda x: tf.gather(x, tf.cast(x, tf.int32)), np.array([0.0, 5.0], np.float32),
         "GatherV2", "indices"),
        (lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.cast(x, tf.int64), logits=tf.stack([x, x], 1)),
         np.array([0.0, 7.0], np.float32), "SparseSoftmaxCrossEntropyWithLogits", "label"),
    ]
    for build, value, op_type, words in cases:
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [None])
            y = build(x)
            with _xla_session() as sess:
                assert sess.run(y, {x: np.zeros(2, np.float32) + 1}).shape[0] == 2
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(y, {x: value})
        assert info.value.op is not None and info.value.op.type == op_type
        assert words in info.value.message and "test_xla_backend.py" in info.value.message


def test_failed_assert_raises_invalid_argument():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        with tf.control_dependencies([tf.assert_positive(x)]):
            y = tf.identity(x * 2)
        with _xla_session() as sess:
            assert sess.run(y, {x: [1.0]}).tolist() == [2.0]
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(y, {x: [-1.0]})


def test_uninitialized_variable_is_failed_precondition():
    with tf.Graph().as_default():
        v = tf.Variable(np.ones(3, np.float32), name="v")
        y = v * 2.0
        with _xla_session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError) as info:
                sess.run(y)
            assert "v" in info.value.message
            sess.run(v.initializer)
            assert sess.run(y).tolist() == [2.0, 2.0, 2.0]


def test_variable_updates_are_written_in_place_and_never_aliased():
    with tf.Graph().as_default():
        v = tf.Variable(np.ones(3, np.float32))
        step = tf.assign_add(v, v * 2.0)
        with tf.control_dependencies([step]):
            after = tf.identity(v.read_value())
        with _xla_session() as sess:
            sess.run(v.initializer)
            slot = sess._resources.variables()["Variable"]
            buf = slot.value
            assert sess.run(after).tolist() == [3.0, 3.0, 3.0]
            # The session's buffer is updated in place (readers holding it see new values)
            assert slot.value is buf and buf.tolist() == [3.0, 3.0, 3.0]
            got = sess.run(v)
            got[0] = 99.0
            assert sess.run(v).tolist() == [3.0, 3.0, 3.0]


def test_training_step_is_one_compiled_segment():
    build, feeds = _mlp([8, 4, 2], lambda: tf.train.AdamOptimizer(0.01))
    g = tf.Graph()
    with g.as_default():
        (loss, train), init, phs = build()
    with _xla_session(g) as sess:
        sess.run(init)
        sess.run([loss, train], dict(zip(phs, feeds(0))))
        plan = [p for k, p in sess._plans.items() if train in k[0]][0]
        segments = [op for op in plan.ops if type(op).__name__ == "SegmentOp"]
        assert len(segments) == 1
        # Before it: the variables, and constants folded when the plan was built.
        assert plan.ops[-1] is segments[0]
        # Traced once: a second step reuses the compiled function.
        sess.run([loss, train], dict(zip(phs, feeds(0))))
        kernel = next(_segment_kernels(sess))
        assert len(kernel._traces) == 1


def test_new_batch_size_traces_again():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        y = tf.reduce_sum(tf.nn.relu(x), 1)
        with _xla_session() as sess:
            assert sess.run(y, {x: [[1, -1]]}).tolist() == [1.0]
            assert sess.run(y, {x: [[1, 2], [3, -4]]}).tolist() == [3.0, 3.0]
            assert len(next(_segment_kernels(sess))._traces) == 2


def test_host_ops_split_segments():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        h = tf.py_func(lambda a: a + 1, [x * 2.0], tf.float32)
        y = tf.reshape(h, [-1]) * 3.0
        with _xla_session() as sess:
            assert sess.run(y, {x: [1.0]}).tolist() == [9.0]
            plan = list(sess._plans.values())[-1]
            assert [op.type for op in plan.ops if op.type != "Const"] == [
                "XlaCluster", "PyFunc", "XlaCluster"]


def _host_paths_scenario(jit, ckpt):
    """Trains with host reads and writes in between (fetches, load, assign from a feed,
    Saver save/restore, a partial run); every observation, in order."""
    build, feeds = _mlp([6, 5, 3], lambda: tf.train.AdamOptimizer(0.05))
    g = tf.Graph()
    with g.as_default():
        (loss, train), init, phs = build()
        w = tf.trainable_variables()[0]
        fed = tf.placeholder(tf.float32, w.shape)
        assign = tf.assign(w, fed)
        saver = tf.train.Saver()
        scaled = w * 2.0
    seen = []
    with tf.Session(graph=g, config=_config(jit)) as sess:
        sess.run(init)
        steps = lambda n: [sess.run([loss, train], dict(zip(phs, feeds(i))))[0]  # noqa: E731
                           for i in range(n)]
        seen += steps(3)
        if jit:
            # Nothing on the host read the variables: their values live on the device.
            slots = sess._resources.variables()
            assert all(s._device is not None and s._stale for s in slots.values())
            buf = slots[w.op.name]._host
        seen.append(sess.run(w))  # a fetch syncs the value back
        if jit:
            assert slots[w.op.name]._host is buf  # into the same buffer
        w.load(np.full(w.shape, 0.25, np.float32), sess)
        seen += steps(2)
        path = saver.save(sess, ckpt)
        seen += steps(2)
        sess.run(assign, {fed: np.full(w.shape, -0.5, np.float32)})
        seen.append(sess.run(scaled))
        seen += steps(1)
        saver.restore(sess, path)
        seen.append(w.eval(session=sess))
        h = sess.partial_run_setup([scaled, loss], phs)
        seen.append(sess.partial_run(h, scaled))
        seen.append(sess.partial_run(h, loss, dict(zip(phs, feeds(0)))))
        seen += steps(2)
        seen.append(sess.run(w))
    return seen


def test_host_reads_and_writes_see_the_device_values(tmp_path):
    got = _host_paths_scenario(True, str(tmp_path / "xla" / "model"))
    want = _host_paths_scenario(False, str(tmp_path / "numpy" / "model"))
    assert_same_observations(got, want)
