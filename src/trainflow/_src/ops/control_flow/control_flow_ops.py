"""Control flow: no_op, group, tuple, with_dependencies (ops/control_flow/grouping.py),
and the public names of cond, case, while_loop and Assert (built in
ops/control_flow/cond.py, case.py, while_loop.py and assert_op.py)."""
__all__ = ["no_op", "group", "tuple", "cond", "case", "while_loop", "Assert"]

from trainflow._src.ops.control_flow.grouping import (  # noqa: F401 - re-exported
    _group_control_deps, _is_indexed_slices, group, identity_like, no_op,
    tuple,  # noqa: A004 - TF's name
    with_dependencies)
from trainflow._src.ops.control_flow.case import case
from trainflow._src.ops.control_flow.cond import cond
from trainflow._src.ops.control_flow.assert_op import Assert
from trainflow._src.ops.control_flow import functional_if  # noqa: F401 - registers If / StatelessIf
from trainflow._src.ops.control_flow.while_loop import while_loop
from trainflow._src.ops.control_flow import cond_grad  # noqa: F401 - Switch / Merge gradients
from trainflow._src.ops.control_flow import while_grad  # noqa: F401 - While gradient (WhileGrad op)
