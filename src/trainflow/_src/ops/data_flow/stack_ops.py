"""Stacks (StackV2, StackPushV2, StackPopV2, StackCloseV2) and ControlTrigger: what TF1's
while-loop gradients use to keep forward values for the backward loop.

A StackV2 run makes a new, empty stack; its resource output carries it (a 0-d object array
holding the list), so pushes in one loop and pops in another reach the same stack.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.registry import NotDifferentiable, register_op
from trainflow._src.framework.tensor_shape import scalar, unknown_shape


class _Stack:
    __slots__ = ("name", "max_size", "items", "closed")

    def __init__(self, name, max_size):
        self.name, self.max_size, self.items, self.closed = name, max_size, [], False


def _stack(handle):
    stack = np.asarray(handle, dtype=object).reshape(-1)[0]
    if not isinstance(stack, _Stack):
        raise errors.InvalidArgumentError(None, None, "Input is not a stack handle")
    if stack.closed:
        raise errors.InvalidArgumentError(None, None, f"Stack {stack.name} has already been "
                                                      "closed.")
    return stack


def _stack_kernel(max_size, *, elem_type, stack_name, ctx):
    handle = np.empty((), dtype=object)
    handle[()] = _Stack(stack_name.decode() if isinstance(stack_name, bytes) else
                        (stack_name or ctx.op.name), int(max_size))
    return handle


def _push_kernel(handle, elem, *, swap_memory):
    stack = _stack(handle)
    if 0 <= stack.max_size <= len(stack.items):
        raise errors.InvalidArgumentError(None, None, f"Stack[{stack.name}] overflowed its "
                                                      f"max_size ({stack.max_size})")
    value = np.array(elem, copy=True)
    stack.items.append(value)
    return value


def _pop_kernel(handle, *, elem_type):
    stack = _stack(handle)
    if not stack.items:
        raise errors.InvalidArgumentError(None, None, "Stack is empty.")
    return stack.items.pop()


def _close_kernel(handle):
    stack = _stack(handle)
    stack.items.clear()
    stack.closed = True


register_op("StackV2", inputs=["max_size: int32"], outputs=["handle: resource"],
            attrs=["elem_type: type", "stack_name: string = ''"],
            shape_fn=lambda op: [scalar()], kernel=_stack_kernel, stateful=True, host_only=True)
register_op("StackPushV2", inputs=["handle: resource", "elem: T"], outputs=["output: T"],
            attrs=["T: type", "swap_memory: bool = false"],
            shape_fn=lambda op: [op._inputs[1]._shape], kernel=_push_kernel, stateful=True,
            host_only=True)
register_op("StackPopV2", inputs=["handle: resource"], outputs=["elem: elem_type"],
            attrs=["elem_type: type"], shape_fn=lambda op: [unknown_shape()],
            kernel=_pop_kernel, stateful=True, host_only=True)
register_op("StackCloseV2", inputs=["handle: resource"], shape_fn=lambda op: [],
            kernel=_close_kernel, stateful=True, host_only=True)
register_op("ControlTrigger", shape_fn=lambda op: [], kernel=lambda: None)
for _op_type in ("StackV2", "StackPushV2", "StackPopV2", "StackCloseV2", "ControlTrigger"):
    NotDifferentiable(_op_type)
