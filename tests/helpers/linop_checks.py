"""The checks TF's linear_operator_test_util runs on every operator, against NumPy's
dense math: to_dense, shape, det, log|det|, matmul / matvec (adjoint and adjoint_arg),
solve / solvevec, trace, diag_part, add_to_tensor, adjoint and inverse operators."""
import numpy as np

import trainflow.compat.v1 as tf


def _adj(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _rand(shape, dtype, rng):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def dynamic(value, rank_known=True):
    """`value` as a tensor whose static shape is unknown (TF's use_placeholder cases):
    unknown dimensions, or an unknown rank too."""
    value = np.asarray(value)
    shape = [None] * value.ndim if rank_known else None
    return tf.placeholder_with_default(value, shape=shape)


def check_operator(make, dtype=np.float32, square=True, solvable=True, tol=None, seed=0,
                   static=True):
    """`make()` builds (operator, dense NumPy matrix) in the default graph; every method
    of the operator is compared with the dense matrix (`static`: the operator's static
    shape is the dense matrix's too)."""
    rng = np.random.default_rng(seed)
    tol = tol or (2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10)
    with tf.Graph().as_default():
        op, dense = make()
        dense = np.asarray(dense)
        batch, m, n = dense.shape[:-2], dense.shape[-2], dense.shape[-1]
        # TF's circulant adjoints take the default complex64 dtype: check them to that.
        adjoint_op = op.adjoint()
        adjoint_tol = max(tol, 2e-4) if adjoint_op.dtype in (tf.float32, tf.complex64) \
            else tol
        x = _rand(batch + (n, 3), dtype, rng)
        xa = _rand(batch + (3, n), dtype, rng)
        y = _rand(batch + (m, 3), dtype, rng)
        v = _rand(batch + (n,), dtype, rng)
        vm = _rand(batch + (m,), dtype, rng)
        fetch = {
            "to_dense": op.to_dense(), "shape": op.shape_tensor(),
            "matmul": op.matmul(x), "matmul_adj_arg": op.matmul(xa, adjoint_arg=True),
            "matmul_adj": op.matmul(y, adjoint=True), "matvec": op.matvec(v),
            "matvec_adj": op.matvec(vm, adjoint=True), "diag_part": op.diag_part(),
            "add": op.add_to_tensor(_rand(dense.shape, dtype, rng) * 0 + dense),
            "adjoint_dense": adjoint_op.to_dense(),
            "batch_shape": op.batch_shape_tensor(), "rank": op.tensor_rank_tensor(),
            "domain": op.domain_dimension_tensor(), "range": op.range_dimension_tensor()}
        expected = {
            "to_dense": dense, "shape": list(dense.shape), "matmul": dense @ x,
            "matmul_adj_arg": dense @ _adj(xa), "matmul_adj": _adj(dense) @ y,
            "matvec": (dense @ v[..., None])[..., 0],
            "matvec_adj": (_adj(dense) @ vm[..., None])[..., 0],
            "diag_part": np.diagonal(dense, axis1=-2, axis2=-1), "add": 2 * dense,
            "adjoint_dense": _adj(dense), "batch_shape": list(batch),
            "rank": dense.ndim, "domain": n, "range": m}
        if square:
            fetch.update(trace=op.trace(), det=op.determinant(),
                         logdet=op.log_abs_determinant())
            expected.update(trace=np.trace(dense, axis1=-2, axis2=-1),
                            det=np.linalg.det(dense),
                            logdet=np.linalg.slogdet(dense)[1])
        if square and solvable:
            fetch.update(solve=op.solve(y), solve_adj=op.solve(y, adjoint=True),
                         solve_adj_arg=op.solve(_adj(y), adjoint_arg=True),
                         solvevec=op.solvevec(vm), inverse=op.inverse().to_dense())
            expected.update(solve=np.linalg.solve(dense, y),
                            solve_adj=np.linalg.solve(_adj(dense), y),
                            solve_adj_arg=np.linalg.solve(dense, y),
                            solvevec=np.linalg.solve(dense, vm[..., None])[..., 0],
                            inverse=np.linalg.inv(dense))
        with tf.Session() as sess:
            got = sess.run(fetch)
    for key, want in expected.items():
        t = adjoint_tol if key == "adjoint_dense" else tol
        np.testing.assert_allclose(got[key], want, rtol=t, atol=t, err_msg=key)
    if static:
        assert op.shape.as_list() == list(dense.shape)
    else:
        assert op.shape.is_compatible_with(dense.shape)
    assert op.dtype == tf.as_dtype(dtype)
    return op
