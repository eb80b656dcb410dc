"""Static shape rules of the math ops (math_shapes), with TF's wording."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.math.shapes import broadcast_dims, merge_dims


@pytest.mark.parametrize("x,y,want", [
    ((2, 3), (3,), (2, 3)), ((2, 1), (1, 3), (2, 3)), ((), (4, 5), (4, 5)),
    ((5, 1, 3), (4, 1), (5, 4, 3)),
    # unknown sizes: a known size > 1 wins, 1 yields the other side, else unknown
    ((None, 3), (2, 1, None), (2, None, 3)), ((None,), (1,), (None,)),
    ((None,), (None,), (None,)), ((None,), (3,), (3,)), ((1,), (None,), (None,)),
    (None, (3,), None), ((2, 3), None, None),
])
def test_broadcast_dims(x, y, want):
    assert broadcast_dims(x, y) == want


def test_broadcast_dims_errors_and_lenient_mode():
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        broadcast_dims((2, 3), (4,))
    assert broadcast_dims((2, 3), (4,), incompatible_shape_error=False) is None
    assert broadcast_dims((None, 3), (4,), incompatible_shape_error=False) is None


def test_merge_dims():
    assert merge_dims(None, 3) == 3 and merge_dims(3, None) == 3 and merge_dims(None, None) is None
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 5"):
        merge_dims(2, 5)


def test_binary_shape_error_names_node_and_shapes():
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, [2, 3], name="a")
        b = tf.placeholder(tf.float32, [4], name="b")
        with pytest.raises(ValueError, match=r"Dimensions must be equal, but are 3 and 4 for "
                                             r"'\{\{node Add\}\} = AddV2\(a, b\)' with input "
                                             r"shapes: \[2,3\], \[4\]."):
            tf.add(a, b)


def test_equal_with_incompatible_shape_error_off():
    from trainflow._src.framework.op_builder import apply_op
    with tf.Graph().as_default():
        x, y = tf.constant([1, 2]), tf.constant([1, 2, 3])
        eq = apply_op("Equal", x=x, y=y, incompatible_shape_error=False).outputs[0]
        ne = apply_op("NotEqual", x=x, y=y, incompatible_shape_error=False).outputs[0]
        assert eq.shape.rank is None
        with tf.Session() as sess:
            assert sess.run([eq, ne]) == [False, True]


@pytest.mark.parametrize("a,b,kw,want", [
    ([2, 3], [3, 4], {}, [2, 4]), ([3, 2], [3, 4], dict(transpose_a=True), [2, 4]),
    ([2, 3], [4, 3], dict(transpose_b=True), [2, 4]), ([None, 3], [3, None], {}, [None, None]),
    ([5, 2, 3], [3, 4], {}, [5, 2, 4]), ([5, 1, 2, 3], [4, 3, 6], {}, [5, 4, 2, 6]),
    ([5, 3, 2], [5, 3, 4], dict(adjoint_a=True), [5, 2, 4]), (None, [3, 4], {}, None),
])
def test_matmul_shapes(a, b, kw, want):
    with tf.Graph().as_default():
        t = tf.matmul(tf.placeholder(tf.float32, a), tf.placeholder(tf.float32, b), **kw)
        assert (t.shape.as_list() if t.shape.rank is not None else None) == want


def test_batch_matmul_shape_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 5 and 4"):
            tf.matmul(tf.placeholder(tf.float32, [5, 2, 3]), tf.placeholder(tf.float32, [4, 3, 4]))
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            tf.matmul(tf.placeholder(tf.float32, [5, 2, 3]), tf.placeholder(tf.float32, [2, 4]))


@pytest.mark.parametrize("shape,axis,keep,want", [
    ([2, 3, 4], [0, 2], False, [3]), ([2, 3, 4], [0, -1], True, [1, 3, 1]),
    ([None, 3], 0, False, [3]), ([2, 3], [], False, [2, 3]), ([], [], False, []),
])
def test_reduction_shapes(shape, axis, keep, want):
    with tf.Graph().as_default():
        t = tf.reduce_sum(tf.placeholder(tf.float32, shape), axis, keepdims=keep)
        assert t.shape.as_list() == want


def test_arg_reduction_shapes():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, None, 4])
        assert tf.argmax(x, 1).shape.as_list() == [2, 4]
        assert tf.argmax(x, -1).shape.as_list() == [2, None]
        assert tf.argmax(tf.placeholder(tf.float32, [7])).shape.as_list() == []
        assert tf.argmin(tf.placeholder(tf.float32)).shape.rank is None
