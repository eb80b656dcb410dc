"""`tf.Assert`: an Assert op, guarded by a cond unless its data lives on the host."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import name_scope
from trainflow._src.framework.tensor_conversion import convert_n_to_tensor, convert_to_tensor
from trainflow._src.ops.string.logging_ops import assert_op
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.control_flow.grouping import no_op

_HOST_TYPES = (dtypes.string, dtypes.int32)


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """An op that raises InvalidArgumentError "assertion failed: [...]" printing
    `data` when the scalar bool `condition` is false.

    In graph mode the op only runs when it is fetched or is a control dependency
    of something that runs.

    Args:
      condition: scalar bool tensor.
      data: list of tensors (or Python values) printed on failure.
      summarize: elements printed per tensor (default 3).
      name: name scope (default "Assert").

    Returns:
      the Operation to run or depend on.
    """
    with name_scope(name, "Assert", [condition] + list(data)):
        xs = convert_n_to_tensor(list(data))
        if all(x.dtype.base_dtype in _HOST_TYPES for x in xs):
            return assert_op(condition, data, summarize, name="Assert")
        condition = convert_to_tensor(condition, name="Condition")

        def true_assert():
            return assert_op(condition, data, summarize, name="Assert")

        guarded = cond(condition, no_op, true_assert, name="AssertGuard")
        return guarded.op
