"""FakeQuantWithMinMaxVarsPerChannel and its gradient op
(`tf.fake_quant_with_min_max_vars_per_channel`): FakeQuantWithMinMaxVars with one
[min, max] range per channel of the last axis."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.quantize_dequantize import (
    _fake_quant_grad_kernel, _fake_quant_kernel)

__all__ = ["fake_quant_with_min_max_vars_per_channel",
           "fake_quant_with_min_max_vars_per_channel_gradient"]


def _channels(inputs, mins, maxs):
    depth = inputs.shape[-1]
    for label, values in (("min", mins), ("max", maxs)):
        if values.shape != (depth,):
            raise errors.InvalidArgumentError(
                None, None, f"{label} has incorrect size, expected {depth} was "
                            f"{values.size}")
    return depth


def _per_channel_kernel(inputs, min, max, *, num_bits, narrow_range):  # noqa: A002
    inputs = np.asarray(inputs, np.float32)
    mins, maxs = np.asarray(min, np.float32), np.asarray(max, np.float32)
    out = np.empty_like(inputs)
    for c in range(_channels(inputs, mins, maxs)):
        out[..., c] = _fake_quant_kernel(inputs[..., c], mins[c], maxs[c],
                                         num_bits=num_bits, narrow_range=narrow_range,
                                         divide=False)
    return out


def _per_channel_grad_kernel(gradients, inputs, min, max, *, num_bits,  # noqa: A002
                             narrow_range):
    gradients = np.asarray(gradients, np.float32)
    inputs = np.asarray(inputs, np.float32)
    mins, maxs = np.asarray(min, np.float32), np.asarray(max, np.float32)
    depth = _channels(inputs, mins, maxs)
    wrt_input = np.empty_like(gradients)
    wrt_min = np.empty(depth, np.float32)
    wrt_max = np.empty(depth, np.float32)
    for c in range(depth):
        wrt_input[..., c], wrt_min[c], wrt_max[c] = _fake_quant_grad_kernel(
            gradients[..., c], inputs[..., c], mins[c], maxs[c], num_bits=num_bits,
            narrow_range=narrow_range)
    return wrt_input, wrt_min, wrt_max


def _checked(op, first):
    """(inputs shape of rank 1-4, [depth]) after checking min and max against it."""
    shape = op.inputs[first].get_shape().with_rank_at_least(1).with_rank_at_most(4)
    depth = shape.dims[-1] if shape.ndims else None
    channel = TensorShape([depth])
    for t in op.inputs[first + 1:first + 3]:
        channel = channel.merge_with(t.get_shape().with_rank(1))
    if first:
        shape = shape.merge_with(op.inputs[0].get_shape())
    return shape, channel


def _per_channel_shape(op):
    return [_checked(op, 0)[0]]


def _per_channel_grad_shape(op):
    shape, channel = _checked(op, 1)
    return [shape, channel, channel]


_ATTRS = ["num_bits: int = 8", "narrow_range: bool = false"]
register_op("FakeQuantWithMinMaxVarsPerChannel",
            inputs=["inputs: float", "min: float", "max: float"], outputs=["outputs: float"],
            attrs=_ATTRS, shape_fn=_per_channel_shape, kernel=_per_channel_kernel)
register_op("FakeQuantWithMinMaxVarsPerChannelGradient",
            inputs=["gradients: float", "inputs: float", "min: float", "max: float"],
            outputs=["backprops_wrt_input: float", "backprop_wrt_min: float",
                     "backprop_wrt_max: float"],
            attrs=_ATTRS, shape_fn=_per_channel_grad_shape, kernel=_per_channel_grad_kernel)
NotDifferentiable("FakeQuantWithMinMaxVarsPerChannelGradient")


@RegisterGradient("FakeQuantWithMinMaxVarsPerChannel")
def _per_channel_grad(op, grad):
    return list(fake_quant_with_min_max_vars_per_channel_gradient(
        grad, op.inputs[0], op.inputs[1], op.inputs[2], num_bits=op.get_attr("num_bits"),
        narrow_range=op.get_attr("narrow_range")))


def fake_quant_with_min_max_vars_per_channel(inputs, min, max, num_bits=8,  # noqa: A002
                                             narrow_range=False, name=None):
    """Fake-quantizes float `inputs` [..., d] with one nudged [min[i], max[i]] range per
    channel i of the last axis (min and max: float [d])."""
    return apply_op("FakeQuantWithMinMaxVarsPerChannel", inputs=inputs, min=min, max=max,
                    num_bits=num_bits, narrow_range=narrow_range, name=name).outputs[0]


def fake_quant_with_min_max_vars_per_channel_gradient(gradients, inputs, min, max,  # noqa
                                                      num_bits=8, narrow_range=False,
                                                      name=None):
    """The gradients of FakeQuantWithMinMaxVarsPerChannel: (wrt inputs, wrt min [d],
    wrt max [d])."""
    return tuple(apply_op("FakeQuantWithMinMaxVarsPerChannelGradient", gradients=gradients,
                          inputs=inputs, min=min, max=max, num_bits=num_bits,
                          narrow_range=narrow_range, name=name).outputs)
