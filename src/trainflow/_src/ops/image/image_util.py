"""Graph-building helpers shared by the tf.image functions.

TensorFlow composes most of tf.image from array, math and control-flow ops; these
helpers add those same op types (Shape, Unpack, Slice, Pad, ReverseV2, Cast, Mul,
Assert, ...) through the op registry, and fold Python numbers without building ops
where TF's own Python does. They also hold TF's image-shape checks, with its wording.
"""
import numbers

import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.control_flow import assert_op as assert_op_lib


def op(op_type, name=None, **kwargs):
    """Adds one op and returns its first output."""
    return apply_op(op_type, name=name, **kwargs).outputs[0]


def is_tensor(x):
    """True for a graph Tensor (or a Variable), as TF's image code tests it."""
    return isinstance(x, Tensor) or hasattr(x, "_as_graph_element")


def _python_number(x):
    return isinstance(x, (numbers.Number, np.number)) and not isinstance(x, bool)


def binary(op_type, py_fn, x, y, name=None):
    """`py_fn(x, y)` for two Python numbers, else an `op_type` op."""
    if _python_number(x) and _python_number(y) and name is None:
        return py_fn(x, y)
    return op(op_type, x=x, y=y, name=name)


def add(x, y, name=None):
    return binary("AddV2", lambda a, b: a + b, x, y, name)


def sub(x, y, name=None):
    return binary("Sub", lambda a, b: a - b, x, y, name)


def mul(x, y, name=None):
    return binary("Mul", lambda a, b: a * b, x, y, name)


def floordiv(x, y, name=None):
    return binary("FloorDiv", lambda a, b: a // b, x, y, name)


def maximum(x, y, name=None):
    return binary("Maximum", max, x, y, name)


def minimum(x, y, name=None):
    return binary("Minimum", min, x, y, name)


def greater_equal(x, y):
    return binary("GreaterEqual", lambda a, b: a >= b, x, y)


def greater(x, y):
    return binary("Greater", lambda a, b: a > b, x, y)


def equal(x, y):
    return binary("Equal", lambda a, b: a == b, x, y)


def realdiv(x, y, name=None):
    return op("RealDiv", x=x, y=y, name=name)


def cast(x, dtype, name=None):
    """`tf.cast`: returns `x` itself when it already has `dtype`."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    x = convert_to_tensor(x, name="x")
    if x.dtype.base_dtype == dtype:
        return x
    return op("Cast", x=x, DstT=dtype, Truncate=False, name=name or "Cast")


def saturate_cast(x, dtype, name=None):
    """`tf.saturate_cast`: clamps to `dtype`'s range before casting."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    with name_scope(name, "saturate_cast", [x]) as scope:
        x = convert_to_tensor(x, name="value")
        src = x.dtype.base_dtype
        if src.min < dtype.min:
            x = op("Maximum", x=x, y=convert_to_tensor(dtype.min, dtype=src, name="min"))
        if src.max > dtype.max:
            x = op("Minimum", x=x, y=convert_to_tensor(_float_safe_max(src, dtype), dtype=src,
                                                        name="max"))
        return cast(x, dtype, name=scope)


def _float_safe_max(src, dst):
    """`dst.max` as a value of `src` that does not round above it (float -> int casts)."""
    if src.is_floating and dst.is_integer:
        np_t = src.as_numpy_dtype
        v = np_t(dst.max)
        while int(v) > dst.max:
            v = np.nextafter(v, np_t(0))
        return v
    return dst.max


def shape(x, out_type=dtypes.int32, name=None):
    return op("Shape", input=x, out_type=out_type, name=name)


def rank(x):
    return op("Rank", input=x)


def stack(values, name=None):
    """`tf.stack` of Python ints and int32 scalar tensors along axis 0."""
    values = [v if is_tensor(v) else convert_to_tensor(v, dtype=dtypes.int32) for v in values]
    return op("Pack", values=values, axis=0, name=name)


def unstack(x, num):
    return apply_op("Unpack", value=x, num=num, axis=0).outputs


def expand_dims(x, axis):
    return op("ExpandDims", input=x, dim=convert_to_tensor(axis, dtype=dtypes.int32))


def squeeze(x, axis, name=None):
    return op("Squeeze", input=x, squeeze_dims=list(axis), name=name)


def reverse(x, axes, name=None):
    return op("ReverseV2", tensor=x, axis=convert_to_tensor(list(axes), dtype=dtypes.int32),
              name=name)


def transpose(x, perm, name=None):
    return op("Transpose", x=x, perm=convert_to_tensor(list(perm), dtype=dtypes.int32),
              name=name)


def slice_(x, begin, size, name=None):
    return op("Slice", input=x, begin=begin, size=size, name=name)


def reshape(x, new_shape, name=None):
    return op("Reshape", tensor=x, shape=new_shape, name=name)


def reduce(op_type, x, axes, keepdims=False, name=None):
    return op(op_type, input=x, reduction_indices=convert_to_tensor(axes, dtype=dtypes.int32),
              keep_dims=keepdims, name=name)


def tail(vector, n):
    """vector[-n:] of a 1-D tensor (TF's `shape(x)[-n:]`, a StridedSlice)."""
    one = convert_to_tensor([1], dtype=dtypes.int32)
    return op("StridedSlice", input=vector, begin=convert_to_tensor([-n], dtype=dtypes.int32),
              end=convert_to_tensor([0], dtype=dtypes.int32), strides=one, end_mask=1)


def with_dependencies(deps, x, name=None):
    """`x` through an Identity that runs after `deps` (x itself when there are none)."""
    deps = [d for d in deps if d is not None]
    if not deps:
        return x
    with name_scope(name, "control_dependency", deps + [x]) as scope:
        with control_dependencies(deps):
            return op("Identity", input=x, name=scope)


def assert_op(condition, message):
    """An Assert op on a boolean tensor, or nothing / ValueError for a Python bool."""
    return assert_op_lib.Assert(condition, [message])


def check(cond, exc_type, message):
    """TF's image `_assert`: raises `exc_type` for a false Python condition, returns
    [Assert op] for a tensor condition and [] otherwise."""
    if is_tensor(cond):
        return [assert_op(cond, message)]
    if not cond:
        raise exc_type(message)
    return []


# -- image shape checks --------------------------------------------------------------------
def image_dimensions(image, ndims):
    """The dimensions of `image` (rank `ndims`): Python ints where static, else scalar
    int32 tensors taken from its run-time shape."""
    static = image.get_shape()
    if static.is_fully_defined():
        return static.as_list()
    static = static.with_rank(ndims).as_list()
    dynamic = unstack(shape(image), ndims)
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def check_at_least_3d(image, require_static=True):
    """TF's _CheckAtLeast3DImage: static checks (ValueError) and, for unknown
    dimensions, Assert ops that check them at run time."""
    try:
        static = image.get_shape()
        image_shape = static.with_rank(3) if static.ndims is None else \
            static.with_rank_at_least(3)
    except ValueError:
        raise ValueError(f"'image' (shape {image.shape}) must be at least "
                         "three-dimensional.") from None
    if require_static and not image_shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    if any(d == 0 for d in image_shape.as_list()[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {image_shape}")
    if image_shape[-3:].is_fully_defined():
        return []
    inner = tail(shape(image), 3)
    positive = reduce("All", op("Less", x=convert_to_tensor(0, dtype=dtypes.int32), y=inner), [0])
    return [assert_op(positive, "inner 3 dims of 'image.shape' must be > 0."),
            assert_op(op("GreaterEqual", x=rank(image), y=3),
                      "'image' must be at least three-dimensional.")]


def assert_at_least_3d(image):
    """`image`, with run-time shape checks attached when its shape is not static."""
    return with_dependencies(check_at_least_3d(image, require_static=False), image)


def check_3d(image, require_static=True):
    """TF's _Check3DImage."""
    try:
        image_shape = image.get_shape().with_rank(3)
    except ValueError:
        raise ValueError(f"'image' (shape {image.shape}) must be three-dimensional.") from None
    if require_static and not image_shape.is_fully_defined():
        raise ValueError(f"'image' (shape {image_shape}) must be fully defined.")
    if any(d == 0 for d in image_shape.as_list()):
        raise ValueError(f"all dims of 'image.shape' must be > 0: {image_shape}")
    if image_shape.is_fully_defined():
        return []
    positive = reduce("All", op("Less", x=convert_to_tensor(0, dtype=dtypes.int32),
                                y=shape(image)), [0])
    return [assert_op(positive, "all dims of 'image.shape' must be > 0.")]


def check_targets(image, target_height, target_width):
    """TF's checks of a 3-D/4-D `image` and of positive target sizes (Assert ops where
    not static). Returns (`image` run after the checks, the list of checks)."""
    checks = check_at_least_3d(image, require_static=False)
    checks += check(greater(target_width, 0), ValueError, "target_width must be > 0.")
    checks += check(greater(target_height, 0), ValueError, "target_height must be > 0.")
    return with_dependencies(checks, image), checks


def as_batch(image):
    """(4-D image, was_batched): a 3-D image gains a leading batch dimension.

    Raises:
      ValueError: for ranks other than 3 and 4.
    """
    ndims = image.get_shape().ndims
    if ndims == 4:
        return image, True
    if ndims == 3 or ndims is None:
        batched = expand_dims(image, 0)
        if ndims is None:
            batched.set_shape([None] * 4)
        return batched, False
    raise ValueError(f"'image' (shape {image.get_shape()}) must have either 3 or 4 "
                     "dimensions.")


def unbatch(image, batched):
    """Undoes `as_batch`: `image` itself if it was batched, else without its batch axis."""
    return image if batched else squeeze(image, [0])
