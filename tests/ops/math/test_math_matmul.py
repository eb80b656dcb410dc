"""MatMul / BatchMatMulV2 / BatchMatMulV3 kernels and run-time errors."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op

RNG = np.random.default_rng(0)


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def test_batched_broadcasting_and_adjoints():
    a = RNG.standard_normal((2, 1, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((5, 4, 2)).astype(np.float32)
    c = (RNG.standard_normal((3, 2, 2)) + 1j * RNG.standard_normal((3, 2, 2))).astype(np.complex64)
    with tf.Graph().as_default():
        outs = [tf.matmul(a, b), tf.matmul(b, b, transpose_a=True),
                tf.matmul(c, c, adjoint_a=True), tf.matmul(c, c, transpose_b=True)]
        assert outs[0].shape.as_list() == [2, 5, 3, 2]
        got = _run(outs)
    np.testing.assert_allclose(got[0], a @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], np.swapaxes(b, 1, 2) @ b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], np.conj(np.swapaxes(c, 1, 2)) @ c, rtol=1e-5, atol=1e-6)
    # transpose_b on a batched complex product is a plain transpose, not an adjoint
    np.testing.assert_allclose(got[3], c @ np.swapaxes(c, 1, 2), rtol=1e-5, atol=1e-6)


def test_output_type_uses_batch_matmul_v3():
    with tf.Graph().as_default():
        a = tf.constant([[1, 2], [3, 4]], tf.int8)
        t = tf.matmul(a, a, output_type=tf.int32)
        assert (t.op.type, t.dtype) == ("BatchMatMulV3", tf.int32)
        assert t.op.get_attr("Ta") == tf.int8 and t.shape.as_list() == [2, 2]
        assert _run(t).tolist() == [[7, 10], [15, 22]]


def test_integer_and_half_products_keep_dtype():
    with tf.Graph().as_default():
        i = tf.constant([[1, 2]], tf.int64)
        h = tf.constant([[0.5, 1.5]], tf.float16)
        got = _run([tf.matmul(i, i, transpose_b=True), tf.matmul(h, h, transpose_a=True)])
    assert got[0].dtype == np.int64 and got[0].tolist() == [[5]]
    assert got[1].dtype == np.float16 and got[1].tolist() == [[0.25, 0.75], [0.75, 2.25]]


@pytest.mark.parametrize("a_shape,b_shape,message", [
    ((2, 3), (4, 2), r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[4,2\]"),
    ((3,), (3, 2), r"In\[0\] is not a matrix. Instead it has shape \[3\]"),
])
def test_matmul_run_time_errors(a_shape, b_shape, message):
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, None)
        b = tf.placeholder(tf.float32, [None, None])
        t = apply_op("MatMul", a=a, b=b).outputs[0]
        with pytest.raises(errors.InvalidArgumentError, match=message):
            _run(t, {a: np.ones(a_shape, np.float32), b: np.ones(b_shape, np.float32)})


def test_batch_matmul_run_time_errors():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, None)
        b = tf.placeholder(tf.float32, None)
        t = tf.matmul(a, b)
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"In\[0\] and In\[1\] must have compatible batch dimensions: "
                                 r"\[5,2,3\] vs. \[4,3,4\]"):
            _run(t, {a: np.ones((5, 2, 3), np.float32), b: np.ones((4, 3, 4), np.float32)})
        with pytest.raises(errors.InvalidArgumentError, match=r"In\[0\] ndims must be >= 2: 1"):
            _run(t, {a: np.ones(3, np.float32), b: np.ones((3, 4), np.float32)})


def test_qr_reduced_and_full():
    a = RNG.standard_normal((2, 5, 3))
    with tf.Graph().as_default():
        q, r = tf.qr(tf.constant(a))
        fq, fr = tf.qr(tf.constant(a[0]), full_matrices=True)
        assert q.op.type == "Qr" and (q.shape.as_list(), r.shape.as_list()) == ([2, 5, 3],
                                                                                [2, 3, 3])
        assert (fq.shape.as_list(), fr.shape.as_list()) == ([5, 5], [5, 3])
        got_q, got_r, got_fq, got_fr = _run([q, r, fq, fr])
    np.testing.assert_allclose(got_q @ got_r, a, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(got_q, 1, 2) @ got_q, np.broadcast_to(np.eye(3),
                                                                                  (2, 3, 3)),
                               atol=1e-12)
    assert np.allclose(np.tril(got_r, -1), 0)
    np.testing.assert_allclose(got_fq @ got_fr, a[0], atol=1e-12)


def test_qr_half_precision_and_rank_check():
    with tf.Graph().as_default():
        q, r = tf.qr(tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float16))
        got = _run([q, r])
        assert all(v.dtype == np.float16 for v in got)
        np.testing.assert_allclose(got[0].astype(np.float32) @ got[1].astype(np.float32),
                                   [[1, 2], [3, 4]], atol=1e-2)
        with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1"):
            tf.qr(tf.constant([1.0, 2.0]))
