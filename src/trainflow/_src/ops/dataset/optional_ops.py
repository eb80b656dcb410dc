"""Optionals (a value that may be missing), TF's variant ops: OptionalFromValue,
OptionalNone, OptionalHasValue, OptionalGetValue, and IteratorGetNextAsOptional (the next
element, or an empty optional at the end instead of OutOfRangeError)."""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, RegisterGradient, register_op
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.ops.array import create
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_op import scalar_shape
from trainflow._src.ops.dataset.iterator_ops import resource_of

_ELEMENT = ["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"]


class OptionalValue:
    """An optional's value: a list of component arrays, or None when it has none."""

    __slots__ = ("components",)

    def __init__(self, components):
        self.components = None if components is None else list(components)

    def __repr__(self):
        return "Optional(none)" if self.components is None else \
            f"Optional({len(self.components)} components)"


def optional_of(value, op=None):
    """The OptionalValue a variant input holds."""
    value = value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value
    if not isinstance(value, OptionalValue):
        raise errors.InvalidArgumentError(
            None, op, f"Input tensor must contain an Optional, got {type(value).__name__}")
    return value


def _from_value(components, *, Toutput_types):  # noqa: N803 - TF's attr name
    del Toutput_types
    return dv.variant(OptionalValue([np.asarray(c) for c in components]))


def _get_value(optional, *, output_types, output_shapes, ctx):
    value = optional_of(optional, ctx.op)
    if value.components is None:
        raise errors.InvalidArgumentError(None, ctx.op, "The optional does not have a value.")
    if len(value.components) != len(output_types):
        raise errors.InvalidArgumentError(
            None, ctx.op, f"The optional has {len(value.components)} components; "
                          f"{len(output_types)} were expected")
    out = value.components
    return out[0] if len(out) == 1 else tuple(out)


def _get_next_as_optional(iterator, *, output_types, output_shapes, ctx):
    try:
        element = resource_of(iterator, ctx.op).get_next(ctx.run_state, ctx.op)
    except errors.OutOfRangeError:
        return dv.variant(OptionalValue(None))
    return dv.variant(OptionalValue(element))


def _value_shapes(op):
    shapes = op._attrs.get("output_shapes") or []
    return list(shapes) if shapes else [unknown_shape()] * len(op._outputs)


register_op("OptionalFromValue", inputs=["components: Toutput_types"],
            outputs=["optional: variant"], attrs=["Toutput_types: list(type) >= 1"],
            shape_fn=scalar_shape, kernel=_from_value, host_only=True)
register_op("OptionalNone", outputs=["optional: variant"], shape_fn=scalar_shape,
            kernel=lambda: dv.variant(OptionalValue(None)), host_only=True)
register_op("OptionalHasValue", inputs=["optional: variant"], outputs=["has_value: bool"],
            shape_fn=lambda op: [TensorShape([])],
            kernel=lambda optional, *, ctx: np.bool_(
                optional_of(optional, ctx.op).components is not None), host_only=True)
register_op("OptionalGetValue", inputs=["optional: variant"],
            outputs=["components: output_types"], attrs=_ELEMENT, shape_fn=_value_shapes,
            kernel=_get_value, host_only=True)
register_op("IteratorGetNextAsOptional", inputs=["iterator: resource"],
            outputs=["optional: variant"], attrs=_ELEMENT, shape_fn=scalar_shape,
            kernel=_get_next_as_optional, stateful=True, blocking=True, host_only=True)
for _name in ("OptionalNone", "OptionalHasValue", "IteratorGetNextAsOptional"):
    NotDifferentiable(_name)


@RegisterGradient("OptionalFromValue")
def _from_value_grad(op, grad):
    """The optional of gradients unpacked into one gradient per component."""
    values = op.inputs
    out = apply_op("OptionalGetValue", optional=grad,
                   output_types=[v.dtype.base_dtype for v in values],
                   output_shapes=[v.shape for v in values])
    return list(out.outputs)


@RegisterGradient("OptionalGetValue")
def _get_value_grad(op, *grads):
    """The components' gradients packed into an optional (zeros where none flows)."""
    filled = [g if g is not None else create.zeros_like(t) for g, t in zip(grads, op.outputs)]
    return [apply_op("OptionalFromValue", components=filled).outputs[0]]
