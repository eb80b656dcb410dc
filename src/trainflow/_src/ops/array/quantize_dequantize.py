"""QuantizeAndDequantizeV2 / V3 (`tf.quantization.quantize_and_dequantize`): simulated
integer quantization of a float tensor, one scale for the tensor (axis=-1) or one per
channel along `axis`, with TF's range arithmetic (the range is widened on one side so
zero stays exact) and straight-through gradients, as TF registers them; and the
FakeQuant ops (a range given as attrs: ...Args; as scalar tensors: ...Vars; one per
last-axis channel: ...VarsPerChannel) with their gradient ops (TF's nudged range,
float32 throughout)."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op

_FLOATS = "{bfloat16, half, float, double}"


def _invalid(message):
    return errors.InvalidArgumentError(None, None, message)


def _ranges(signed_input, num_bits, narrow_range, lo, hi, dtype):
    """TF's ComputeQuantizationRange in the input's float type: (min, max, scale,
    inverse scale), each an array over channels."""
    if signed_input:
        qmin = -(1 << (num_bits - 1)) + (1 if narrow_range else 0)
        qmax = (1 << (num_bits - 1)) - 1
    else:
        qmin, qmax = 0, (1 << num_bits) - 1
    qmin, qmax = dtype.type(qmin), dtype.type(qmax)
    big = np.finfo(dtype).max
    with np.errstate(divide="ignore", invalid="ignore"):
        from_min = np.where(qmin * lo > 0, qmin / lo, big).astype(dtype)
        from_max = np.where(qmax * hi > 0, qmax / hi, big).astype(dtype)
        use_min = from_min < from_max
        scale = np.where(use_min, from_min, from_max).astype(dtype)
        inverse = np.where(use_min, lo / qmin, hi / qmax).astype(dtype)
    hi = np.where(use_min, qmax * inverse, hi).astype(dtype)
    lo = np.where(use_min, lo, qmin * inverse).astype(dtype)
    return lo, hi, scale, inverse


def _given_range(input_min, input_max, axis, channels, op_type, dtype):
    """The [min, max] per channel a caller gives, checked as TF's kernels check it (V2
    takes only scalars, so no per-channel range; V3 takes one value per channel)."""
    if axis == -1 or op_type == "QuantizeAndDequantizeV2":
        for what, v in (("input_min", input_min), ("input_max", input_max)):
            if np.ndim(v) != 0:
                raise _invalid(f"{what} must be a scalar.")
    if axis != -1:
        if op_type == "QuantizeAndDequantizeV2" or np.ndim(input_min) != 1:
            raise _invalid("Shape must be rank 1 for input_min_tensor when the axis is "
                           "specified")
        for what, v in (("input_min", input_min), ("input_max", input_max)):
            if np.size(v) != channels:
                raise _invalid(f"{what}_tensor has incorrect size, was {np.size(v)} "
                               f"expected {channels} to match dim {axis} of the input")
    lo = np.asarray(input_min, dtype).reshape(-1)
    hi = np.asarray(input_max, dtype).reshape(-1)
    bad = np.nonzero(lo > hi)[0]
    if bad.size:
        i = int(bad[0])
        raise _invalid(f"Invalid range: input_min {lo[i]:g} > input_max {hi[i]:g}")
    return lo, hi


def _quantize(x, input_min, input_max, *, signed_input, num_bits, range_given, round_mode,
              narrow_range, axis, op_type):
    if num_bits <= 0 or num_bits >= (62 if signed_input else 63):
        raise _invalid(f"num_bits is out of range: {num_bits} with signed_input_ "
                       f"{int(bool(signed_input))}")
    if axis < -1:
        raise _invalid(f"Axis must be at least -1. Found {axis}")
    if axis >= x.ndim:
        raise _invalid(f"Axis is out of bounds: {axis} for input of rank {x.ndim}")
    dtype = x.dtype
    shape = x.shape
    channels = 1 if axis == -1 else shape[axis]
    pre = int(np.prod(shape[:axis])) if axis != -1 else 1
    view = x.reshape(pre, channels, -1) if axis != -1 else x.reshape(1, 1, -1)
    if range_given:
        lo, hi = _given_range(input_min, input_max, axis, channels, op_type, dtype)
    elif view.size:
        lo = view.min(axis=(0, 2)).astype(dtype)
        hi = view.max(axis=(0, 2)).astype(dtype)
    else:
        return x.copy()
    lo, hi, scale, inverse = _ranges(signed_input, num_bits, narrow_range, lo, hi, dtype)
    lo, hi = lo.reshape(1, -1, 1), hi.reshape(1, -1, 1)
    scale, inverse = scale.reshape(1, -1, 1), inverse.reshape(1, -1, 1)
    v = np.minimum(np.maximum(view, lo), hi) if range_given else view
    scaled = (v * scale).astype(dtype)
    mode = round_mode.decode() if isinstance(round_mode, bytes) else round_mode
    rounded = np.floor(scaled + dtype.type(0.5)) if mode == "HALF_UP" else np.rint(scaled)
    return (rounded * inverse).astype(dtype).reshape(shape)


def _v2_kernel(input, input_min, input_max, *, signed_input, num_bits, range_given,  # noqa: A002
               round_mode, narrow_range, axis):
    return _quantize(input, input_min, input_max, signed_input=signed_input,
                     num_bits=num_bits, range_given=range_given, round_mode=round_mode,
                     narrow_range=narrow_range, axis=axis, op_type="QuantizeAndDequantizeV2")


def _v3_kernel(input, input_min, input_max, num_bits, *, signed_input, range_given,  # noqa: A002
               narrow_range, axis):
    return _quantize(input, input_min, input_max, signed_input=signed_input,
                     num_bits=int(num_bits), range_given=range_given,
                     round_mode="HALF_TO_EVEN", narrow_range=narrow_range, axis=axis,
                     op_type="QuantizeAndDequantizeV3")


def _same_shape(op):
    return [op.inputs[0].get_shape()]


register_op("QuantizeAndDequantizeV2", inputs=["input: T", "input_min: T", "input_max: T"],
            outputs=["output: T"],
            attrs=["signed_input: bool = true", "num_bits: int = 8",
                   "range_given: bool = false", f"T: {_FLOATS}",
                   "round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'",
                   "narrow_range: bool = false", "axis: int = -1"],
            shape_fn=_same_shape, kernel=_v2_kernel)
register_op("QuantizeAndDequantizeV3",
            inputs=["input: T", "input_min: T", "input_max: T", "num_bits: int32"],
            outputs=["output: T"],
            attrs=["signed_input: bool = true", "range_given: bool = true", f"T: {_FLOATS}",
                   "narrow_range: bool = false", "axis: int = -1"],
            shape_fn=_same_shape, kernel=_v3_kernel)


# Straight through: the incoming gradient passes to the input unchanged (TF's rule).
@RegisterGradient("QuantizeAndDequantizeV2")
def _v2_grad(op, grad):
    return [grad, None, None]


@RegisterGradient("QuantizeAndDequantizeV3")
def _v3_grad(op, grad):
    return [grad, None, None, None]


def quantize_and_dequantize_v2(input, input_min, input_max, signed_input=True,  # noqa: A002
                               num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                               narrow_range=False, axis=-1, name=None):
    """Quantizes `input` to `num_bits` integers over [input_min, input_max] (or its own
    range) and back to floats (the QuantizeAndDequantizeV2 op)."""
    return apply_op("QuantizeAndDequantizeV2", input=input, input_min=input_min,
                    input_max=input_max, signed_input=signed_input, num_bits=num_bits,
                    range_given=range_given, round_mode=round_mode,
                    narrow_range=narrow_range, axis=axis, name=name).outputs[0]


def quantize_and_dequantize(input, input_min, input_max, signed_input=True,  # noqa: A002
                            num_bits=8, range_given=False, round_mode="HALF_TO_EVEN",
                            name=None, narrow_range=False, axis=None):
    """`tf.quantization.quantize_and_dequantize`: the QuantizeAndDequantizeV2 op, a
    negative axis counted from the end (straight-through gradient)."""
    if axis is None:
        axis = -1
    elif axis < 0:
        if input.shape.ndims is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= input.shape.ndims
    return quantize_and_dequantize_v2(input, input_min, input_max, signed_input, num_bits,
                                      range_given, round_mode, narrow_range, axis, name)


# -- FakeQuantWithMinMaxVars ---------------------------------------------------------------
def _nudge(lo, hi, num_bits, narrow_range):
    """TF's Nudge in float32: the range moved so real zero falls on a quantization step.
    Returns (nudged min, nudged max, scale, inverse scale); the inverse is computed
    from the range, not as 1 / scale, as TF does."""
    f32 = np.float32
    lo, hi = f32(lo), f32(hi)
    qmin, qmax = f32(1 if narrow_range else 0), f32((1 << num_bits) - 1)
    scale = f32((hi - lo) / (qmax - qmin))
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse = f32((qmax - qmin) / (hi - lo))
        zero_from_min = f32(qmin - lo / scale)
    if zero_from_min < qmin:
        zero = qmin
    elif zero_from_min > qmax:
        zero = qmax
    else:
        zero = f32(np.floor(np.abs(zero_from_min) + f32(0.5)) * np.sign(zero_from_min))
    return f32((qmin - zero) * scale), f32((qmax - zero) * scale), scale, inverse


def _check_bits(num_bits):
    if num_bits < 2 or num_bits > 16:
        raise _invalid("num_bits must be between 2 and 16, inclusive")


def _fake_quant_kernel(inputs, min, max, *, num_bits, narrow_range,  # noqa: A002
                       divide=True):
    """TF's fake quantization of float32 `inputs` over one range: the step count is
    shifted / scale (Vars) or shifted * inverse scale (Args, PerChannel), rounded
    relative to the zero point, times scale."""
    _check_bits(num_bits)
    inputs = np.asarray(inputs, np.float32)
    if np.float32(min) == 0 and np.float32(max) == 0:
        return np.zeros_like(inputs)  # TF: a [0, 0] range quantizes everything to 0
    lo, hi, scale, inverse = _nudge(min, max, num_bits, narrow_range)
    half = np.float32(0.5)
    quant_zero = np.floor(-lo * inverse + half)
    shifted = np.maximum(np.minimum(inputs, hi), lo) - lo
    steps = shifted / scale if divide else shifted * inverse
    return (np.floor(steps - quant_zero + half) * scale).astype(np.float32)


def _fake_quant_grad_kernel(gradients, inputs, min, max, *, num_bits,  # noqa: A002
                            narrow_range):
    _check_bits(num_bits)
    gradients = np.asarray(gradients, np.float32)
    if np.float32(min) == 0 and np.float32(max) == 0:
        # TF passes everything to the input then.
        return gradients.copy(), np.float32(0), np.float32(0)
    lo, hi, _, _ = _nudge(min, max, num_bits, narrow_range)
    inside = (inputs >= lo) & (inputs <= hi)
    zero = np.float32(0)
    return (np.where(inside, gradients, zero).astype(np.float32),
            np.float32(np.sum(np.where(inputs < lo, gradients, zero), dtype=np.float32)),
            np.float32(np.sum(np.where(inputs > hi, gradients, zero), dtype=np.float32)))


def _fake_quant_grad_shape(op):
    return [op.inputs[1].get_shape(), op.inputs[2].get_shape(), op.inputs[3].get_shape()]


_FQ_ATTRS = ["num_bits: int = 8", "narrow_range: bool = false"]
register_op("FakeQuantWithMinMaxVars", inputs=["inputs: float", "min: float", "max: float"],
            outputs=["outputs: float"], attrs=_FQ_ATTRS, shape_fn=_same_shape,
            kernel=_fake_quant_kernel)
register_op("FakeQuantWithMinMaxVarsGradient",
            inputs=["gradients: float", "inputs: float", "min: float", "max: float"],
            outputs=["backprops_wrt_input: float", "backprop_wrt_min: float",
                     "backprop_wrt_max: float"],
            attrs=_FQ_ATTRS, shape_fn=_fake_quant_grad_shape, kernel=_fake_quant_grad_kernel)
NotDifferentiable("FakeQuantWithMinMaxVarsGradient")


@RegisterGradient("FakeQuantWithMinMaxVars")
def _fake_quant_grad(op, grad):
    outs = apply_op("FakeQuantWithMinMaxVarsGradient", gradients=grad, inputs=op.inputs[0],
                    min=op.inputs[1], max=op.inputs[2], num_bits=op.get_attr("num_bits"),
                    narrow_range=op.get_attr("narrow_range")).outputs
    return list(outs)


def fake_quant_with_min_max_vars(inputs, min, max, num_bits=8, narrow_range=False,  # noqa: A002
                                 name=None):
    """Fake-quantizes float `inputs` to `num_bits` steps over the nudged [min, max]
    (`tf.quantization.fake_quant_with_min_max_vars`)."""
    return apply_op("FakeQuantWithMinMaxVars", inputs=inputs, min=min, max=max,
                    num_bits=num_bits, narrow_range=narrow_range, name=name).outputs[0]


def fake_quant_with_min_max_vars_gradient(gradients, inputs, min, max,  # noqa: A002
                                          num_bits=8, narrow_range=False, name=None):
    """The gradients of FakeQuantWithMinMaxVars: (wrt inputs, wrt min, wrt max)."""
    return tuple(apply_op("FakeQuantWithMinMaxVarsGradient", gradients=gradients,
                          inputs=inputs, min=min, max=max, num_bits=num_bits,
                          narrow_range=narrow_range, name=name).outputs)


# -- FakeQuantWithMinMaxArgs -----------------------------------------------------------------
def _check_args_range(min, max):  # noqa: A002
    if not min < max:
        raise _invalid(f"min has to be smaller than max, was: {min} >= {max}")


def _fake_quant_args_kernel(inputs, *, min, max, num_bits, narrow_range):  # noqa: A002
    _check_args_range(min, max)
    return _fake_quant_kernel(inputs, min, max, num_bits=num_bits, narrow_range=narrow_range,
                              divide=False)


def _fake_quant_args_grad_kernel(gradients, inputs, *, min, max, num_bits,  # noqa: A002
                                 narrow_range):
    _check_args_range(min, max)
    return _fake_quant_grad_kernel(gradients, inputs, min, max, num_bits=num_bits,
                                   narrow_range=narrow_range)[0]


_FQ_ARGS_ATTRS = ["min: float = -6", "max: float = 6"] + _FQ_ATTRS
register_op("FakeQuantWithMinMaxArgs", inputs=["inputs: float"], outputs=["outputs: float"],
            attrs=_FQ_ARGS_ATTRS, shape_fn=_same_shape, kernel=_fake_quant_args_kernel)
register_op("FakeQuantWithMinMaxArgsGradient", inputs=["gradients: float", "inputs: float"],
            outputs=["backprops: float"], attrs=_FQ_ARGS_ATTRS,
            shape_fn=lambda op: [op.inputs[0].get_shape().merge_with(op.inputs[1].get_shape())],
            kernel=_fake_quant_args_grad_kernel)
NotDifferentiable("FakeQuantWithMinMaxArgsGradient")


@RegisterGradient("FakeQuantWithMinMaxArgs")
def _fake_quant_args_grad(op, grad):
    return fake_quant_with_min_max_args_gradient(
        grad, op.inputs[0], min=op.get_attr("min"), max=op.get_attr("max"),
        num_bits=op.get_attr("num_bits"), narrow_range=op.get_attr("narrow_range"))


def fake_quant_with_min_max_args(inputs, min=-6, max=6, num_bits=8,  # noqa: A002
                                 narrow_range=False, name=None):
    """Fake-quantizes float `inputs` to `num_bits` steps over the nudged [min, max]
    given as attrs (`tf.fake_quant_with_min_max_args`)."""
    return apply_op("FakeQuantWithMinMaxArgs", inputs=inputs, min=min, max=max,
                    num_bits=num_bits, narrow_range=narrow_range, name=name).outputs[0]


def fake_quant_with_min_max_args_gradient(gradients, inputs, min=-6, max=6,  # noqa: A002
                                          num_bits=8, narrow_range=False, name=None):
    """The gradient of FakeQuantWithMinMaxArgs: `gradients` where inputs lie in the
    nudged range, 0 elsewhere."""
    return apply_op("FakeQuantWithMinMaxArgsGradient", gradients=gradients, inputs=inputs,
                    min=min, max=max, num_bits=num_bits, narrow_range=narrow_range,
                    name=name).outputs[0]
