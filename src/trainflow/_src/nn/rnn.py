"""`tf.nn.dynamic_rnn` and `tf.nn.static_rnn` (TF 1.15's drivers).

`dynamic_rnn` runs the cell in a `tf.while_loop` over the time axis, reading each step's
input from a TensorArray and writing its output to another, so its gradients come from
the while-loop gradient machinery; the loop stops after `max(sequence_length)` steps
(the outputs past it stay zero). `static_rnn` unrolls the cell over a Python list of
inputs, reusing its variables after the first step. Both default to the variable scope
"rnn".
"""
from trainflow._src.framework import dtypes, nest
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.nn import rnn_step as step
from trainflow._src.nn.rnn_cell_base import assert_like_rnncell
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.control_flow.control_flow_ops import Assert, while_loop
from trainflow._src.ops.data_flow.tensor_array import TensorArray
from trainflow._src.ops.math import math_ops
from trainflow._src.ops.state import variable_scope as vs

__all__ = ["dynamic_rnn", "static_rnn", "static_state_saving_rnn"]


def _check_sequence_length(sequence_length, batch_size):
    sequence_length = math_ops.cast(sequence_length, dtypes.int32)
    if sequence_length.shape.ndims not in (None, 1):
        raise ValueError("sequence_length must be a vector of length batch_size, but saw "
                         f"shape: {sequence_length.shape}")
    sequence_length = array_ops.identity(sequence_length, name="sequence_length")
    got = array_ops.shape(sequence_length)
    expected = array_ops.stack([batch_size])
    check = Assert(math_ops.reduce_all(math_ops.equal(got, expected)),
                   [f"Expected shape for Tensor {sequence_length.name} is ", expected,
                    " but saw shape: ", got])
    with control_dependencies([check]):
        return array_ops.identity(sequence_length, name="CheckSeqLen")


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """Runs `cell` over the time axis of `inputs` in a while loop (`tf.nn.dynamic_rnn`).

    Args:
      cell: an RNNCell.
      inputs: a tensor (or nest of tensors) [batch, time, ...] ([time, batch, ...] when
        time_major).
      sequence_length: optional int vector [batch]: past its length a sequence's
        outputs are zero and its state is copied through.
      initial_state: the initial state; default the cell's zero state (needs `dtype`).
      dtype: the state's dtype when no initial state is given.
      parallel_iterations: the while loop's (default 32).
      swap_memory: the while loop's.
      time_major: whether inputs and outputs are [time, batch, ...].
      scope: the variable scope (default "rnn").

    Returns:
      (outputs, final_state): outputs shaped as the inputs' batch/time axes plus the
      cell's output_size; final_state the state after each sequence's last step.

    Raises:
      TypeError: if `cell` is not an RNNCell.
      ValueError: if neither initial_state nor dtype is given, or the inputs' shapes
        are unusable.
    """
    assert_like_rnncell("cell", cell)
    with vs.variable_scope(scope or "rnn"):
        flat_input = nest.flatten(inputs)
        if not time_major:
            flat_input = tuple(step.transpose_batch_time(convert_to_tensor(i))
                               for i in flat_input)
        parallel_iterations = parallel_iterations or 32
        batch_size = step.best_effort_batch_size(flat_input)
        if sequence_length is not None:
            sequence_length = _check_sequence_length(sequence_length, batch_size)
        state = step.initial_state(cell, initial_state, batch_size, dtype,
                                   "If there is no initial_state, you must give a dtype.")
        inputs = nest.pack_sequence_as(inputs, list(flat_input))
        outputs, final_state = _dynamic_rnn_loop(
            cell, inputs, state, parallel_iterations=parallel_iterations,
            swap_memory=swap_memory, sequence_length=sequence_length, dtype=dtype)
        if not time_major:
            outputs = nest.map_structure(step.transpose_batch_time, outputs)
        return outputs, final_state


def _input_shapes(flat_input):
    shapes = tuple(i.shape.with_rank_at_least(3) for i in flat_input)
    const_time, const_batch = shapes[0].as_list()[:2]
    for shape in shapes:
        if not shape[2:].is_fully_defined():
            raise ValueError("Input size (depth of inputs) must be accessible via shape "
                             "inference, but saw value None.")
        got_time, got_batch = shape.as_list()[:2]
        if const_time != got_time:
            raise ValueError("Time steps is not the same for all the elements in the input "
                             "in a batch.")
        if const_batch != got_batch:
            raise ValueError("Batch_size is not the same for all the elements in the "
                             "input.")
    return shapes, const_time, const_batch


def _dynamic_rnn_loop(cell, inputs, state, parallel_iterations, swap_memory,
                      sequence_length=None, dtype=None):
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    time_steps = array_ops.shape(flat_input[0])[0]
    batch_size = step.best_effort_batch_size(flat_input)
    shapes, const_time, const_batch = _input_shapes(flat_input)
    out_dtype = step.infer_state_dtype(dtype, state)
    zero_out = step.zero_output(cell.output_size, batch_size, out_dtype)
    if sequence_length is not None:
        max_length = math_ops.reduce_max(sequence_length)
    else:
        max_length = time_steps
    time = constant(0, dtype=dtypes.int32, name="time")
    with name_scope("dynamic_rnn") as base_name:
        pass
    output_ta = tuple(
        TensorArray(dtype=out_dtype, size=time_steps,
                    element_shape=step.static_shape([const_batch], size),
                    tensor_array_name=f"{base_name}output_{i}")
        for i, size in enumerate(flat_output_size))
    input_ta = tuple(
        TensorArray(dtype=i.dtype, size=time_steps, element_shape=i.shape[1:],
                    tensor_array_name=f"{base_name}input_{n}").unstack(i)
        for n, i in enumerate(flat_input))

    def time_step(time, output_ta_t, state):
        input_t = tuple(ta.read(time) for ta in input_ta)
        for input_, shape in zip(input_t, shapes):
            input_.set_shape(shape[1:])
        input_t = nest.pack_sequence_as(inputs, list(input_t))

        def call_cell():
            return cell(input_t, state)
        if sequence_length is not None:
            output, new_state = step.rnn_step(time, sequence_length, zero_out, state,
                                              call_cell)
        else:
            output, new_state = call_cell()
        output_ta_t = tuple(ta.write(time, out)
                            for ta, out in zip(output_ta_t, nest.flatten(output)))
        return time + 1, output_ta_t, new_state

    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_length))
    _, output_final_ta, final_state = while_loop(
        cond=lambda time, *_: time < loop_bound, body=time_step,
        loop_vars=(time, output_ta, state), parallel_iterations=parallel_iterations,
        maximum_iterations=time_steps, swap_memory=swap_memory)
    final_outputs = tuple(ta.stack() for ta in output_final_ta)
    for output, size in zip(final_outputs, flat_output_size):
        output.set_shape(step.static_shape([const_time, const_batch], size))
    return nest.pack_sequence_as(cell.output_size, list(final_outputs)), final_state


def _static_batch_size(inputs):
    first_input = inputs
    while nest.is_nested(first_input):
        first_input = first_input[0]
    if first_input.shape.ndims != 1:
        fixed = TensorShape(first_input.shape.with_rank_at_least(2)[:1])
        for flat_input in nest.flatten(inputs):
            shape = flat_input.shape.with_rank_at_least(2)
            fixed = fixed.merge_with(shape[:1])
            for i, size in enumerate(shape[1:].as_list()):
                if size is None:
                    raise ValueError(f"Input size (dimension {i} of inputs) must be "
                                     "accessible via shape inference, but saw value None.")
    else:
        fixed = TensorShape(first_input.shape.with_rank_at_least(1)[:1])
    value = fixed.as_list()[0]
    return value if value else array_ops.shape(first_input)[0]


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None,
               scope=None):
    """Unrolls `cell` over the list `inputs` (`tf.nn.static_rnn`).

    Args:
      cell: an RNNCell.
      inputs: a list (one per time step) of tensors [batch, input_size] (or nests).
      initial_state, dtype, sequence_length, scope: as dynamic_rnn.

    Returns:
      (outputs, state): the list of outputs, one per step, and the final state.

    Raises:
      TypeError: if `cell` is not an RNNCell or `inputs` not a sequence.
      ValueError: for empty inputs, or neither initial_state nor dtype.
    """
    assert_like_rnncell("cell", cell)
    if not nest.is_nested(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    outputs = []
    with vs.variable_scope(scope or "rnn") as varscope:
        batch_size = _static_batch_size(inputs)
        state = step.initial_state(cell, initial_state, batch_size, dtype,
                                   "If no initial_state is provided, dtype must be "
                                   "specified")
        if sequence_length is not None:
            sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.shape.ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size")
            zero_out = step.zero_output(cell.output_size, batch_size,
                                        step.infer_state_dtype(dtype, state))
            sequence_length = math_ops.cast(sequence_length, dtypes.int32)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_=input_, state=state):
                return cell(input_, state)
            if sequence_length is not None:
                output, state = step.rnn_step(time, sequence_length, zero_out, state,
                                              call_cell)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None,
                            scope=None):
    """`static_rnn` starting from, and saving its final state to, a state saver
    (`tf.nn.static_state_saving_rnn`).

    Args:
      cell: an RNNCell.
      inputs: a list of [batch, input_size] tensors, one per step.
      state_saver: an object with `state(name)` and `save_state(name, value)`.
      state_name: the saver's name for the state (a structure of names matching a
        nested `cell.state_size`).
      sequence_length, scope: as static_rnn.

    Returns:
      (outputs, state), both run after the state is saved.

    Raises:
      ValueError: if state_name and cell.state_size differ in structure.
    """
    state_size = cell.state_size
    state_is_tuple = nest.is_nested(state_size)
    if state_is_tuple != nest.is_nested(state_name):
        raise ValueError(f"state_name should be the same type as cell.state_size.  "
                         f"state_name: {state_name}, cell.state_size: {state_size}")
    if state_is_tuple:
        names, sizes = nest.flatten(state_name), nest.flatten(state_size)
        if len(names) != len(sizes):
            raise ValueError(f"#elems(state_name) != #elems(state_size): {len(names)} vs. "
                             f"{len(sizes)}")
        initial = nest.pack_sequence_as(state_size, [state_saver.state(n) for n in names])
    else:
        initial = state_saver.state(state_name)
    outputs, state = static_rnn(cell, inputs, initial_state=initial,
                                sequence_length=sequence_length, scope=scope)
    flat_state = nest.flatten(state)
    if state_is_tuple:
        saves = [state_saver.save_state(n, s)
                 for n, s in zip(nest.flatten(state_name), flat_state)]
    else:
        saves = [state_saver.save_state(state_name, state)]
    with control_dependencies(saves):
        last = outputs[-1]
        outputs[-1] = nest.pack_sequence_as(
            last, [array_ops.identity(o) for o in nest.flatten(last)])
        state = nest.pack_sequence_as(state, [array_ops.identity(s) for s in flat_state])
    return outputs, state
