"""The CTC ops: TensorFlow r1.8's `ctc_loss_op_test.py` (testBasic, test_time_major,
testInvalidSecondGradient, testEmptyBatch) and `ctc_decoder_ops_test.py`
(testCTCGreedyDecoder, testCTCDecoderBeamSearch) ported, with their reference values
(Alex Graves' implementation for the loss), plus the graph-building rules: shapes, op
names, argument errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf

# -- TF r1.8 ctc_loss_op_test.py ----------------------------------------------------------------
# Batch entry 0: targets 0 1 2 1 0; entry 1: targets 0 1 1 0 (5 frames each, 2 padding).
_PROBS_0 = [[0.633766, 0.221185, 0.0917319, 0.0129757, 0.0142857, 0.0260553],
            [0.111121, 0.588392, 0.278779, 0.0055756, 0.00569609, 0.010436],
            [0.0357786, 0.633813, 0.321418, 0.00249248, 0.00272882, 0.0037688],
            [0.0663296, 0.643849, 0.280111, 0.00283995, 0.0035545, 0.00331533],
            [0.458235, 0.396634, 0.123377, 0.00648837, 0.00903441, 0.00623107]]
_GRAD_0 = [[-0.366234, 0.221185, 0.0917319, 0.0129757, 0.0142857, 0.0260553],
           [0.111121, -0.411608, 0.278779, 0.0055756, 0.00569609, 0.010436],
           [0.0357786, 0.633813, -0.678582, 0.00249248, 0.00272882, 0.0037688],
           [0.0663296, -0.356151, 0.280111, 0.00283995, 0.0035545, 0.00331533],
           [-0.541765, 0.396634, 0.123377, 0.00648837, 0.00903441, 0.00623107]]
_PROBS_1 = [[0.30176, 0.28562, 0.0831517, 0.0862751, 0.0816851, 0.161508],
            [0.24082, 0.397533, 0.0557226, 0.0546814, 0.0557528, 0.19549],
            [0.230246, 0.450868, 0.0389607, 0.038309, 0.0391602, 0.202456],
            [0.280884, 0.429522, 0.0326593, 0.0339046, 0.0326856, 0.190345],
            [0.423286, 0.315517, 0.0338439, 0.0393744, 0.0339315, 0.154046]]
_GRAD_1 = [[-0.69824, 0.28562, 0.0831517, 0.0862751, 0.0816851, 0.161508],
           [0.24082, -0.602467, 0.0557226, 0.0546814, 0.0557528, 0.19549],
           [0.230246, 0.450868, 0.0389607, 0.038309, 0.0391602, -0.797544],
           [0.280884, -0.570478, 0.0326593, 0.0339046, 0.0326856, 0.190345],
           [-0.576714, 0.315517, 0.0338439, 0.0393744, 0.0339315, 0.154046]]


def _sparse(rows):
    """TF's SimpleSparseTensorFrom: int32 labels [batch, time] from lists of lists."""
    idx = [[b, t] for b, row in enumerate(rows) for t in range(len(row))]
    val = [v for row in rows for v in row]
    shape = [len(rows), np.asarray(idx).max(0)[1] + 1]
    return tf.SparseTensor(tf.constant(idx, tf.int64), tf.constant(val, tf.int32),
                           tf.constant(shape, tf.int64))


def test_basic_matches_graves_reference():
    depth = 6
    inputs = np.stack([np.log(np.asarray(_PROBS_0, np.float32)),
                       np.log(np.asarray(_PROBS_1, np.float32))], axis=1)
    inputs = np.concatenate([inputs, np.full((2, 2, depth), np.nan, np.float32)])
    grad_truth = np.concatenate([np.stack([_GRAD_0, _GRAD_1], axis=1),
                                 np.zeros((2, 2, depth))]).astype(np.float32)
    loss_truth = np.array([3.34211, 5.42262], np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        inputs_t = tf.constant(inputs)
        loss = tf.nn.ctc_loss(inputs=inputs_t, labels=_sparse([[0, 1, 2, 1, 0], [0, 1, 1, 0]]),
                              sequence_length=np.array([5, 5], np.int32))
        grad = tf.gradients(loss, [inputs_t])[0]
        assert loss.shape.as_list() == [2] and grad.shape.as_list() == [7, 2, depth]
        tf_loss, tf_grad = sess.run([loss, grad])
    np.testing.assert_allclose(tf_loss, loss_truth, rtol=1e-6, atol=1e-6)  # assertAllClose
    np.testing.assert_allclose(tf_grad, grad_truth, rtol=1e-6, atol=1e-6)


def test_time_major():
    inputs = np.random.RandomState(0).randn(2, 2, 3).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        labels = _sparse([[0, 1], [1, 0]])
        seq = np.array([2, 2], np.int32)
        loss = tf.nn.ctc_loss(inputs=tf.constant(inputs), labels=labels, sequence_length=seq)
        loss_t = tf.nn.ctc_loss(inputs=tf.constant(inputs.transpose(1, 0, 2)), labels=labels,
                                sequence_length=seq, time_major=False)
        a, b = sess.run([loss, loss_t])
    np.testing.assert_array_equal(a, b)


def test_invalid_second_gradient():
    with tf.Graph().as_default():
        inputs_t = tf.constant(np.random.RandomState(1).randn(2, 2, 3).astype(np.float32))
        loss = tf.nn.ctc_loss(inputs=inputs_t, labels=_sparse([[0, 1], [1, 0]]),
                              sequence_length=np.array([2, 2], np.int32))
        grad = tf.gradients(loss, [inputs_t])[0]
        with pytest.raises(LookupError, match="explicitly disabled"):
            tf.gradients(tf.reduce_sum(grad * 1.0), [inputs_t])


def test_empty_batch():
    with tf.Graph().as_default(), tf.Session() as sess:
        inputs = tf.constant([], dtype=tf.float32, shape=(1, 0, 2))
        seq = tf.constant([], dtype=tf.int32)
        labels = tf.SparseTensor(indices=tf.constant([], shape=(0, 2), dtype=tf.int64),
                                 values=tf.constant([], shape=(0,), dtype=tf.int32),
                                 dense_shape=[5, 5])
        with pytest.raises(tf.errors.InvalidArgumentError, match="batch_size must not be 0"):
            sess.run(tf.nn.ctc_loss(labels, inputs, seq))


# -- TF r1.8 ctc_decoder_ops_test.py ------------------------------------------------------------
def _decode(decoder, inputs, seq_lens, **kwargs):
    with tf.Graph().as_default(), tf.Session() as sess:
        decoded, log_prob = decoder(tf.constant(inputs), sequence_length=seq_lens, **kwargs)
        for st in decoded:
            assert st.indices.shape.as_list() == [None, 2]
            assert st.values.shape.as_list() == [None]
            assert st.dense_shape.shape.as_list() == [2]
        return sess.run([[(st.indices, st.values, st.dense_shape) for st in decoded], log_prob])


def test_greedy_decoder():
    p0 = np.asarray([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.4, 0.6], [0.0, 0.0, 0.4, 0.6],
                     [0.0, 0.9, 0.1, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                    np.float32)
    p1 = np.asarray([[0.1, 0.9, 0.0, 0.0], [0.0, 0.9, 0.1, 0.0], [0.0, 0.0, 0.1, 0.9],
                     [0.0, 0.9, 0.1, 0.1], [0.9, 0.1, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]],
                    np.float32)
    with np.errstate(divide="ignore"):
        inputs = np.stack([np.log(p0), np.log(p1)], axis=1)
    (paths,), log_prob = _decode(tf.nn.ctc_greedy_decoder, inputs,
                                 np.array([4, 5], np.int32))
    np.testing.assert_array_equal(paths[0], [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]])
    np.testing.assert_array_equal(paths[1], [0, 1, 1, 1, 0])
    np.testing.assert_array_equal(paths[2], [2, 3])
    want = np.array([np.sum(-np.log([1.0, 0.6, 0.6, 0.9])),
                     np.sum(-np.log([0.9, 0.9, 0.9, 0.9, 0.9]))], np.float32)[:, None]
    np.testing.assert_allclose(log_prob, want, rtol=1e-6, atol=1e-6)


_BEAM_PROBS = np.asarray([
    [0.30999, 0.309938, 0.0679938, 0.0673362, 0.0708352, 0.173908],
    [0.215136, 0.439699, 0.0370931, 0.0393967, 0.0381581, 0.230517],
    [0.199959, 0.489485, 0.0233221, 0.0251417, 0.0233289, 0.238763],
    [0.279611, 0.452966, 0.0204795, 0.0209126, 0.0194803, 0.20655],
    [0.51286, 0.288951, 0.0243026, 0.0220788, 0.0219297, 0.129878]], np.float32) + 2.0


def test_beam_search_decoder():
    inputs = np.concatenate([_BEAM_PROBS[:, None, :], np.zeros((2, 1, 6), np.float32)])
    paths, log_prob = _decode(tf.nn.ctc_beam_search_decoder, inputs, np.array([5], np.int32),
                              beam_width=2, top_paths=2)
    want = [([[0, 0], [0, 1]], [1, 0], [1, 2]), ([[0, 0]], [1], [1, 1])]
    for got, (ix, vals, shape) in zip(paths, want):
        np.testing.assert_array_equal(got[0], ix)
        np.testing.assert_array_equal(got[1], vals)
        np.testing.assert_array_equal(got[2], shape)
    np.testing.assert_allclose(log_prob, [[-5.811451, -6.63339]], rtol=1e-6, atol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="requested more paths than the beam width"):
        _decode(tf.nn.ctc_beam_search_decoder, inputs, np.array([5], np.int32),
                beam_width=2, top_paths=3)


# -- graph building -----------------------------------------------------------------------------
def test_op_types_names_and_static_shapes():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [7, 3, 5])
        loss = tf.nn.ctc_loss(_sparse([[0], [1], [2]]), x, [7, 7, 7])
        (d,), lp = tf.nn.ctc_greedy_decoder(x, [7, 7, 7])
        beams, blp = tf.nn.ctc_beam_search_decoder(x, [7, 7, 7], beam_width=4, top_paths=3)
        assert loss.op.type == "CTCLoss" and loss.op.name == "CTCLoss"
        assert loss.op.get_attr("ctc_merge_repeated") is True
        assert d.indices.op.type == "CTCGreedyDecoder"
        assert d.indices.op.get_attr("merge_repeated") is True
        assert lp.shape.as_list() == [3, 1] and blp.shape.as_list() == [3, 3]
        assert len(beams) == 3 and beams[0].indices.op.type == "CTCBeamSearchDecoder"
        assert tf.gradients(lp, x) == [None]  # the decoders are not differentiable


@pytest.mark.parametrize("build, error, match", [
    (lambda x: tf.nn.ctc_loss([[0]], x, [2]), TypeError, "Expected argument `labels`"),
    (lambda x: tf.nn.ctc_loss(_sparse([[0]]), x[0], [2]), ValueError, "must be rank 3"),
    (lambda x: tf.nn.ctc_loss(_sparse([[0]]), x, [2, 2]), ValueError,
     "Dimensions must be equal, but are 1 and 2"),
    (lambda x: tf.nn.ctc_greedy_decoder(x, [[2]]), ValueError, "must be rank 1"),
    (lambda x: tf.nn.ctc_loss_v2(_sparse([[0]]), x, None, [2]), ValueError,
     "`blank_index` must be provided"),
])
def test_argument_errors(build, error, match):
    with tf.Graph().as_default():
        x = tf.constant(np.zeros((2, 1, 3), np.float32))
        with pytest.raises(error, match=match):
            build(x)


def test_loss_is_scaled_by_the_incoming_gradient_and_float64_works():
    rng = np.random.RandomState(5)
    x = rng.randn(6, 2, 4)
    with tf.Graph().as_default(), tf.Session() as sess:
        xt = tf.constant(x)  # float64
        loss = tf.nn.ctc_loss(_sparse([[0, 1], [2, 2]]), xt, [6, 5])
        g1 = tf.gradients(loss, xt)[0]
        g3 = tf.gradients(loss * tf.constant([3.0, -1.0], tf.float64), xt)[0]
        lv, a, b = sess.run([loss, g1, g3])
    assert lv.dtype == np.float64 and np.all(np.isfinite(lv))
    np.testing.assert_allclose(b, a * np.array([3.0, -1.0])[None, :, None], rtol=1e-12)
    np.testing.assert_allclose(a[5, 1], 0)  # past entry 1's end
    np.testing.assert_allclose(a.sum(axis=2), 0, atol=1e-12)  # softmax minus occupancy
