"""Every array op against NumPy: values, output dtypes, static and run-time shapes.

`CASES` is data: (id, graph function, sample inputs, NumPy reference, dtypes, number
of leading inputs cast to the dtype under test, whether the static shape is exact).
A later issue runs the same table through gradient checks, so keep new entries in
this form. Each case runs three ways: inputs fed through fully shaped placeholders,
as constants, and through placeholders of unknown shape.
"""
import collections

import ml_dtypes
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op

Case = collections.namedtuple("Case", "id fn inputs ref dtypes n_data exact loose")


def case(id_, fn, inputs, ref, dtypes, n_data=1, exact=True, loose=True):
    """`loose=False`: the op needs static shape information (TF refuses unknown shapes)."""
    return Case(id_, fn, inputs, ref, dtypes, n_data, exact, loose)


F16, BF16, F32, F64 = np.float16, ml_dtypes.bfloat16, np.float32, np.float64
I32, I64, U8, BOOL, C64, STR = np.int32, np.int64, np.uint8, np.bool_, np.complex64, np.object_
ALL = (F32, F64, F16, BF16, I32, I64, U8, BOOL, C64, STR)
NUM = (F32, F64, F16, BF16, I32, I64, U8, C64)
REAL = (F32, F64, I32, I64)
FLOATS = (F32, F64, F16, BF16)

M23 = np.arange(6).reshape(2, 3)
M34 = np.arange(12).reshape(3, 4)
T234 = np.arange(24).reshape(2, 3, 4)
V5 = np.array([3, 1, 4, 1, 5])


def sample(values, dt):
    """`values` (ints) as dtype `dt`: strings spell the numbers, bools are "is odd"."""
    arr = np.asarray(values)
    if dt is STR:
        return np.vectorize(lambda v: f"s{v}".encode(), otypes=[object])(arr)
    if dt is BOOL:
        return arr % 2 == 1
    if dt is C64:
        return (arr + 1j * (arr % 3)).astype(C64)
    return arr.astype(dt)


def _np_pad(x, pads, **kw):
    return np.pad(x, pads, **kw)


def _first_seen_unique(x):
    seen = {}
    for v in x.tolist():
        seen.setdefault(v, len(seen))
    y = np.array(list(seen), dtype=x.dtype)
    idx = np.array([seen[v] for v in x.tolist()], dtype=np.int32)
    counts = np.array([x.tolist().count(v) for v in seen], dtype=np.int32)
    return y, idx, counts


def _one_hot(indices, depth, on=1.0, off=0.0, axis=-1, dtype=np.float32):
    out = np.where(np.expand_dims(indices, -1) == np.arange(depth), on, off).astype(dtype)
    return out if axis == -1 else np.moveaxis(out, -1, axis)


def _reverse_sequence(x, lengths, seq_axis, batch_axis):
    out = x.copy()
    for b, n in enumerate(lengths):
        idx = [slice(None)] * x.ndim
        idx[batch_axis], idx[seq_axis] = b, slice(0, n)
        out[tuple(idx)] = np.flip(x[tuple(idx)], axis=seq_axis - (seq_axis > batch_axis))
    return out


def _scatter_nd(indices, updates, shape):
    out = np.zeros(shape, updates.dtype)
    np.add.at(out, tuple(indices[..., k] for k in range(indices.shape[-1])), updates)
    return out


def _bga(a, b):
    return apply_op("BroadcastGradientArgs", s0=a, s1=b).outputs


CASES = [
    # -- shape ops
    case("identity", tf.identity, [M23], lambda x: x, ALL),
    case("reshape", lambda x: tf.reshape(x, [3, -1]), [M23], lambda x: x.reshape(3, -1), ALL),
    case("reshape_scalar", lambda x: tf.reshape(x, []), [[7]], lambda x: x.reshape(()), ALL),
    case("reshape_int64_shape", lambda x: tf.reshape(x, np.array([6], np.int64)), [M23],
         lambda x: x.reshape(6), REAL),
    case("squeeze_all", tf.squeeze, [np.arange(6).reshape(1, 2, 1, 3)],
         lambda x: np.squeeze(x), ALL),
    case("squeeze_axis", lambda x: tf.squeeze(x, axis=[-2]), [np.arange(6).reshape(1, 2, 1, 3)],
         lambda x: np.squeeze(x, axis=2), REAL),
    case("expand_dims", lambda x: tf.expand_dims(x, 1), [M23], lambda x: x[:, None], ALL),
    case("expand_dims_neg", lambda x: tf.expand_dims(x, -1), [M23], lambda x: x[..., None], REAL),
    case("shape", tf.shape, [T234], lambda x: np.array(x.shape, np.int32), ALL),
    case("shape_int64", lambda x: tf.shape(x, out_type=tf.int64), [T234],
         lambda x: np.array(x.shape, np.int64), REAL),
    case("shape_n", lambda x, y: tf.shape_n([x, y]), [M23, V5],
         lambda x, y: [np.array(x.shape, np.int32), np.array(y.shape, np.int32)], REAL, 2),
    case("size", tf.size, [T234], lambda x: np.int32(x.size), ALL),
    case("rank", tf.rank, [T234], lambda x: np.int32(x.ndim), ALL),
    case("broadcast_to", lambda x: tf.broadcast_to(x, [4, 2, 3]), [M23],
         lambda x: np.broadcast_to(x, (4, 2, 3)), ALL),
    case("broadcast_to_ones", lambda x: tf.broadcast_to(x, [2, 3]), [[[5], [6]]],
         lambda x: np.broadcast_to(x, (2, 3)), REAL),
    case("broadcast_dynamic_shape", tf.broadcast_dynamic_shape, [[2, 1, 3], [4, 1]],
         lambda a, b: np.array([2, 4, 3], a.dtype), (I32, I64), 2),
    case("broadcast_gradient_args", _bga, [[2, 1, 3], [1, 1]],
         lambda a, b: [np.array([1], a.dtype), np.array([0, 1, 2], a.dtype)], (I32, I64), 2,
         exact=False),
    # -- creation
    case("zeros_like", tf.zeros_like, [M23], np.zeros_like, NUM + (BOOL,)),
    case("zeros_like_string", tf.zeros_like, [M23],
         lambda x: np.full(x.shape, b"", object), (STR,)),
    case("ones_like", tf.ones_like, [M23], np.ones_like, NUM + (BOOL,)),
    case("ones_like_dtype", lambda x: tf.ones_like(x, dtype=tf.int64), [M23],
         lambda x: np.ones(x.shape, np.int64), REAL),
    case("zeros_dynamic", lambda x: tf.zeros(tf.shape(x), dtype=tf.float64), [M23],
         lambda x: np.zeros(x.shape), ALL),
    case("ones_dynamic_list", lambda x: tf.ones([tf.shape(x)[0], 4], dtype=tf.int32), [M23],
         lambda x: np.ones((2, 4), np.int32), ALL),
    case("fill", lambda v: tf.fill([2, 3], v), [9], lambda v: np.full((2, 3), v), ALL),
    case("range", lambda s, lim, d: tf.range(s, lim, d), [1, 11, 3],
         lambda s, lim, d: np.arange(s, lim, d, dtype=s.dtype), (I32, I64, F32, F64), 3,
         exact=False),
    case("range_negative_delta", lambda s, lim, d: tf.range(s, lim, d), [10, 1, -4],
         lambda s, lim, d: np.arange(s, lim, d, dtype=s.dtype), (I32, I64, F32, F64), 3,
         exact=False),
    case("linspace", lambda a, b: tf.linspace(a, b, 5), [1, 3],
         lambda a, b: np.linspace(a, b, 5).astype(a.dtype), (F32, F64), 2),
    case("one_hot", lambda i: tf.one_hot(i, 4), [[0, 3, -1, 5]],
         lambda i: _one_hot(i, 4), (I32, I64, U8)),
    case("one_hot_axis0_values", lambda i: tf.one_hot(i, 3, on_value=5, off_value=-1, axis=0),
         [[[0, 2], [1, 1]]], lambda i: _one_hot(i, 3, 5, -1, 0, np.int32), (I32, I64)),
    case("one_hot_dtype", lambda i: tf.one_hot(i, 2, dtype=tf.float64), [[1, 0]],
         lambda i: _one_hot(i, 2, dtype=np.float64), (I32,)),
    case("diag", tf.diag, [[1, 2, 3]], np.diag, REAL + (C64,)),
    case("diag_rank2", tf.diag, [[[1, 2], [3, 4]]],
         lambda x: np.einsum("ij,ik,jl->ijkl", x, np.eye(2, dtype=x.dtype),
                             np.eye(2, dtype=x.dtype)), REAL),
    case("diag_part", tf.diag_part, [M34[:3, :3]], np.diag, REAL),
    case("matrix_diag", tf.matrix_diag, [M23],
         lambda x: np.stack([np.diag(r) for r in x]), ALL[:-1]),
    case("matrix_diag_part", tf.matrix_diag_part, [T234],
         lambda x: np.diagonal(x, axis1=-2, axis2=-1), ALL),
    case("matrix_set_diag", tf.matrix_set_diag, [M34, [7, 8, 9]], lambda x, d: _set_diag(x, d),
         REAL, 2),
    case("meshgrid_xy", lambda a, b: tf.meshgrid(a, b), [[1, 2], [3, 4, 5]],
         lambda a, b: list(np.meshgrid(a, b)), REAL, 2),
    case("meshgrid_ij", lambda a, b: tf.meshgrid(a, b, indexing="ij"), [[1, 2], [3, 4, 5]],
         lambda a, b: list(np.meshgrid(a, b, indexing="ij")), REAL, 2),
    case("sequence_mask", lambda n: tf.sequence_mask(n, 4), [[0, 2, 4]],
         lambda n: np.arange(4) < n[:, None], (I32, I64)),
    case("sequence_mask_float", lambda n: tf.sequence_mask(n, dtype=tf.float32), [[1, 3]],
         lambda n: (np.arange(3) < n[:, None]).astype(np.float32), (I32,), exact=False),
    # -- joining and rearranging
    case("concat", lambda x, y: tf.concat([x, y], 0), [M23, M23 + 6],
         lambda x, y: np.concatenate([x, y], 0), ALL, 2),
    case("concat_neg_axis", lambda x, y, z: tf.concat([x, y, z], -1), [M23, M23, M23 + 1],
         lambda x, y, z: np.concatenate([x, y, z], -1), REAL, 3),
    case("stack", lambda x, y: tf.stack([x, y], axis=1), [M23, M23 + 6],
         lambda x, y: np.stack([x, y], 1), ALL, 2),
    case("stack_one", lambda x: tf.stack([x], axis=-1), [M23], lambda x: x[..., None], REAL),
    case("unstack", lambda x: tf.unstack(x, axis=1), [M23],
         lambda x: [x[:, i] for i in range(3)], ALL, loose=False),
    case("split_even", lambda x: tf.split(x, 2, axis=2), [T234],
         lambda x: np.split(x, 2, axis=2), ALL),
    case("split_sizes", lambda x: tf.split(x, [1, -1], 1), [T234],
         lambda x: [x[:, :1], x[:, 1:]], ALL),
    case("tile", lambda x: tf.tile(x, [2, 3]), [M23], lambda x: np.tile(x, (2, 3)), ALL),
    case("pad", lambda x: tf.pad(x, [[1, 0], [2, 1]]), [M23],
         lambda x: _np_pad(x, [(1, 0), (2, 1)]), NUM + (BOOL,)),
    case("pad_string", lambda x: tf.pad(x, [[0, 1], [0, 0]]), [M23],
         lambda x: np.concatenate([x, np.full((1, 3), b"", object)]), (STR,)),
    case("pad_constant_values", lambda x: tf.pad(x, [[1, 1], [0, 2]], constant_values=7), [M23],
         lambda x: _np_pad(x, [(1, 1), (0, 2)], constant_values=7), REAL),
    case("pad_reflect", lambda x: tf.pad(x, [[1, 1], [2, 1]], "REFLECT"), [M23],
         lambda x: _np_pad(x, [(1, 1), (2, 1)], mode="reflect"), REAL),
    case("pad_symmetric", lambda x: tf.pad(x, [[2, 2], [3, 0]], mode="symmetric"), [M23],
         lambda x: _np_pad(x, [(2, 2), (3, 0)], mode="symmetric"), REAL),
    case("transpose", tf.transpose, [T234], lambda x: x.T, ALL),
    case("transpose_perm", lambda x: tf.transpose(x, [1, 0, 2]), [T234],
         lambda x: x.transpose(1, 0, 2), ALL),
    case("transpose_conjugate", lambda x: tf.transpose(x, conjugate=True), [M23],
         lambda x: np.conj(x.T), (C64, F32)),
    case("reverse", lambda x: tf.reverse(x, [0]), [M23], lambda x: x[::-1], ALL),
    case("reverse_two_axes", lambda x: tf.reverse(x, [-1, 0]), [T234],
         lambda x: x[::-1, :, ::-1], REAL),
    case("reverse_sequence", lambda x: tf.reverse_sequence(x, [3, 0, 2], seq_axis=1,
                                                           batch_axis=0),
         [M34], lambda x: _reverse_sequence(x, [3, 0, 2], 1, 0), ALL),
    case("reverse_sequence_batch1", lambda x: tf.reverse_sequence(x, [2, 3, 1, 0], 0, 1),
         [M34], lambda x: _reverse_sequence(x, [2, 3, 1, 0], 0, 1), REAL),
    # -- slicing
    case("slice", lambda x: tf.slice(x, [0, 1, 1], [-1, 2, 2]), [T234],
         lambda x: x[:, 1:3, 1:3], ALL),
    case("getitem_int", lambda x: x[1], [T234], lambda x: x[1], ALL),
    case("getitem_negative_steps", lambda x: x[::-1, 2:0:-1, ::-2], [T234],
         lambda x: x[::-1, 2:0:-1, ::-2], ALL),
    case("getitem_ellipsis_newaxis", lambda x: x[None, ..., 1:, tf.newaxis, -1], [T234],
         lambda x: x[None, ..., 1:, None, -1], ALL),
    case("getitem_clamped", lambda x: x[-10:10, 5:], [M23], lambda x: x[-10:10, 5:], REAL),
    case("getitem_tensor_index", lambda x: x[tf.constant(1), tf.constant(-1)], [M23],
         lambda x: x[1, -1], REAL),
    case("strided_slice_masks", lambda x: tf.strided_slice(
        x, [0, 1, 0], [0, 3, 0], [1, 1, 1], begin_mask=1, end_mask=5, shrink_axis_mask=0),
        [T234], lambda x: x[:, 1:3, :], ALL),
    case("strided_slice_shrink_newaxis", lambda x: tf.strided_slice(
        x, [0, 1, 2], [1, 2, 3], [1, 1, 1], new_axis_mask=2, shrink_axis_mask=5), [T234],
        lambda x: x[0, None, 2], REAL),
    # -- gather / scatter / where
    case("gather", lambda x: tf.gather(x, [2, 0, 2]), [M34], lambda x: x[[2, 0, 2]], ALL),
    case("gather_axis1_matrix_indices", lambda x: tf.gather(x, [[1, 0], [3, 3]], axis=1), [M34],
         lambda x: x[:, [[1, 0], [3, 3]]], ALL),
    case("gather_int64_indices", lambda x, i: tf.gather(x, i), [M34, np.array([1, 1], I64)],
         lambda x, i: x[i], REAL),
    case("gather_batch_dims", lambda x: tf.gather(x, [[0, 2], [1, 1]], axis=1, batch_dims=1),
         [np.arange(12).reshape(2, 3, 2)],
         lambda x: np.stack([x[0][[0, 2]], x[1][[1, 1]]]), REAL),
    case("gather_nd", lambda x: tf.gather_nd(x, [[0, 1], [1, 0]]), [T234],
         lambda x: np.stack([x[0, 1], x[1, 0]]), ALL),
    case("gather_nd_scalars", lambda x: tf.gather_nd(x, [[[0, 1, 2]], [[1, 2, 3]]]), [T234],
         lambda x: np.array([[x[0, 1, 2]], [x[1, 2, 3]]]), REAL),
    case("scatter_nd", lambda u: tf.scatter_nd([[1], [3], [1]], u, [5, 2]),
         [[[1, 2], [3, 4], [5, 6]]], lambda u: _scatter_nd(np.array([[1], [3], [1]]), u, (5, 2)),
         (F32, F64, I32, I64)),
    case("where_coords", tf.where, [[[0, 1, 0], [1, 1, 0]]],
         lambda c: np.argwhere(c).astype(np.int64), (BOOL, I32, F32), exact=False),
    case("where_select", lambda c, x, y: tf.where(c, x, y), [[[1, 0, 1], [0, 0, 1]], M23, -M23],
         lambda c, x, y: np.where(c, x, y), (BOOL,), 1),
    case("where_select_vector", lambda c, x, y: tf.where(c, x, y), [[1, 0], M23, -M23],
         lambda c, x, y: np.where(c[:, None], x, y), (BOOL,)),
    case("where_select_scalar", lambda c, x, y: tf.where(c, x, y), [0, M23, -M23],
         lambda c, x, y: y, (BOOL,)),
    case("where_v2_broadcast", lambda c, x: tf.where_v2(c, x, 0), [[1, 0, 1], M23],
         lambda c, x: np.where(c, x, 0).astype(x.dtype), (BOOL,)),
    case("boolean_mask", lambda x, m: tf.boolean_mask(x, m), [M34, [True, False, True]],
         lambda x, m: x[m], ALL, exact=False, loose=False),
    case("boolean_mask_2d", lambda x, m: tf.boolean_mask(x, m),
         [M23, [[True, False, True], [False, False, True]]], lambda x, m: x[m], REAL,
         exact=False, loose=False),
    case("boolean_mask_axis", lambda x, m: tf.boolean_mask(x, m, axis=1),
         [M34, [False, True, True, False]], lambda x, m: x[:, m], REAL, exact=False,
         loose=False),
    case("unique", lambda x: list(tf.unique(x)), [V5],
         lambda x: list(_first_seen_unique(x)[:2]), ALL, exact=False),
    case("unique_with_counts", lambda x: list(tf.unique_with_counts(x, out_idx=tf.int64)), [V5],
         lambda x: [a.astype(np.int64) if i else a
                    for i, a in enumerate(_first_seen_unique(x))], REAL, exact=False),
    case("invert_permutation", tf.invert_permutation, [[2, 0, 3, 1]],
         lambda x: np.argsort(x).astype(x.dtype), (I32, I64)),
    # -- casts and pass-through
    case("cast_to_float32", lambda x: tf.cast(x, tf.float32), [M23 - 2],
         lambda x: x.astype(np.float32), NUM[:-1] + (BOOL,)),
    case("cast_to_int32", lambda x: tf.cast(x, tf.int32), [[[-2.7, 2.7, 0.5]]],
         lambda x: x.astype(np.int32), (F32, F64, F16, BF16, I64, BOOL)),
    case("cast_to_bool", lambda x: tf.cast(x, tf.bool), [M23 - 2], lambda x: x != 0,
         (F32, I32, I64)),
    case("cast_complex_to_real", lambda x: tf.cast(x, tf.float64), [M23],
         lambda x: x.real.astype(np.float64), (C64,)),
    case("saturate_cast", lambda x: tf.saturate_cast(x, tf.uint8), [[-5, 7, 300]],
         lambda x: np.clip(x, 0, 255).astype(np.uint8), (F32, I32, I64)),
    case("to_float", tf.to_float, [M23], lambda x: x.astype(np.float32), (I32, F64)),
    case("to_int64", tf.to_int64, [M23], lambda x: x.astype(np.int64), (I32, F32)),
    case("stop_gradient", tf.stop_gradient, [M23], lambda x: x, ALL),
    case("identity_n", lambda x, y: tf.identity_n([x, y]), [M23, V5], lambda x, y: [x, y],
         ALL, 2),
    case("prevent_gradient", lambda x: apply_op("PreventGradient", input=x).outputs[0], [M23],
         lambda x: x, REAL),
    case("snapshot", lambda x: apply_op("Snapshot", input=x).outputs[0], [M23], lambda x: x,
         ALL),
]


def _set_diag(x, d):
    out = x.copy()
    out[np.arange(len(d)), np.arange(len(d))] = d
    return out


def _tf_dtype(dt):
    return tf.string if dt is STR else tf.as_dtype(np.dtype(dt))


def _inputs(c, dt):
    return [sample(v, dt) if i < c.n_data else np.asarray(v) for i, v in enumerate(c.inputs)]


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _check(got, want):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = np.asarray(w)
        # A fetched string scalar is bytes, as in TF.
        g = np.asarray(g, dtype=object) if w.dtype == object else np.asarray(g)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        assert g.shape == w.shape, (g.shape, w.shape)
        if g.dtype.kind == "f" or g.dtype == BF16:
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-6)
        else:
            np.testing.assert_array_equal(g, w)


PARAMS = [pytest.param(c, dt, id=f"{c.id}-{np.dtype(dt).name}") for c in CASES
          for dt in c.dtypes]


@pytest.mark.parametrize("c,dt", PARAMS)
def test_op_matches_numpy(c, dt):
    inputs = _inputs(c, dt)
    want = _as_list(c.ref(*inputs))
    with tf.Graph().as_default():
        fed = [tf.placeholder(_tf_dtype(x.dtype.type), x.shape) for x in inputs]
        out = _as_list(c.fn(*fed))
        out_const = _as_list(c.fn(*[tf.constant(x, dtype=_tf_dtype(x.dtype.type))
                                     for x in inputs]))
        if c.loose:
            loose = [tf.placeholder(_tf_dtype(x.dtype.type)) for x in inputs]
            out_loose = _as_list(c.fn(*loose))
        else:
            loose, out_loose = [], []
        for t, w in zip(out + out_const + out_loose, want * 3):  # zip stops at the outputs
            assert t.dtype.base_dtype == _tf_dtype(np.asarray(w).dtype.type)
            assert t.shape.is_compatible_with(np.shape(w)), (t.shape, np.shape(w))
        if c.exact:
            for t, w in zip(out + out_const, want * 2):
                assert t.shape.as_list() == list(np.shape(w)), (t.shape, np.shape(w))
        feeds = dict(zip(fed, inputs))
        feeds.update(zip(loose, inputs))
        with tf.Session() as sess:
            got = sess.run([out, out_const, out_loose], feeds)
    for values in got[:3 if c.loose else 2]:
        _check(values, want)
