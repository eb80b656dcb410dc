"""`tf.TensorArray`: a list of same-typed tensors that graph code writes and reads by
index, built on TensorList ops as TensorFlow 2's compat.v1 TensorArray is.

A TensorArray is a Python object around one `variant` tensor, its `flow`; every
write returns a new TensorArray with a new flow, so it can be a `tf.while_loop`
variable (the loop carries the flow). Reads never clear elements (TF2's list
semantics, whatever `clear_after_read` says); writing past the end needs
`dynamic_size=True`.
"""
import numpy as np

from trainflow._src.framework import dtypes
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape, unknown_shape
from trainflow._src.framework.type_spec import TensorSpec, TypeSpec
from trainflow._src.ops.data_flow import tensor_list  # noqa: F401 - registers the ops
from trainflow._src.ops.data_flow import tensor_list_grad  # noqa: F401 - their gradients
from trainflow._src.ops.control_flow.grouping import no_op

__all__ = ["TensorArray"]


def _shape_input(shape):
    """The element_shape input for a TensorShape: -1 for unknown rank, -1 per unknown dim."""
    if shape.rank is None:
        return convert_to_tensor(-1, dtype=dtypes.int32)
    return convert_to_tensor(np.array([-1 if d is None else d for d in shape.as_list()],
                                      np.int32))


class TensorArray:
    """A list of tensors of one dtype, written and read by index (`tf.TensorArray`).

    Args:
      dtype: the element dtype.
      size: the initial number of elements (int or scalar int32 tensor).
      dynamic_size: allow writes past the end (the array grows).
      clear_after_read: accepted for compatibility; reads never clear.
      tensor_array_name: accepted for compatibility.
      handle, flow: build around an existing list `flow` (`handle` is unused).
      infer_shape: learn the element shape from the first write.
      element_shape: the elements' (partial) shape.
      colocate_with_first_write_call: accepted for compatibility.
      name: the name scope.

    Raises:
      ValueError: without `size` or `flow`.
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        del clear_after_read, tensor_array_name, handle, colocate_with_first_write_call
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape = [unknown_shape() if element_shape is None
                               else TensorShape(element_shape)]
        if flow is not None:
            self._flow = flow
            self._size = None
            return
        if size is None:
            raise ValueError("Size must be provided if handle is not provided")
        self._size = size
        with get_default_graph().name_scope(name or "TensorArrayV2") as scope:
            self._flow = apply_op("TensorListReserve",
                                  element_shape=_shape_input(self._element_shape[0]),
                                  num_elements=size, element_dtype=self._dtype,
                                  name=scope).outputs[0]

    # -- properties --------------------------------------------------------------------
    @property
    def flow(self):
        """The `variant` tensor holding the list."""
        return self._flow

    @property
    def handle(self):
        """The list tensor (TF2's TensorArray has no separate handle)."""
        return self._flow

    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self):
        """The (partially known) TensorShape of the elements."""
        return self._element_shape[0]

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def _type_spec(self):
        return TensorArraySpec(self.element_shape, self._dtype, self._dynamic_size,
                               self._infer_shape)

    def _with_flow(self, flow):
        ta = TensorArray.__new__(TensorArray)
        ta._dtype = self._dtype
        ta._dynamic_size = self._dynamic_size
        ta._infer_shape = self._infer_shape
        ta._element_shape = self._element_shape  # shared, as TF shares it across writes
        ta._flow = flow
        ta._size = self._size
        return ta

    def _merge_element_shape(self, shape):
        if not self._infer_shape:
            return
        if not shape.is_compatible_with(self._element_shape[0]):
            raise ValueError(f"Inconsistent shapes: saw {shape} but expected "
                             f"{self._element_shape[0]} (and infer_shape=True)")
        self._element_shape[0] = self._element_shape[0].merge_with(shape)

    def _value(self, value, what):
        value = convert_to_tensor(value, dtype=self._dtype, name="value")
        if value.dtype.base_dtype != self._dtype:
            raise TypeError(f"TensorArray dtype is {self._dtype.name} but {what} has dtype "
                            f"{value.dtype.base_dtype.name}")
        return value

    # -- reading -------------------------------------------------------------------------
    def read(self, index, name=None):
        """The element at `index` (`TensorListGetItem`)."""
        with get_default_graph().name_scope(name or "TensorArrayV2Read"):
            value = apply_op("TensorListGetItem", input_handle=self._flow, index=index,
                             element_shape=_shape_input(self.element_shape),
                             element_dtype=self._dtype).outputs[0]
        if self.element_shape.rank is not None:
            value.set_shape(self.element_shape)
        return value

    def stack(self, name=None):
        """All elements stacked along a new first dimension (`TensorListStack`)."""
        with get_default_graph().name_scope(name or "TensorArrayV2Stack"):
            return apply_op("TensorListStack", input_handle=self._flow,
                            element_shape=_shape_input(self.element_shape),
                            element_dtype=self._dtype).outputs[0]

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked (`TensorListGather`)."""
        return apply_op("TensorListGather", input_handle=self._flow, indices=indices,
                        element_shape=_shape_input(self.element_shape),
                        element_dtype=self._dtype, name=name).outputs[0]

    def concat(self, name=None):
        """All elements concatenated along their first dimension (`TensorListConcatV2`)."""
        shape = self.element_shape
        tail = unknown_shape() if shape.rank is None else TensorShape([None] + shape[1:].as_list())
        with get_default_graph().name_scope(name or "TensorArrayV2Concat"):
            return apply_op("TensorListConcatV2", input_handle=self._flow,
                            element_shape=_shape_input(tail),
                            leading_dims=np.zeros((0,), np.int64),
                            element_dtype=self._dtype).outputs[0]

    def size(self, name=None):
        """The number of elements (a scalar int32 tensor)."""
        if not self._dynamic_size and self._size is not None:
            return convert_to_tensor(self._size, dtype=dtypes.int32, name=name)
        return apply_op("TensorListLength", input_handle=self._flow, name=name).outputs[0]

    # -- writing -------------------------------------------------------------------------
    def write(self, index, value, name=None):
        """A TensorArray whose element `index` is `value` (`TensorListSetItem`)."""
        with get_default_graph().name_scope(name or "TensorArrayV2Write"):
            value = self._value(value, "the written value")
            self._merge_element_shape(value.shape)
            flow = apply_op("TensorListSetItem", input_handle=self._flow, index=index,
                            item=value, element_dtype=self._dtype,
                            resize_if_index_out_of_bounds=self._dynamic_size).outputs[0]
        return self._with_flow(flow)

    def unstack(self, value, name=None):
        """A TensorArray holding the rows of `value` (`TensorListFromTensor`)."""
        with get_default_graph().name_scope(name or "TensorArrayUnstack"):
            value = self._value(value, "the unstacked value")
            self._merge_element_shape(value.shape[1:] if value.shape.rank else unknown_shape())
            flow = apply_op("TensorListFromTensor", tensor=value,
                            element_shape=_shape_input(value.shape[1:] if value.shape.rank
                                                       else unknown_shape()),
                            element_dtype=self._dtype).outputs[0]
        return self._with_flow(flow)

    def scatter(self, indices, value, name=None):
        """A TensorArray with value's rows written at `indices`
        (`TensorListScatterIntoExistingList`)."""
        with get_default_graph().name_scope(name or "TensorArrayScatter"):
            value = self._value(value, "the scattered value")
            if value.shape.rank:
                self._merge_element_shape(value.shape[1:])
            flow = apply_op("TensorListScatterIntoExistingList", input_handle=self._flow,
                            tensor=value, indices=indices,
                            element_dtype=self._dtype).outputs[0]
        return self._with_flow(flow)

    def split(self, value, lengths, name=None):
        """A TensorArray of the pieces of `value` cut along dim 0 at `lengths`
        (`TensorListSplit`)."""
        with get_default_graph().name_scope(name or "TensorArraySplit"):
            value = self._value(value, "the split value")
            lengths = convert_to_tensor(lengths, dtype=dtypes.int64, name="lengths")
            shape = value.shape
            elem = unknown_shape() if shape.rank is None else \
                TensorShape([None] + shape[1:].as_list())
            self._merge_element_shape(elem)
            flow = apply_op("TensorListSplit", tensor=value, element_shape=_shape_input(elem),
                            lengths=lengths, element_dtype=self._dtype).outputs[0]
        return self._with_flow(flow)

    def identity(self):
        """A TensorArray with an Identity of the flow."""
        return self._with_flow(apply_op("Identity", input=self._flow).outputs[0])

    def close(self, name=None):
        """A no-op, as closing a list needs nothing."""
        return no_op(name=name or "TensorArrayV2Close")


def is_tensor_array(value):
    return isinstance(value, TensorArray)



class TensorArraySpec(TypeSpec):
    """The type of a TensorArray: element shape and dtype, whether it grows, whether
    writes refine the element shape."""

    __slots__ = ("_element_shape", "_dtype", "_dynamic_size", "_infer_shape")

    def __init__(self, element_shape=None, dtype=dtypes.float32, dynamic_size=False,
                 infer_shape=True):
        self._element_shape = TensorShape(element_shape) if element_shape is not None \
            else unknown_shape()
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    @staticmethod
    def from_value(value):
        """The spec of a TensorArray.

        Raises:
          ValueError: for anything else.
        """
        if not isinstance(value, TensorArray):
            raise ValueError(f"Expected value to be a TensorArray, but got: {type(value)}")
        return value._type_spec

    value_type = property(lambda self: TensorArray, doc="TensorArray.")

    def _serialize(self):
        return (self._element_shape, self._dtype, self._dynamic_size, self._infer_shape)

    @property
    def _component_specs(self):
        return [TensorSpec([None], dtypes.variant)]

    def _to_components(self, value):
        return [value.flow]

    def _from_components(self, components):
        return TensorArray(self._dtype, flow=components[0], dynamic_size=self._dynamic_size,
                           infer_shape=self._infer_shape, element_shape=self._element_shape)
