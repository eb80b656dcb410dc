"""Calling a dataset op's function attr (map's `f`, filter's `predicate` ...) on the host.

The function graph's arguments are the element's components, then the op's
`other_arguments` (the outer tensors the function captured, in the order of
`external_order`). A `DatasetFunction` is called per element from any thread.

As in TF, where each iterator initialization instantiates the pipeline's functions in a
fresh function runtime, a dataset op run outside any dataset function (the pipeline an
iterator initializer or a one-shot factory builds) compiles its function anew, so the
stateful kernels in it (a seeded random op) start again; a dataset op run inside a
dataset function (flat_map's, interleave's) reuses its compiled function, which belongs
to that outer function's compilation, so within one iterator their state goes on.
"""
import threading

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.kernel_context import DEAD


class DatasetFunction:
    """The compiled body of func attr `key` of the kernel's op, with its captured values."""

    def __init__(self, ctx, key, captured, fresh_kernels=False):
        op = ctx.op
        fg = op._attrs[key]
        if not isinstance(fg, FuncGraph):
            raise errors.UnimplementedError(
                None, op, f"{op.type} op {op.name} refers to function "
                          f"'{getattr(fg, 'name', fg)}' that was not built in this process")
        self.name = fg.name
        self.op = op
        self.captured = list(captured)
        feeds = list(fg.inputs)
        if fg.captures:
            self.n_args = len(fg.inputs)
            order = fg.external_order or [c.outer for c in fg.captures]
            inner_of = {c.outer: c.inner for c in fg.captures}
            feeds += [inner_of[outer] for outer in order if outer in inner_of]
            self._keep = [i for i, outer in enumerate(order) if outer in inner_of]
        else:
            # Imported from a FunctionDef (a meta graph, a worker's registered graph): the
            # captured values are its last arguments.
            self.n_args = len(fg.inputs) - len(self.captured)
            self._keep = list(range(len(self.captured)))
        self._extra = [self.captured[i] for i in self._keep]  # fed after the arguments
        self._plan = ctx.make_callable(list(fg.outputs), feeds, fresh_kernels)

    def __call__(self, args):
        """The function's outputs (a list of arrays) for element components `args`."""
        if len(args) != self.n_args:
            raise errors.InvalidArgumentError(
                None, self.op, f"function {self.name} takes {self.n_args} arguments, "
                               f"got {len(args)}")
        _calling.depth = getattr(_calling, "depth", 0) + 1
        try:
            outs = self._plan([*args, *self._extra] if self._extra else list(args))
        finally:
            _calling.depth -= 1
        for v in outs:  # (one pass: the usual outputs need no fixing)
            if v is DEAD or type(v) is bytes:
                return self._fixed(outs)
        return outs if type(outs) is list else list(outs)

    def _fixed(self, outs):
        if any(v is DEAD for v in outs):
            raise errors.InvalidArgumentError(
                None, self.op, f"function {self.name} returned a value from an untaken "
                               "branch of a conditional")
        # (a string scalar may come out of a plan as bytes: elements hold arrays)
        return [np.asarray(v, dtype=object) if isinstance(v, bytes) else v for v in outs]

    def with_captured(self, captured):
        """This compiled function with the captured values of another run."""
        fresh = object.__new__(DatasetFunction)
        fresh.__dict__.update(self.__dict__)
        fresh.captured = list(captured)
        fresh._extra = [fresh.captured[i] for i in fresh._keep]
        return fresh


_calling = threading.local()  # depth: how many DatasetFunction calls this thread is in


def cached_function(ctx, key, captured):
    """The DatasetFunction of func attr `key` with the captured values of this run:
    compiled anew when the op runs outside any dataset function, else compiled on the
    op's first run and reused."""
    if not getattr(_calling, "depth", 0):
        return DatasetFunction(ctx, key, captured, fresh_kernels=True)
    compiled = ctx.state.get(key)
    if compiled is None:
        compiled = ctx.state[key] = DatasetFunction(ctx, key, captured)
        return compiled
    return compiled.with_captured(captured)
