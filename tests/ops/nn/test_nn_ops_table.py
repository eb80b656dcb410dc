"""Every `tf.nn` op (outside convolution/pooling) against NumPy, and every gradient
against finite differences.

`CASES` is data: (id, graph function, sample inputs, NumPy reference, float dtypes
to run forward, indices of the inputs to gradient-check). Float inputs are given as
float64 arrays and cast to each dtype under test; integer inputs (labels, ids) keep
their dtype. Gradients are checked in float64 (float32 for the float32-only fused
batch norm) with `tf.test.compute_gradient`. Labels of the fused softmax cross
entropy are distributions: its gradient, like TensorFlow's, assumes they sum to 1.
"""
import collections

import ml_dtypes
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import registry
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.ops.nn import activation_kernels
from trainflow._src.ops.data_flow import partition as partition

from op_checks import jacobians

Case = collections.namedtuple("Case", "id fn inputs ref dtypes grad out_dtype")
F16, BF16, F32, F64 = np.float16, ml_dtypes.bfloat16, np.float32, np.float64
FLOATS = (F16, BF16, F32, F64)
TOL = {F16: (1e-2, 1e-2), BF16: (4e-2, 4e-2), F32: (2e-5, 1e-5), F64: (1e-10, 1e-12)}

X = np.array([[-1.5, -0.4, 0.3], [0.9, 2.2, 7.1]])
Z = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.25]])
P = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
G = np.array([[0.3, -1.2, 0.7], [1.1, 0.5, -0.8]])
X3 = np.array([[[0.5, -1.0, 2.0, 0.1], [1.5, 0.2, -0.3, 0.8], [-2.0, 0.7, 1.1, 0.0]],
               [[0.3, 0.9, -0.6, 1.2], [0.4, -1.4, 0.6, 2.5], [1.0, 1.3, -0.5, 0.25]]])
NCHW = X3.reshape(2, 3, 2, 2)
BN_X = (np.arange(24, dtype=np.float64).reshape(2, 2, 2, 3) ** 1.5) / 10
COUNTS = np.array([[0.5, 2.0, 4.0], [1.5, 3.0, 0.2]])
LABELS = np.array([2, 0], np.int32)
LABELS_3D = np.array([[0, 3, 1], [2, 2, 0]], np.int64)
SELU_A = activation_kernels.SELU_SCALE * activation_kernels.SELU_ALPHA
SELU_S = activation_kernels.SELU_SCALE


def case(id_, fn, inputs, ref, dtypes=FLOATS, grad=(), out_dtype=None):
    return Case(id_, fn, [np.asarray(v) for v in inputs], ref, dtypes, grad, out_dtype)


def raw(op_type, output=0, **attrs):
    """A table function calling op `op_type` with its inputs in signature order."""
    names = [a.name for a in registry.get(op_type).op_def.inputs]

    def fn(*tensors):
        return apply_op(op_type, **dict(zip(names, tensors)), **attrs).outputs[output]
    return fn


# -- NumPy references ---------------------------------------------------------------------
def np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_log_softmax(x, axis=-1):
    return np.log(np_softmax(x, axis))


def np_elu(x):
    return np.where(x > 0, x, np.expm1(np.minimum(x, 0)))


def np_selu(x):
    return np.where(x > 0, SELU_S * x, SELU_A * np.expm1(np.minimum(x, 0)))


def np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_sigmoid_xent(z, x):
    return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))


def np_weighted_xent(z, x, q):
    return (1 - z) * x + (1 + (q - 1) * z) * (np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0))


def np_xent(labels, logits, axis=-1):
    return -np.sum(labels * np_log_softmax(logits, axis), axis=axis)


def np_sparse_xent(logits, labels):
    lp = np_log_softmax(logits)
    return -np.take_along_axis(lp, labels[..., None].astype(np.int64), -1)[..., 0]


def np_log_poisson_full(t, x):
    stirling = t * np.log(t) - t + 0.5 * np.log(2 * np.pi * t)
    return np.exp(x) - x * t + np.where((t >= 0) & (t <= 1), 0, stirling)


def np_fused_bn(x, scale, offset, eps, mean=None, var=None, nchw=False):
    axes = (0, 2, 3) if nchw else (0, 1, 2)
    shape = (1, -1, 1, 1) if nchw else (1, 1, 1, -1)
    if mean is None:
        mean, var = x.mean(axis=axes), x.var(axis=axes)
    r = lambda v: np.reshape(v, shape)  # noqa: E731
    return (x - r(mean)) / np.sqrt(r(var) + eps) * r(scale) + r(offset)


def np_bias_add_nchw(x, b):
    return x + b.reshape(1, -1, *([1] * (x.ndim - 2)))


def np_top_k(x, k):
    idx = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, idx, -1), idx


def np_in_top_k(pred, targets, k):
    t = pred[np.arange(len(targets)), targets]
    return (pred > t[:, None]).sum(1) < k


def np_embedding(params, ids, strategy):
    """Looks ids up in the shards `params` by concatenating them in id order."""
    n = len(params)
    total = sum(p.shape[0] for p in params)
    full = np.zeros((total,) + params[0].shape[1:])
    if strategy == "mod":
        for s, p in enumerate(params):
            full[s::n] = p
    else:
        full = np.concatenate(params)
    return full[ids]


def _dot_cols(a, b):
    return np.sum(a * b, axis=-1)


CASES = [
    case("relu", tf.nn.relu, [X], lambda x: np.maximum(x, 0), grad=(0,)),
    case("relu6", tf.nn.relu6, [X], lambda x: np.clip(x, 0, 6), grad=(0,)),
    case("elu", tf.nn.elu, [X], np_elu, grad=(0,)),
    case("selu", tf.nn.selu, [X], np_selu, grad=(0,)),
    case("leaky_relu", tf.nn.leaky_relu, [X], lambda x: np.where(x > 0, x, 0.2 * x), grad=(0,)),
    case("leaky_relu_alpha", lambda x: tf.nn.leaky_relu(x, alpha=0.3), [X],
         lambda x: np.where(x > 0, x, 0.3 * x), grad=(0,)),
    case("softplus", tf.nn.softplus, [X], lambda x: np.log1p(np.exp(x)), grad=(0,)),
    case("softplus_extremes", tf.nn.softplus, [[-100.0, -20.0, 0.0, 20.0, 100.0]],
         lambda x: np.logaddexp(0, x), dtypes=(F32, F64)),
    case("softsign", tf.nn.softsign, [X], lambda x: x / (1 + np.abs(x)), grad=(0,)),
    case("crelu", tf.nn.crelu, [X], lambda x: np.maximum(np.concatenate([x, -x], -1), 0),
         grad=(0,)),
    case("crelu_axis0", lambda x: tf.nn.crelu(x, axis=0), [X],
         lambda x: np.maximum(np.concatenate([x, -x], 0), 0), grad=(0,)),
    case("swish", tf.nn.swish, [X], lambda x: x * np_sigmoid(x), grad=(0,)),
    case("swish_beta", lambda x: tf.nn.swish(x, beta=0.5), [X],
         lambda x: x * np_sigmoid(0.5 * x), grad=(0,)),
    case("softmax", tf.nn.softmax, [X], np_softmax, grad=(0,)),
    case("softmax_large_logits", tf.nn.softmax, [[1000.0, 0.0, -1000.0]], np_softmax,
         dtypes=(F32, F64)),
    case("softmax_axis0", lambda x: tf.nn.softmax(x, axis=0), [X],
         lambda x: np_softmax(x, 0), grad=(0,)),
    case("softmax_dim1_3d", lambda x: tf.nn.softmax(x, dim=1), [X3],
         lambda x: np_softmax(x, 1), grad=(0,)),
    case("log_softmax", tf.nn.log_softmax, [X], np_log_softmax, grad=(0,)),
    case("log_softmax_axis0", lambda x: tf.nn.log_softmax(x, axis=0), [X],
         lambda x: np_log_softmax(x, 0), grad=(0,)),
    case("bias_add", tf.nn.bias_add, [X, [0.5, -1.0, 2.0]], lambda x, b: x + b, grad=(0, 1)),
    case("bias_add_nchw", lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
         [NCHW, [0.5, -1.0, 2.0]], np_bias_add_nchw, grad=(0, 1)),
    case("bias_add_v1", raw("BiasAddV1"), [X3, [1.0, 2.0, 3.0, 4.0]], lambda x, b: x + b,
         grad=(0, 1)),
    case("xw_plus_b", tf.nn.xw_plus_b, [X, X3[0], [0.1, 0.2, 0.3, 0.4]],
         lambda x, w, b: x @ w + b, grad=(0, 1, 2)),
    case("relu_layer", tf.nn.relu_layer, [X, X3[0], [0.1, 0.2, 0.3, 0.4]],
         lambda x, w, b: np.maximum(x @ w + b, 0), grad=(0, 1, 2)),
    case("xent_op_loss", raw("SoftmaxCrossEntropyWithLogits"), [X, P],
         lambda x, p: np_xent(p, x), grad=(0, 1)),
    case("xent_op_backprop", raw("SoftmaxCrossEntropyWithLogits", 1), [X, P],
         lambda x, p: np_softmax(x) - p, grad=(0,)),
    case("xent_op_broadcast_labels", raw("SoftmaxCrossEntropyWithLogits"), [X, P[:1]],
         lambda x, p: np_xent(p, x), dtypes=(F32, F64)),
    case("softmax_xent_v2", lambda z, x: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=z, logits=x), [P, X], np_xent, grad=(0, 1)),
    case("softmax_xent_v2_axis0", lambda z, x: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=z, logits=x, axis=0), [P / P.sum(0), X], lambda z, x: np_xent(z, x, 0),
         grad=(0, 1)),
    case("softmax_xent_v2_3d", lambda z, x: tf.nn.softmax_cross_entropy_with_logits_v2(
        labels=z, logits=x), [np_softmax(X3 * 0.5), X3], np_xent, grad=(0, 1)),
    case("softmax_xent_v1", lambda z, x: tf.nn.softmax_cross_entropy_with_logits(
        labels=z, logits=x), [P, X], np_xent, grad=(1,)),
    case("sparse_xent_op_loss", raw("SparseSoftmaxCrossEntropyWithLogits"), [X, LABELS],
         np_sparse_xent, grad=(0,)),
    case("sparse_xent_op_backprop", raw("SparseSoftmaxCrossEntropyWithLogits", 1),
         [X, LABELS], lambda x, t: np_softmax(x) - np.eye(3)[t], dtypes=(F32, F64)),
    case("sparse_xent", lambda t, x: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=t, logits=x), [LABELS, X], lambda t, x: np_sparse_xent(x, t), grad=(1,)),
    case("sparse_xent_3d", lambda t, x: tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=t, logits=x), [LABELS_3D[:, :3], X3], lambda t, x: np_sparse_xent(x, t),
         grad=(1,)),
    case("sigmoid_xent", lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(
        labels=z, logits=x), [Z, X], np_sigmoid_xent, grad=(0, 1)),
    case("sigmoid_xent_extremes", lambda z, x: tf.nn.sigmoid_cross_entropy_with_logits(
        labels=z, logits=x), [[0.0, 1.0, 0.0, 1.0], [-200.0, -200.0, 200.0, 200.0]],
         lambda z, x: np.array([0.0, 200.0, 200.0, 0.0]), dtypes=(F32, F64)),
    case("weighted_xent", lambda z, x: tf.nn.weighted_cross_entropy_with_logits(
        labels=z, logits=x, pos_weight=2.5), [Z, X],
         lambda z, x: np_weighted_xent(z, x, 2.5), grad=(0, 1)),
    case("log_poisson_loss", tf.nn.log_poisson_loss, [COUNTS, X],
         lambda t, x: np.exp(x) - x * t, grad=(0, 1)),
    case("log_poisson_loss_full", lambda t, x: tf.nn.log_poisson_loss(
        t, x, compute_full_loss=True), [COUNTS, X], np_log_poisson_full, dtypes=(F32, F64),
         grad=(1,)),
    case("l2_loss", tf.nn.l2_loss, [X], lambda x: np.sum(x * x) / 2, grad=(0,)),
    case("l2_normalize", lambda x: tf.nn.l2_normalize(x, axis=1), [X],
         lambda x: x / np.linalg.norm(x, axis=1, keepdims=True), grad=(0,)),
    case("l2_normalize_all", tf.nn.l2_normalize, [X], lambda x: x / np.linalg.norm(x),
         grad=(0,)),
    case("moments_mean", lambda x: tf.nn.moments(x, axes=[0])[0], [X],
         lambda x: x.mean(0), grad=(0,)),
    case("moments_variance", lambda x: tf.nn.moments(x, axes=[0, 2])[1], [X3],
         lambda x: x.var(axis=(0, 2)), grad=(0,)),
    case("moments_keep_dims", lambda x: tf.nn.moments(x, axes=[1], keep_dims=True)[1], [X],
         lambda x: x.var(1, keepdims=True), grad=(0,)),
    case("weighted_moments_mean", lambda x, w: tf.nn.weighted_moments(x, [1], w)[0],
         [X, [[1.0, 2.0, 0.5]]], lambda x, w: np.sum(x * w, 1) / np.sum(w), grad=(0, 1)),
    case("weighted_moments_variance", lambda x, w: tf.nn.weighted_moments(x, [1], w)[1],
         [X, [[1.0, 2.0, 0.5]]],
         lambda x, w: np.sum(w * (x - (np.sum(x * w, 1) / np.sum(w))[:, None]) ** 2, 1) /
         np.sum(w), grad=(0, 1)),
    case("batch_normalization", lambda x, m, v, o, s: tf.nn.batch_normalization(
        x, m, v, o, s, 1e-3), [X, [0.1, 0.2, 0.3], [1.0, 2.0, 0.5], [0.0, 1.0, -1.0],
                               [2.0, 1.0, 0.5]],
         lambda x, m, v, o, s: (x - m) / np.sqrt(v + 1e-3) * s + o, grad=(0, 1, 2, 3, 4)),
    case("batch_norm_with_global_normalization", lambda x, m, v, b, g:
         tf.nn.batch_norm_with_global_normalization(x, m, v, b, g, 1e-3, True),
         [X, [0.1, 0.2, 0.3], [1.0, 2.0, 0.5], [0.0, 1.0, -1.0], [2.0, 1.0, 0.5]],
         lambda x, m, v, b, g: (x - m) / np.sqrt(v + 1e-3) * g + b, grad=(0, 3, 4)),
    case("fused_batch_norm_train", lambda x, s, o: tf.nn.fused_batch_norm(
        x, s, o, epsilon=0.01)[0], [BN_X, [1.0, 2.0, 3.0], [0.0, 1.0, 0.0]],
         lambda x, s, o: np_fused_bn(x, s, o, 0.01), dtypes=(F32,), grad=(0, 1, 2)),
    case("fused_batch_norm_train_nchw", lambda x, s, o: tf.nn.fused_batch_norm(
        x, s, o, epsilon=0.01, data_format="NCHW")[0],
         [BN_X.transpose(0, 3, 1, 2), [1.0, 2.0, 3.0], [0.0, 1.0, 0.0]],
         lambda x, s, o: np_fused_bn(x, s, o, 0.01, nchw=True), dtypes=(F32,),
         grad=(0, 1, 2)),
    case("fused_batch_norm_infer", lambda x, s, o, m, v: tf.nn.fused_batch_norm(
        x, s, o, m, v, epsilon=0.01, is_training=False)[0],
         [BN_X, [1.0, 2.0, 3.0], [0.0, 1.0, 0.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
         lambda x, s, o, m, v: np_fused_bn(x, s, o, 0.01, m, v), dtypes=(F32,),
         grad=(0, 1, 2)),
    case("top_k_values", lambda x: tf.nn.top_k(x, 2).values, [X3],
         lambda x: np_top_k(x, 2)[0], dtypes=(F32, F64), grad=(0,)),
    case("top_k_indices", lambda x: tf.nn.top_k(x, 3).indices, [[[1.0, 3.0, 3.0, 2.0, 3.0]]],
         lambda x: np.array([[1, 2, 4]]), dtypes=(F32, F64)),
    case("in_top_k", lambda p, t: tf.nn.in_top_k(p, t, 2), [X, LABELS],
         lambda p, t: np_in_top_k(p, t, 2), dtypes=(F32,)),
    case("zero_fraction", tf.nn.zero_fraction, [[[0.0, 1.0, 0.0], [2.0, 0.0, 0.0]]],
         lambda x: np.float64(4 / 6), dtypes=(F32, F64), out_dtype=F32),
    case("embedding_lookup", lambda p, i: tf.nn.embedding_lookup(p, i), [X3[0], [[2, 0], [2, 1]]],
         lambda p, i: p[i], dtypes=(F32, F64), grad=(0,)),
    case("embedding_lookup_mod", lambda p0, p1, p2, i: tf.nn.embedding_lookup(
        [p0, p1, p2], i), [X3[0, :2], X3[1, :2], X3[1, 2:], [0, 4, 3, 2, 4, 1]],
         lambda p0, p1, p2, i: np_embedding([p0, p1, p2], i, "mod"), dtypes=(F32, F64),
         grad=(0, 1, 2)),
    case("embedding_lookup_div", lambda p0, p1, i: tf.nn.embedding_lookup(
        [p0, p1], i, partition_strategy="div"), [X3[0], X3[1, :2], [[4, 0], [3, 2]]],
         lambda p0, p1, i: np_embedding([p0, p1], i, "div"), dtypes=(F32, F64), grad=(0, 1)),
    case("gather_axis0", lambda p, i: tf.gather(p, i), [X3[0], [[2, 0], [2, 1]]],
         lambda p, i: p[i], dtypes=(F32, F64), grad=(0,)),
    case("gather_axis1", lambda p, i: tf.gather(p, i, axis=1), [X3, [2, 0, 2]],
         lambda p, i: p[:, i], dtypes=(F32, F64), grad=(0,)),
    case("gather_axis_negative", lambda p, i: tf.gather(p, i, axis=-1), [X3, [[1], [2]]],
         lambda p, i: p[..., i], dtypes=(F32, F64), grad=(0,)),
    case("dynamic_stitch_partition", lambda x: partition.dynamic_stitch(
        partition.dynamic_partition(tf.range(3), [1, 0, 1], 2),
        partition.dynamic_partition(x, [1, 0, 1], 2)), [X3[0]], lambda x: x, grad=(0,)),
    # Grad ops: their own gradients (second derivatives of the activations).
    case("ReluGrad", raw("ReluGrad"), [G, X], lambda g, f: g * (f > 0), grad=(0, 1)),
    case("Relu6Grad", raw("Relu6Grad"), [G, X], lambda g, f: g * ((f > 0) & (f < 6)),
         grad=(0, 1)),
    case("EluGrad", raw("EluGrad"), [G, np_elu(X)],
         lambda g, y: np.where(y < 0, g * (y + 1), g), grad=(0, 1)),
    case("SeluGrad", raw("SeluGrad"), [G, np_selu(X)],
         lambda g, y: np.where(y < 0, g * (y + SELU_A), g * SELU_S), grad=(0, 1)),
    case("LeakyReluGrad", raw("LeakyReluGrad", alpha=0.3), [G, X],
         lambda g, f: np.where(f > 0, g, 0.3 * g), grad=(0, 1)),
    case("SoftplusGrad", raw("SoftplusGrad"), [G, X], lambda g, f: g * np_sigmoid(f),
         grad=(0, 1)),
    case("SoftsignGrad", raw("SoftsignGrad"), [G, X], lambda g, f: g / (1 + np.abs(f)) ** 2,
         grad=(0, 1)),
    case("BiasAddGrad", raw("BiasAddGrad"), [X3], lambda g: g.sum(axis=(0, 1)), grad=(0,)),
    case("BiasAddGrad_nchw", raw("BiasAddGrad", data_format="NCHW"), [NCHW],
         lambda g: g.sum(axis=(0, 2, 3)), grad=(0,)),
]


def _feeds(c, dtype, graph_inputs):
    values = []
    for v in c.inputs:
        values.append(v.astype(dtype) if v.dtype.kind == "f" else v)
    return dict(zip(graph_inputs, values)), values


def _build(c, dtype):
    phs = [tf.placeholder(dtype if v.dtype.kind == "f" else v.dtype, v.shape)
           for v in c.inputs]
    return phs, c.fn(*phs)


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_forward(c):
    for dtype in c.dtypes:
        with tf.Graph().as_default():
            phs, y = _build(c, dtype)
            feed, values = _feeds(c, dtype, phs)
            with tf.Session() as sess:
                got = sess.run(y, feed)
        want = np.asarray(c.ref(*[v.astype(F64) if v.dtype.kind == "f" else v
                                  for v in c.inputs]))
        assert got.shape == want.shape, (c.id, dtype)
        if want.dtype.kind == "f":
            assert got.dtype == np.dtype(c.out_dtype or dtype), (c.id, dtype, got.dtype)
            rtol, atol = TOL[c.out_dtype or dtype]
            np.testing.assert_allclose(got.astype(F64), want, rtol=rtol, atol=atol,
                                       err_msg=f"{c.id} {np.dtype(dtype).name}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=c.id)
        assert y.shape.is_compatible_with(want.shape), (c.id, y.shape)


GRAD_CASES = [c for c in CASES if c.grad]


@pytest.mark.parametrize("c", GRAD_CASES, ids=[c.id for c in GRAD_CASES])
def test_gradient(c):
    dtype = F64 if F64 in c.dtypes else F32
    rtol, atol = (1e-6, 1e-7) if dtype == F64 else (3e-2, 3e-2)
    delta = 1e-4 if dtype == F64 else 1e-2
    y_shape = list(np.shape(c.ref(*c.inputs)))
    with tf.Graph().as_default():
        phs, y = _build(c, dtype)
        feed, values = _feeds(c, dtype, phs)
        with tf.Session():
            for i in c.grad:
                theoretical, numerical = jacobians(phs, values, i, y, y_shape, delta)
                np.testing.assert_allclose(theoretical, numerical, rtol=rtol, atol=atol,
                                           err_msg=f"{c.id}: input {i}")
