"""Gradients of every case in the array op table (tests/ops/array/test_array_table.py).

Each table case is classified here, by id, as data:
  GRAD: the inputs to check against finite differences (float64, fully shaped
    placeholders, `tf.test.compute_gradient_error`), one check per input and
    floating output;
  NONE: inputs whose gradient is None (not differentiable, or not connected);
  RAISES: cases where tf.gradients raises LookupError, as TensorFlow does;
  SKIP: cases with no floating input, with the reason.
A test makes sure every table case is classified, so new entries get a gradient check.
"""
import importlib.util
import pathlib

import numpy as np
import pytest

import trainflow.compat.v1 as tf


def _load_table():
    path = pathlib.Path(__file__).with_name("test_array_table.py")
    spec = importlib.util.spec_from_file_location("_array_op_table", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TABLE = _load_table()
CASES = {c.id: c for c in TABLE.CASES}

ALL_DATA = None  # every data input (the first n_data)

GRAD = {
    "identity": (0,), "reshape": (0,), "reshape_scalar": (0,), "reshape_int64_shape": (0,),
    "squeeze_all": (0,), "squeeze_axis": (0,), "expand_dims": (0,), "expand_dims_neg": (0,),
    "broadcast_to": (0,), "broadcast_to_ones": (0,), "fill": (0,), "diag": (0,),
    "diag_rank2": (0,), "diag_part": (0,), "matrix_diag": (0,), "matrix_diag_part": (0,),
    "matrix_set_diag": (0, 1), "meshgrid_xy": (0, 1), "meshgrid_ij": (0, 1), "concat": (0, 1),
    "concat_neg_axis": (0, 1, 2), "stack": (0, 1), "stack_one": (0,), "unstack": (0,),
    "split_even": (0,), "split_sizes": (0,), "tile": (0,), "pad": (0,),
    "pad_constant_values": (0,), "pad_reflect": (0,), "pad_symmetric": (0,), "transpose": (0,),
    "transpose_perm": (0,), "transpose_conjugate": (0,), "reverse": (0,),
    "reverse_two_axes": (0,), "reverse_sequence": (0,), "reverse_sequence_batch1": (0,),
    "slice": (0,), "getitem_int": (0,), "getitem_negative_steps": (0,),
    "getitem_ellipsis_newaxis": (0,), "getitem_clamped": (0,), "getitem_tensor_index": (0,),
    "strided_slice_masks": (0,), "strided_slice_shrink_newaxis": (0,), "gather": (0,),
    "gather_axis1_matrix_indices": (0,), "gather_int64_indices": (0,),
    "gather_batch_dims": (0,), "gather_nd": (0,), "gather_nd_scalars": (0,),
    "scatter_nd": (0,), "where_select": (1, 2), "where_select_vector": (1, 2),
    "where_select_scalar": (1, 2), "where_v2_broadcast": (1,), "boolean_mask": (0,),
    "boolean_mask_2d": (0,), "boolean_mask_axis": (0,), "cast_to_float32": (0,),
    "to_float": (0,), "identity_n": (0, 1), "snapshot": (0,),
}

NONE = {
    "shape": ALL_DATA, "shape_int64": ALL_DATA, "shape_n": ALL_DATA, "size": ALL_DATA,
    "rank": ALL_DATA, "zeros_like": ALL_DATA, "ones_like": ALL_DATA,
    "ones_like_dtype": ALL_DATA, "zeros_dynamic": ALL_DATA, "ones_dynamic_list": ALL_DATA,
    "range": ALL_DATA, "range_negative_delta": ALL_DATA, "cast_to_int32": ALL_DATA,
    "cast_to_bool": ALL_DATA, "saturate_cast": ALL_DATA, "to_int64": ALL_DATA,
    "stop_gradient": ALL_DATA,
}

RAISES = {
    "prevent_gradient": "Gradient explicitly disabled",
    "unique": "No gradient defined for operation",
    "where_coords": "No gradient defined for operation",
}

SKIP = {
    "broadcast_dynamic_shape": "integer shapes only",
    "broadcast_gradient_args": "integer shapes only",
    "zeros_like_string": "strings", "pad_string": "strings",
    "one_hot": "integer indices", "one_hot_axis0_values": "integer indices",
    "one_hot_dtype": "integer indices", "sequence_mask": "integer lengths",
    "sequence_mask_float": "integer lengths", "unique_with_counts": "integer outputs",
    "invert_permutation": "integer permutation", "cast_complex_to_real": "complex input",
    # Builds the LinSpace op, which TensorFlow marks not differentiable; TF 2.21's own
    # tf.linspace is a differentiable composite instead (reported to the lead).
    "linspace": "LinSpace op",
}


def _inputs(c, positions, data_dtype):
    """The case's inputs: float64 at `positions`, the table's sample dtype for the other
    data inputs, raw values for the rest."""
    out = []
    for i, v in enumerate(c.inputs):
        if i in positions:
            out.append(np.asarray(v, dtype=np.float64))
        elif i < c.n_data:
            out.append(TABLE.sample(v, data_dtype))
        else:
            out.append(np.asarray(v))
    return out


def _tf_dtype(dt):
    return tf.as_dtype(np.dtype(dt))


def _build(c, positions, data_dtype):
    values = _inputs(c, positions, data_dtype)
    phs = [tf.placeholder(_tf_dtype(v.dtype), v.shape) for v in values]
    outputs = c.fn(*phs)
    outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    return phs, values, outputs


def test_every_table_case_is_classified():
    groups = [set(GRAD), set(NONE), set(RAISES), set(SKIP)]
    classified = set().union(*groups)
    assert sum(len(g) for g in groups) == len(classified), "a case is in two groups"
    assert classified == set(CASES), (set(CASES) - classified, classified - set(CASES))


@pytest.mark.parametrize("case_id", sorted(GRAD))
def test_gradient_matches_finite_differences(case_id):
    c = CASES[case_id]
    positions = GRAD[case_id]
    with tf.Graph().as_default():
        phs, values, outputs = _build(c, positions, c.dtypes[0])
        feeds = dict(zip(phs, values))
        with tf.Session() as sess:
            for y in outputs:
                if not y.dtype.is_floating:
                    continue
                # A float32 output carries float32 round-off into the differences.
                tol = 1e-8 if y.dtype.base_dtype == tf.float64 else 2e-3
                y_shape = list(np.shape(sess.run(y, feeds)))  # boolean_mask: dynamic
                for p in positions:
                    extra = {k: v for k, v in feeds.items() if k is not phs[p]}
                    err = tf.test.compute_gradient_error(
                        phs[p], list(values[p].shape), y, y_shape, x_init_value=values[p],
                        extra_feed_dict=extra)
                    assert err < tol, (case_id, p, y.name, err)


@pytest.mark.parametrize("case_id", sorted(NONE))
def test_gradient_is_none(case_id):
    c = CASES[case_id]
    positions = tuple(range(c.n_data)) if NONE[case_id] is ALL_DATA else NONE[case_id]
    with tf.Graph().as_default():
        phs, _, outputs = _build(c, positions, c.dtypes[0])
        grads = tf.gradients(outputs, [phs[p] for p in positions])
    assert grads == [None] * len(positions)


@pytest.mark.parametrize("case_id", sorted(RAISES))
def test_gradient_raises_lookup_error(case_id):
    c = CASES[case_id]
    with tf.Graph().as_default():
        phs, _, outputs = _build(c, (0,), c.dtypes[0])
        with pytest.raises(LookupError, match=RAISES[case_id]):
            tf.gradients(outputs, phs[0])
