"""Cross entropies of tf.nn: values and gradients recorded from TensorFlow 2.21, the
graphs TensorFlow builds, labels out of range, shape errors, and the stopped
labels gradient of the TF1 softmax cross entropy."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op

X = np.array([[-1.5, -0.4, 0.3], [0.9, 2.2, 7.1]], np.float32)
Z = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 0.25]], np.float32)
W = np.array([[0.3, -1.2, 0.7], [1.1, 0.5, -0.8]], np.float32)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


# (loss, gradient of the loss with respect to the logits) from TensorFlow 2.21; the
# gradient is weighted by W for element-wise losses and by ones for per-row losses.
TF_VALUES = {
    "sigmoid": ([[0.2014133, 0.9130152, 0.7043552], [0.3411539, 2.305083, 5.325825]],
                [[0.05472766, 0.7184253, 0.05210978], [-0.3179556, 0.4501248, -0.5993405]]),
    "weighted": ([[0.2014133, 2.282538, 1.120122], [0.8528847, 2.305083, 5.326134]],
                 [[0.05472766, 1.796063, -0.1713079], [-0.7948889, 0.4501248, -0.5990931]]),
    "softmax": ([1.197871, 4.358094], [[-0.08685898, -0.2076718, 0.2945307],
                                       [-0.5413952, -0.1925311, 0.7339262]]),
    "sparse": ([0.507952, 6.209431], [[0.09946475, 0.2988086, -0.3982733],
                                      [-0.9979896, 0.007376684, 0.9906129]]),
}
LOSSES = {
    "sigmoid": lambda x: tf.nn.sigmoid_cross_entropy_with_logits(labels=Z, logits=x),
    "weighted": lambda x: tf.nn.weighted_cross_entropy_with_logits(
        labels=Z, logits=x, pos_weight=2.5),
    "softmax": lambda x: tf.nn.softmax_cross_entropy_with_logits_v2(labels=_softmax(Z),
                                                                    logits=x),
    "sparse": lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[2, 0],
                                                                       logits=x),
}


@pytest.mark.parametrize("name", sorted(TF_VALUES))
def test_values_and_gradients_match_tensorflow(name):
    loss, grad = TF_VALUES[name]
    with tf.Graph().as_default():
        x = tf.constant(X)
        y = LOSSES[name](x)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(y), loss, rtol=2e-6, atol=1e-6)
            grad_ys = tf.constant(W) if y.shape.ndims == 2 else None
            dx = tf.gradients(y, x, grad_ys=grad_ys)[0]
            np.testing.assert_allclose(sess.run(dx), grad, rtol=2e-6, atol=1e-6)


def test_fused_op_outputs_and_second_derivative_match_tensorflow():
    labels = _softmax(X * 0.5)
    with tf.Graph().as_default():
        x = tf.constant(X)
        op = apply_op("SoftmaxCrossEntropyWithLogits", features=x, labels=labels)
        loss, backprop = op.outputs
        assert loss.shape.as_list() == [2] and backprop.shape.as_list() == [2, 3]
        (dx,) = tf.gradients(backprop, x, grad_ys=tf.constant(W))
        with tf.Session() as sess:
            b, d = sess.run([backprop, dx])
    np.testing.assert_allclose(b, [[-0.0931075, -0.03496781, 0.1280754],
                                   [-0.03780886, -0.06889869, 0.1067075]], rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(d, [[0.02064115, -0.3862035, 0.3655623],
                                   [0.003792765, 0.009490771, -0.01328362]], rtol=2e-6,
                               atol=1e-7)


def test_graphs_follow_tensorflow_names():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        sig = tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=x)
        assert sig.name == "logistic_loss:0" and sig.op.type == "AddV2"
        assert g.get_operation_by_name("logistic_loss/Log1p").type == "Log1p"
        v1 = tf.nn.softmax_cross_entropy_with_logits(labels=x, logits=x)
        assert v1.name.startswith("softmax_cross_entropy_with_logits_sg/")
        assert g.get_operation_by_name(
            "softmax_cross_entropy_with_logits_sg/labels_stop_gradient").type == "StopGradient"
        assert g.get_operation_by_name(
            "softmax_cross_entropy_with_logits_sg").type == "SoftmaxCrossEntropyWithLogits"
        v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=x, logits=x)
        assert v2.shape.as_list() == [2]
        assert g.get_operation_by_name(
            "softmax_cross_entropy_with_logits").type == "SoftmaxCrossEntropyWithLogits"
        sp = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1], logits=x)
        assert sp.name == ("SparseSoftmaxCrossEntropyWithLogits/"
                           "SparseSoftmaxCrossEntropyWithLogits:0")
        assert sp.op.get_attr("Tlabels") == tf.int32


def test_sparse_labels_out_of_range_raise_at_run_time():
    with tf.Graph().as_default():
        labels = tf.placeholder(tf.int64, [2])
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=tf.ones([2, 3]))
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Received a label value of 5 which is outside the valid "
                                     r"range of \[0, 3\).  Label values: 0 5"):
                sess.run(loss, {labels: [0, 5]})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Received a label value of -1 .*Label values: -1 1"):
                sess.run(loss, {labels: [-1, 1]})


def test_sparse_higher_rank_and_half_precision():
    logits = np.random.RandomState(1).randn(2, 3, 4).astype(np.float16)
    labels = np.array([[0, 3, 1], [2, 2, 0]])
    with tf.Graph().as_default():
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        assert loss.dtype == tf.float16 and loss.shape.as_list() == [2, 3]
        with tf.Session() as sess:
            out = sess.run(loss)
    lp = np.log(_softmax(logits.astype(np.float64)))
    want = -np.take_along_axis(lp, labels[..., None], -1)[..., 0]
    assert out.dtype == np.float16
    np.testing.assert_allclose(out, want, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("labels, logits, message", [
    ([[0, 1]], np.ones([2, 3]), r"`labels.shape.rank` must equal `logits.shape.rank - 1`. "
                                r"Received: labels.shape=\(1, 2\) of rank 2 and "
                                r"logits.shape=\(2, 3\) of rank 2"),
    ([0, 1, 1], np.ones([2, 3]), r"`labels.shape` must equal `logits.shape` except for the "
                                 r"last dimension. Received: labels.shape=\(3,\) and "
                                 r"logits.shape=\(2, 3\)"),
    (0, 1.0, r"`logits` cannot be a scalar."),
])
def test_sparse_static_shape_errors(labels, logits, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=labels, logits=np.asarray(logits, np.float32))


def test_fused_op_runtime_shape_errors():
    with tf.Graph().as_default():
        f = tf.placeholder(tf.float32)
        lab = tf.placeholder(tf.float32)
        ids = tf.placeholder(tf.int32)
        dense = apply_op("SoftmaxCrossEntropyWithLogits", features=f, labels=lab).outputs[0]
        sparse = apply_op("SparseSoftmaxCrossEntropyWithLogits", features=f,
                          labels=ids).outputs[0]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"logits and labels must be broadcastable: "
                                     r"logits_size=\[2,3\] labels_size=\[2,4\]"):
                sess.run(dense, {f: np.ones([2, 3]), lab: np.ones([2, 4])})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"logits and labels must have the same first dimension, "
                                     r"got logits shape \[2,3\] and labels shape \[3\]"):
                sess.run(sparse, {f: np.ones([2, 3]), ids: [1, 1, 1]})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Must have at least one class, but got logits shape "
                                     r"\[2,0\]"):
                sess.run(sparse, {f: np.ones([2, 0]), ids: [0, 0]})


def test_static_shape_errors_of_the_dense_losses():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
            tf.nn.softmax_cross_entropy_with_logits_v2(labels=tf.ones([2, 4]),
                                                       logits=tf.ones([2, 3]))
        with pytest.raises(ValueError, match="Shape must be broadcasted with rank 2, but is "
                                             "rank 1"):
            apply_op("SoftmaxCrossEntropyWithLogits", features=tf.ones([3]),
                     labels=tf.ones([3]))
        with pytest.raises(ValueError, match=r"`logits` and `labels` must have the same shape, "
                                             r"received \(\(2, 4\) vs \(2, 3\)\)."):
            tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.ones([2, 3]),
                                                    logits=tf.ones([2, 4]))


def test_keyword_arguments_are_required():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Only call `sigmoid_cross_entropy_with_logits` "
                                             "with named arguments"):
            tf.nn.sigmoid_cross_entropy_with_logits(tf.ones([2]), tf.ones([2]))
        with pytest.raises(ValueError, match="Both `labels` and `logits` must be provided."):
            tf.nn.softmax_cross_entropy_with_logits(logits=tf.ones([2, 3]))


def test_v1_softmax_cross_entropy_stops_the_labels_gradient():
    with tf.Graph().as_default():
        labels = tf.constant(_softmax(Z))
        logits = tf.constant(X)
        g_v1 = tf.gradients(tf.nn.softmax_cross_entropy_with_logits(
            labels=labels, logits=logits), [labels, logits])
        g_v2 = tf.gradients(tf.nn.softmax_cross_entropy_with_logits_v2(
            labels=labels, logits=logits), [labels, logits])
        assert g_v1[0] is None and g_v1[1] is not None
        with tf.Session() as sess:
            d_labels = sess.run(g_v2[0])
    np.testing.assert_allclose(d_labels, -np.log(_softmax(X)), rtol=1e-5)
