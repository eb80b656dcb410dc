"""Control flow: no_op, group, tuple (cond and while_loop land here)."""
__all__ = ["no_op"]

from trainflow.framework.op_builder import apply_op
from trainflow.framework.registry import register_op


def _no_op_kernel():
    return None


register_op("NoOp", kernel=_no_op_kernel, shape_fn=lambda op: [])


def no_op(name=None):
    """An op that does nothing; useful as a control-dependency anchor."""
    return apply_op("NoOp", name=name)
