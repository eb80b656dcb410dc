"""What a forward While loop keeps for its gradient (see ops/control_flow/while_grad.py).

Once a gradient of a While op has been built, the op is *recording*: each time
it runs it keeps, per iteration, the values of the body tensors that the
gradient function graph reads, plus the values it fed to the body's captured
inputs. The record is filed under the array the op returns as its first output
(a fresh array on every run): the WhileGrad op takes that output as an input,
so it finds the record of exactly the run it belongs to, also when the loop
runs many times in one step (a loop nested in another loop's body, whose first
outputs are themselves recorded by the outer loop). A record lives as long as
that array does, which is normally until the step ends.
"""
import weakref

import numpy as np

from trainflow._src.framework import errors

# id(first output array) -> LoopRecord.
_RECORDS = {}


class LoopRecord:
    """The values one run of a While loop kept for its gradient.

    Attributes:
      iterations: one list per iteration, the values of the recorded tensors
        (in `recorded_tensors(op)` order) in that iteration.
      captures: body capture placeholder -> the value it was fed in that run.
    """

    __slots__ = ("iterations", "captures")

    def __init__(self, iterations, captures):
        self.iterations = iterations
        self.captures = captures


def _recording_table(op):
    # Kept on the body graph, not in a module-level table keyed by op: the recorded
    # tensors refer back to the op's graph, which would then never be freed.
    return op._attrs["body"].__dict__.setdefault("_recorded_tensors", {})


def start_recording(op, tensors):
    """Makes the While `op` record `tensors` (tensors of its body graph) from now on."""
    _recording_table(op)[op] = list(tensors)


def recorded_tensors(op):
    """The body tensors `op` records each iteration, or None if it does not record."""
    table = getattr(op._attrs["body"], "_recorded_tensors", None)
    return None if table is None else table.get(op)


def file_record(first_output, record):
    """Files `record` under the loop's first output value.

    Returns:
      the array to return as the first output (a fresh copy, so that no two runs
      share it).

    Raises:
      InvalidArgumentError: if the first output is not a NumPy value.
    """
    if not isinstance(first_output, (np.ndarray, np.generic)):
        raise errors.InvalidArgumentError(
            None, None, "while_loop gradient: the loop's first output must be a numeric "
                        f"tensor to record the loop, got {type(first_output).__name__}")
    key = np.array(first_output)
    ident = id(key)
    _RECORDS[ident] = record
    weakref.finalize(key, _RECORDS.pop, ident, None)
    return key


def find_record(first_output, op_name):
    """The LoopRecord filed under `first_output`.

    Raises:
      InvalidArgumentError: if that value did not come from a recording run (e.g. the
        loop's first output was fed).
    """
    record = _RECORDS.get(id(first_output))
    if record is None:
        raise errors.InvalidArgumentError(
            None, None, f"while_loop gradient: no record of the forward loop {op_name} for "
                        "this value of its first output; the loop must run in the same step "
                        "as its gradient and its outputs must not be fed")
    return record
