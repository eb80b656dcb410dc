"""`tf.saturate_cast`: a cast that first clamps into the target dtype's range. It builds
ClipByValue (clip_ops), so it sits above the core `cast`."""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.cast import cast

__all__ = ["saturate_cast"]


def _saturation_limits(src, dst):
    """[lo, hi] in `src`'s type, inside `dst`'s range: a bound `src` cannot represent
    exactly is nudged toward zero, so the cast after the clamp never overflows."""
    np_src = src.as_numpy_dtype
    try:
        promoted = np.promote_types(np_src, dst.as_numpy_dtype)
    except TypeError:  # bfloat16 and friends: compare as Python floats
        promoted = float
    lo = np_src(max(src.min, dst.min))
    if np.array([lo, dst.min], dtype=promoted)[0] < np.array([lo, dst.min], dtype=promoted)[1]:
        lo = np.nextafter(lo, np_src(0), dtype=np_src)
    hi = np_src(min(float(src.max), float(dst.max)))
    if np.array([hi, dst.max], dtype=promoted)[0] > np.array([hi, dst.max], dtype=promoted)[1]:
        hi = np.nextafter(hi, np_src(0), dtype=np_src)
    return lo, hi


def saturate_cast(value, dtype, name=None):
    """Casts `value` to `dtype` after clamping it into `dtype`'s range with a
    ClipByValue op named `clamp`, as TF 2.21 does (`tf.saturate_cast`). A complex value
    cast to a real type loses its imaginary part."""
    # lazy: clip_ops (with nn.norm behind it) stays out of `import trainflow`.
    from trainflow._src.ops.math import clip_ops
    with name_scope(name, "saturate_cast", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes.as_dtype(dtype).base_dtype
        src = value.dtype.base_dtype
        if src == dtypes.bool or dtype == dtypes.bool:
            return cast(value, dtype, name=scope)
        if src.is_complex and dtype.is_complex:
            real_in, real_out = src.real_dtype, dtype.real_dtype
            if real_in.min < real_out.min or real_in.max > real_out.max:
                value = clip_ops.clip_by_value_op(
                    value, convert_to_tensor(complex(real_out.min, real_out.min), dtype=src),
                    convert_to_tensor(complex(real_out.max, real_out.max), dtype=src),
                    name="clamp")
            return cast(value, dtype, name=scope)
        if src.is_complex:
            value = apply_op("Real", input=value, Tout=src.real_dtype).outputs[0]
            src = src.real_dtype
        lo, hi = _saturation_limits(src, dtype.real_dtype)
        value = clip_ops.clip_by_value_op(value, convert_to_tensor(lo, dtype=src),
                                          convert_to_tensor(hi, dtype=src), name="clamp")
        return cast(value, dtype, name=scope)
