"""`tf.nn.raw_rnn`: a while loop over a cell whose inputs, finishing and emitted values
come from a user `loop_fn` (TF 1.15's driver for decoders that feed back their output).

`loop_fn(time, cell_output, cell_state, loop_state)` returns `(elements_finished,
next_input, next_cell_state, emit_output, next_loop_state)`; at time 0 (cell_output None)
it gives the initial state and, optionally, the structure of what is emitted. Finished
batch entries emit zeros and keep their state.
"""
from trainflow._src.framework import dtypes, nest
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import Dimension, TensorShape
from trainflow._src.nn.rnn_cell_base import assert_like_rnncell, concat_shape
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow.control_flow_ops import while_loop
from trainflow._src.ops.data_flow.tensor_array import TensorArray
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import variable_scope as vs

__all__ = ["raw_rnn"]


def _batch_size(flat_input):
    static = Dimension(None)
    for input_ in flat_input:
        shape = input_.shape
        static = static.merge_with(shape[0] if shape.ndims else Dimension(None))
    const = static.value
    return const, (const if const is not None else array_ops.shape(flat_input[0])[0])


def _emit_spec(emit_structure, cell, flat_state):
    """(emit structure, flat sizes, flat dtypes) of what each step emits."""
    if emit_structure is not None:
        flat = nest.flatten(emit_structure)
        sizes = [e.shape if e.shape.is_fully_defined() else array_ops.shape(e) for e in flat]
        return emit_structure, sizes, [e.dtype for e in flat]
    sizes = nest.flatten(cell.output_size)
    return cell.output_size, sizes, [flat_state[0].dtype] * len(sizes)


def _static(size):
    return TensorShape(size) if not hasattr(size, "op") else TensorShape(None)


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """Runs `cell` in a while loop driven by `loop_fn` (`tf.nn.raw_rnn`).

    Args:
      cell: an RNNCell.
      loop_fn: fn(time, cell_output, cell_state, loop_state) -> (elements_finished,
        next_input, next_cell_state, emit_output, next_loop_state).
      parallel_iterations, swap_memory: the while loop's.
      scope: the variable scope (default "rnn").

    Returns:
      (emit_ta, final_state, final_loop_state): TensorArrays (structured as the emit
      structure) of the emitted values per step, the final cell state, and the final
      loop state (None when loop_fn gave none).

    Raises:
      TypeError: if `cell` is not an RNNCell or `loop_fn` not callable.
    """
    assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError("loop_fn must be a callable")
    parallel_iterations = parallel_iterations or 32
    with vs.variable_scope(scope or "rnn"):
        time = constant(0, dtype=dtypes.int32)
        (elements_finished, next_input, initial_state, emit_structure,
         init_loop_state) = loop_fn(time, None, None, None)  # positional, as TF calls it
        flat_input = nest.flatten(next_input)
        loop_state = init_loop_state if init_loop_state is not None \
            else constant(0, dtype=dtypes.int32)
        const_batch, batch_size = _batch_size(flat_input)
        nest.assert_same_structure(initial_state, cell.state_size)
        flat_state = [convert_to_tensor(s) for s in nest.flatten(initial_state)]
        state = nest.pack_sequence_as(initial_state, flat_state)
        emit_structure, sizes, emit_dtypes = _emit_spec(emit_structure, cell, flat_state)
        emit_ta = nest.pack_sequence_as(emit_structure, [
            TensorArray(dtype=d, dynamic_size=True, size=0, name=f"rnn_output_{i}",
                        element_shape=TensorShape([const_batch]).concatenate(_static(s)))
            for i, (d, s) in enumerate(zip(emit_dtypes, sizes))])
        zero_emit = nest.pack_sequence_as(emit_structure, [
            array_ops.zeros(concat_shape(batch_size, s), d) for s, d in zip(sizes, emit_dtypes)])

        def condition(unused_time, elements_finished, *_):
            return math_ops.logical_not(math_ops.reduce_all(elements_finished))

        def body(time, elements_finished, current_input, emit_ta, state, loop_state):
            next_output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            nest.assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            next_finished, next_input, next_state, emit_output, next_loop_state = loop_fn(
                next_time, next_output, cell_state, loop_state)
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(current_input, next_input)
            nest.assert_same_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state

            def copy_some_through(current, candidate):
                def copy(cur, cand):
                    if isinstance(cur, TensorArray) or cur.shape.ndims == 0:
                        return cand
                    return array_ops.where(elements_finished, cur, cand)
                return nest.map_structure(copy, current, candidate)

            emit_output = copy_some_through(zero_emit, emit_output)
            next_state = copy_some_through(state, next_state)
            emit_ta = nest.map_structure(lambda ta, emit: ta.write(time, emit), emit_ta,
                                         emit_output)
            elements_finished = math_ops.logical_or(elements_finished, next_finished)
            return next_time, elements_finished, next_input, emit_ta, next_state, loop_state

        returned = while_loop(condition, body,
                              loop_vars=[time, elements_finished, next_input, emit_ta, state,
                                         loop_state],
                              parallel_iterations=parallel_iterations,
                              swap_memory=swap_memory)
        emit_ta, final_state, final_loop_state = returned[-3:]
        return emit_ta, final_state, None if init_loop_state is None else final_loop_state
