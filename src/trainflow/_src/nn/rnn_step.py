"""What the RNN drivers share: the batch-time transpose, the batch size and state dtype
of the inputs, zero outputs, and one step with `sequence_length` masking (past a
sequence's length its output is zero and its state is copied through)."""
from trainflow._src.framework import dtypes, nest
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.nn.rnn_cell_base import concat_shape
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.data_flow.tensor_array import TensorArray
from trainflow._src.ops.math import math_ops


def transpose_batch_time(x):
    """Swaps the first two axes of `x` (rank >= 2; lower ranks are returned as is)."""
    static = x.shape
    if static.ndims is not None and static.ndims < 2:
        return x
    rank = array_ops.rank(x)
    perm = array_ops.concat(([1, 0], math_ops.range(2, rank)), axis=0)
    out = array_ops.transpose(x, perm)
    if static.ndims is not None:
        dims = static.as_list()
        out.set_shape([dims[1], dims[0]] + dims[2:])
    return out


def best_effort_batch_size(flat_input):
    """The batch size (axis 1 of time-major inputs): static where known, else a tensor.

    Raises:
      ValueError: for an input of rank below 2.
    """
    for input_ in flat_input:
        shape = input_.shape
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(f"Expected input tensor {input_} to have rank at least 2")
        batch_size = shape.as_list()[1]
        if batch_size is not None:
            return batch_size
    return array_ops.shape(flat_input[0])[1]


def infer_state_dtype(explicit_dtype, state):
    """`explicit_dtype`, else the common dtype of the state's tensors.

    Raises:
      ValueError: if the state mixes dtypes (and no dtype is given).
    """
    if explicit_dtype is not None:
        return dtypes.as_dtype(explicit_dtype)
    inferred = [e.dtype for e in nest.flatten(state)]
    if not inferred:
        raise ValueError(f"Unable to infer dtype from empty state: {state}")
    if not all(d == inferred[0] for d in inferred):
        raise ValueError(f"State has tensors of different inferred_dtypes. Unable to infer "
                         f"a single representative dtype. Dtypes received: {inferred}")
    return inferred[0]


def zero_output(output_size, batch_size, dtype):
    """Zeros [batch_size] + s for each size s of the (nested) `output_size`."""
    def zeros(size):
        out = array_ops.zeros(concat_shape(batch_size, size), dtype=dtype)
        out.set_shape(concat_shape(batch_size, size, static=True))
        return out
    return nest.pack_sequence_as(output_size,
                                 [zeros(s) for s in nest.flatten(output_size)])


def rnn_step(time, sequence_length, zero_out, state, call_cell):
    """One step for a batch of sequences of `sequence_length`: runs the cell, then where
    `time >= sequence_length` puts zeros in the output and the old state in the new one.

    Returns:
      (output, new_state), shaped as `zero_out` and `state`.
    """
    flat_state = nest.flatten(state)
    flat_zero = nest.flatten(zero_out)
    copy_cond = time >= sequence_length

    def copy_one_through(old, new):
        if isinstance(old, TensorArray) or new.shape.ndims == 0:
            return new
        return array_ops.where(copy_cond, old, new)

    new_output, new_state = call_cell()
    nest.assert_same_structure(zero_out, new_output)
    nest.assert_same_structure(state, new_state)
    final_output = [copy_one_through(z, n)
                    for z, n in zip(flat_zero, nest.flatten(new_output))]
    final_state = [copy_one_through(s, n) for s, n in zip(flat_state, nest.flatten(new_state))]
    for output, zero in zip(final_output, flat_zero):
        output.set_shape(zero.shape)
    for sub, old in zip(final_state, flat_state):
        if not isinstance(sub, TensorArray):
            sub.set_shape(old.shape)
    return (nest.pack_sequence_as(zero_out, final_output),
            nest.pack_sequence_as(state, final_state))


def initial_state(cell, initial, batch_size, dtype, message):
    """`initial`, else the cell's zero state for `batch_size` and `dtype`.

    Raises:
      ValueError: (`message`) if neither an initial state nor a dtype is given.
    """
    if initial is not None:
        return initial
    if not dtype:
        raise ValueError(message)
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def static_shape(prefix, size):
    """The TensorShape prefix + size."""
    return TensorShape(prefix).concatenate(concat_shape(0, size, static=True)[1:])
