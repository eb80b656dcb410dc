"""ConditionalAccumulator and SparseConditionalAccumulator with TF's op types
(ResourceConditionalAccumulator, ResourceAccumulatorApplyGradient ...,
SparseConditionalAccumulator, SparseAccumulatorApplyGradient ...), as TF 2's
compat.v1 builds them."""
__all__ = ["ConditionalAccumulator", "ConditionalAccumulatorBase", "SparseConditionalAccumulator"]

import numpy as np

from trainflow._src.framework import dtypes as dtypes_mod
from trainflow._src.framework import errors
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from trainflow._src.ops.array.cast import cast
from trainflow._src.ops.data_flow.accumulator_impl import Accumulator, SparseAccumulator

_NUMBER = ("dtype: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, "
           "quint8, qint32, bfloat16, uint16, complex128, half, uint32, uint64}")
_ACC_ATTRS = [_NUMBER, "shape: shape", "container: string = ''",
              "shared_name: string = ''", "reduction_type: {'MEAN', 'SUM'} = 'MEAN'"]


def _handle_kernel(cls, wrap):
    def kernel(*, ctx):
        acc = ctx.state.get("acc")
        if acc is not None and ctx.resources.lookup("accumulator", ctx.resource_name) is acc:
            return ctx.state["handle"]
        attrs = ctx.op._attrs
        shape = attrs["shape"]
        dims = None if shape.rank is None else tuple(shape.as_list())
        rt = attrs["reduction_type"]
        rt = rt.decode() if isinstance(rt, bytes) else rt
        make = lambda: cls(ctx.resource_name, attrs["dtype"].as_numpy_dtype, dims, rt)  # noqa
        acc = ctx.resources.lookup_or_create("accumulator", ctx.resource_name, make)
        if acc.spec() != make().spec():
            raise errors.InvalidArgumentError(
                None, None, f"Shared accumulator '{ctx.resource_name}' has another signature")
        ctx.state["acc"] = acc
        ctx.state["handle"] = wrap(acc)
        return ctx.state["handle"]
    return kernel


def _resource_handle(acc):
    h = np.empty((), dtype=object)
    h[()] = acc
    return h


class _RefHandle:
    """The value of a Ref(string) accumulator handle (what ref consumers receive)."""

    __slots__ = ("acc",)

    def __init__(self, acc):
        self.acc = acc

    def get(self):
        return np.asarray(self.acc.name.encode(), dtype=object)


def _acc(handle):
    if isinstance(handle, _RefHandle):
        return handle.acc
    return handle[()] if isinstance(handle, np.ndarray) else handle


def _scalar(op):
    return [TensorShape(())] * len(op._outputs)


def _none(op):
    return []


register_op("ResourceConditionalAccumulator", outputs=["handle: resource"], attrs=_ACC_ATTRS,
            shape_fn=_scalar, kernel=_handle_kernel(Accumulator, _resource_handle),
            stateful=True)
register_op("SparseConditionalAccumulator", outputs=["handle: Ref(string)"], attrs=_ACC_ATTRS,
            shape_fn=lambda op: [TensorShape([2])],
            kernel=_handle_kernel(SparseAccumulator, _RefHandle), stateful=True)


def _apply_kernel(handle, local_step, gradient):
    _acc(handle).apply(int(local_step), gradient)


def _take_kernel(handle, num_required, *, ctx):
    return _acc(handle).take(ctx.run_state, int(num_required))


def _sparse_apply_kernel(handle, local_step, gradient_indices, gradient_values,
                         gradient_shape, *, has_known_shape):
    _acc(handle).apply_sparse(int(local_step), gradient_indices, gradient_values,
                              gradient_shape, has_known_shape)


def _sparse_take_kernel(handle, num_required, *, ctx):
    return _acc(handle).take_sparse(ctx.run_state, int(num_required))


def _num_kernel(handle):
    return np.int32(_acc(handle).num_accumulated())


def _set_step_kernel(handle, new_global_step):
    _acc(handle).set_global_step(int(new_global_step))


def _take_shape(op):
    acc_op = op._inputs[0].op
    return [acc_op._attrs.get("shape", unknown_shape())]


for _prefix, _h in (("Resource", "handle: resource"), ("", "handle: Ref(string)")):
    register_op(f"{_prefix}AccumulatorNumAccumulated", inputs=[_h],
                outputs=["num_accumulated: int32"], shape_fn=_scalar, kernel=_num_kernel,
                stateful=True)
    register_op(f"{_prefix}AccumulatorSetGlobalStep", inputs=[_h, "new_global_step: int64"],
                shape_fn=_none, kernel=_set_step_kernel, stateful=True)
register_op("ResourceAccumulatorApplyGradient",
            inputs=["handle: resource", "local_step: int64", "gradient: dtype"],
            attrs=[_NUMBER], shape_fn=_none, kernel=_apply_kernel, stateful=True)
register_op("ResourceAccumulatorTakeGradient",
            inputs=["handle: resource", "num_required: int32"], outputs=["average: dtype"],
            attrs=[_NUMBER], shape_fn=_take_shape, kernel=_take_kernel,
            stateful=True, blocking=True, host_only=True)
register_op("SparseAccumulatorApplyGradient",
            inputs=["handle: Ref(string)", "local_step: int64", "gradient_indices: int64",
                    "gradient_values: dtype", "gradient_shape: int64"],
            attrs=[_NUMBER, "has_known_shape: bool"], shape_fn=_none,
            kernel=_sparse_apply_kernel, stateful=True)
register_op("SparseAccumulatorTakeGradient",
            inputs=["handle: Ref(string)", "num_required: int32"],
            outputs=["indices: int64", "values: dtype", "shape: int64"],
            attrs=[_NUMBER],
            shape_fn=lambda op: [TensorShape([None]), unknown_shape(), TensorShape([None])],
            kernel=_sparse_take_kernel, stateful=True, blocking=True, host_only=True)
for _t in ("ResourceConditionalAccumulator", "SparseConditionalAccumulator",
           "ResourceAccumulatorApplyGradient", "ResourceAccumulatorTakeGradient",
           "SparseAccumulatorApplyGradient", "SparseAccumulatorTakeGradient",
           "AccumulatorNumAccumulated", "ResourceAccumulatorNumAccumulated",
           "AccumulatorSetGlobalStep", "ResourceAccumulatorSetGlobalStep"):
    NotDifferentiable(_t)


class ConditionalAccumulatorBase:
    """An accumulator of gradients: the methods its dense and sparse kinds share, over
    `accumulator_ref` (a resource handle or a TF1 string ref)."""

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = dtype
        self._shape = as_shape(shape) if shape is not None else unknown_shape()
        self._accumulator_ref = accumulator_ref
        self._name = accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self):
        return self._accumulator_ref

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    def _op(self, kind):
        resource = self._accumulator_ref.dtype.base_dtype == dtypes_mod.resource
        return ("Resource" if resource else "") + kind

    def num_accumulated(self, name=None):
        """An int32 tensor: how many gradients are aggregated now."""
        if name is None:
            name = f"{self._name}_NumAccumulated"
        return apply_op(self._op("AccumulatorNumAccumulated"), handle=self._accumulator_ref,
                        name=name).outputs[0]

    def set_global_step(self, new_global_step, name=None):
        """Sets the step below which applied gradients count as stale."""
        return apply_op(self._op("AccumulatorSetGlobalStep"), handle=self._accumulator_ref,
                        new_global_step=cast(convert_to_tensor(new_global_step),
                                             dtypes_mod.int64),
                        name=name or self._op("AccumulatorSetGlobalStep"))


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Aggregates dense gradients; `take_grad(n)` waits for `n` and returns their mean."""

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator",
                 reduction_type="MEAN"):
        shape = TensorShape(None) if shape is None else as_shape(shape)
        ref = apply_op("ResourceConditionalAccumulator", dtype=dtype, shape=shape,
                       shared_name=shared_name or "", name=name,
                       reduction_type=reduction_type).outputs[0]
        super().__init__(dtypes_mod.as_dtype(dtype), shape, ref)

    def apply_grad(self, grad, local_step=0, name=None):
        """Adds `grad` to the accumulator (dropped if `local_step` is stale)."""
        grad = convert_to_tensor(grad, self._dtype)
        grad.get_shape().assert_is_compatible_with(self._shape)
        local_step = cast(convert_to_tensor(local_step), dtypes_mod.int64)
        return apply_op("ResourceAccumulatorApplyGradient", handle=self._accumulator_ref,
                        local_step=local_step, gradient=grad,
                        name=name or "ResourceAccumulatorApplyGradient")

    def take_grad(self, num_required, name=None):
        """The average of at least `num_required` gradients; resets the accumulator and
        advances its global step."""
        out = apply_op("ResourceAccumulatorTakeGradient", handle=self._accumulator_ref,
                       num_required=num_required, dtype=self._dtype,
                       name=name or "ResourceAccumulatorTakeGradient").outputs[0]
        out.set_shape(self._shape)
        return out


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """Aggregates sparse (IndexedSlices) gradients row by row."""

    def __init__(self, dtype, shape=None, shared_name=None,
                 name="sparse_conditional_accumulator", reduction_type="MEAN"):
        shape = TensorShape(None) if shape is None else as_shape(shape)
        ref = apply_op("SparseConditionalAccumulator", dtype=dtype, shape=shape,
                       shared_name=shared_name or "", name=name,
                       reduction_type=reduction_type).outputs[0]
        super().__init__(dtypes_mod.as_dtype(dtype), shape, ref)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """Applies an IndexedSlices gradient."""
        return self.apply_grad(grad.indices, grad.values, grad.dense_shape, local_step,
                               name=name)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0,
                   name=None):
        """Applies a sparse gradient given as indices, values and (optional) shape."""
        local_step = cast(convert_to_tensor(local_step), dtypes_mod.int64)
        values = convert_to_tensor(grad_values, self._dtype)
        has_known = grad_shape is not None
        shape = grad_shape if has_known else []
        indices = cast(convert_to_tensor(grad_indices), dtypes_mod.int64)
        shape = cast(convert_to_tensor(shape, None if has_known else dtypes_mod.int64),
                     dtypes_mod.int64)
        return apply_op("SparseAccumulatorApplyGradient", handle=self._accumulator_ref,
                        local_step=local_step, gradient_indices=indices,
                        gradient_values=values, gradient_shape=shape,
                        has_known_shape=has_known,
                        name=name or "SparseAccumulatorApplyGradient")

    def take_grad(self, num_required, name=None):
        """(indices, values, shape) of the averaged gradient."""
        op = apply_op("SparseAccumulatorTakeGradient", handle=self._accumulator_ref,
                      num_required=num_required, dtype=self._dtype,
                      name=name or "SparseAccumulatorTakeGradient")
        return tuple(op.outputs)

    def take_indexed_slices_grad(self, num_required, name=None):
        """The averaged gradient as IndexedSlices."""
        indices, values, shape = self.take_grad(num_required, name=name)
        return IndexedSlices(indices=indices, values=values, dense_shape=shape)
