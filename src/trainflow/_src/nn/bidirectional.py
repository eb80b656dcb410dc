"""`tf.nn.bidirectional_dynamic_rnn` and `tf.nn.static_bidirectional_rnn`: a forward
cell over the inputs and a backward cell over them reversed (each sequence within its
length), in the variable scopes `bidirectional_rnn/fw` and `bidirectional_rnn/bw`."""
from trainflow._src.framework import nest
from trainflow._src.framework.tensor_shape import unknown_shape
from trainflow._src.nn.rnn import dynamic_rnn, static_rnn
from trainflow._src.nn.rnn_cell_base import assert_like_rnncell
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.state import variable_scope as vs

__all__ = ["bidirectional_dynamic_rnn", "static_bidirectional_rnn"]


def _reverse(input_, seq_lengths, seq_axis, batch_axis):
    if seq_lengths is not None:
        return array_ops.reverse_sequence(input_, seq_lengths=seq_lengths, seq_axis=seq_axis,
                                          batch_axis=batch_axis)
    return array_ops.reverse(input_, axis=[seq_axis])


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None):
    """A forward and a backward `dynamic_rnn` over `inputs`.

    Args:
      cell_fw, cell_bw: the forward and backward RNNCells.
      inputs, sequence_length, dtype, parallel_iterations, swap_memory, time_major: as
        dynamic_rnn.
      initial_state_fw, initial_state_bw: the initial states of the two directions.
      scope: the variable scope (default "bidirectional_rnn").

    Returns:
      ((output_fw, output_bw), (output_state_fw, output_state_bw)); output_bw is
      reversed back into the inputs' time order.

    Raises:
      TypeError: if a cell is not an RNNCell.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    time_axis, batch_axis = (0, 1) if time_major else (1, 0)
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(
                cell_fw, inputs, sequence_length=sequence_length,
                initial_state=initial_state_fw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            inputs_reverse = nest.map_structure(
                lambda i: _reverse(i, sequence_length, time_axis, batch_axis), inputs)
            tmp, state_bw = dynamic_rnn(
                cell_bw, inputs_reverse, sequence_length=sequence_length,
                initial_state=initial_state_bw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=bw_scope)
    output_bw = nest.map_structure(
        lambda t: _reverse(t, sequence_length, time_axis, batch_axis), tmp)
    return (output_fw, output_bw), (state_fw, state_bw)


def _reverse_seq(input_seq, lengths):
    """The list `input_seq` reversed in time, each sequence within its length."""
    if lengths is None:
        return list(reversed(input_seq))
    flat_input_seq = tuple(nest.flatten(input_) for input_ in input_seq)
    flat_results = [[] for _ in range(len(input_seq))]
    for sequence in zip(*flat_input_seq):
        input_shape = unknown_shape(rank=sequence[0].shape.ndims)
        for input_ in sequence:
            input_shape = input_shape.merge_with(input_.shape)
            input_.set_shape(input_shape)
        reversed_ = array_ops.reverse_sequence(array_ops.stack(sequence), lengths, 0, 1)
        for r, flat_result in zip(array_ops.unstack(reversed_), flat_results):
            r.set_shape(input_shape)
            flat_result.append(r)
    return [nest.pack_sequence_as(input_, flat_result)
            for input_, flat_result in zip(input_seq, flat_results)]


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None):
    """A forward and a backward `static_rnn` over the list `inputs`.

    Args:
      cell_fw, cell_bw: the forward and backward RNNCells.
      inputs: a list of [batch, input_size] tensors, one per step.
      initial_state_fw, initial_state_bw, dtype, sequence_length: as static_rnn.
      scope: the variable scope (default "bidirectional_rnn").

    Returns:
      (outputs, output_state_fw, output_state_bw): each output the concatenation of
      the forward and (time-aligned) backward outputs along axis 1.

    Raises:
      TypeError: if a cell is not an RNNCell or `inputs` is not a sequence.
      ValueError: for empty inputs.
    """
    assert_like_rnncell("cell_fw", cell_fw)
    assert_like_rnncell("cell_bw", cell_bw)
    if not nest.is_nested(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                             sequence_length, scope=fw_scope)
        with vs.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_seq(inputs, sequence_length)
            tmp, state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw, dtype,
                                       sequence_length, scope=bw_scope)
    output_bw = _reverse_seq(tmp, sequence_length)
    flat = tuple(array_ops.concat([fw, bw], 1) for fw, bw in
                 zip(nest.flatten(output_fw), nest.flatten(output_bw)))
    return nest.pack_sequence_as(output_fw, list(flat)), state_fw, state_bw
