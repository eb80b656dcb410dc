"""Grouping and ordering: NoOp, `no_op`, `group`, `tuple`, `with_dependencies` and
`identity_like`, which the conditionals, asserts and `tf.gradients` build on."""
from trainflow._src.framework import registry
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.scopes import colocate_with, control_dependencies, device, name_scope
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import (
    convert_to_tensor, convert_to_tensor_or_indexed_slices)
from trainflow._src.framework import nest


def _no_op_kernel():
    return None


register_op("NoOp", kernel=_no_op_kernel, shape_fn=lambda op: [])


def no_op(name=None):
    """An op that does nothing; useful as a control-dependency anchor."""
    return apply_op("NoOp", name=name)


def identity_like(tensor, name=None):
    """Identity that keeps a ref tensor a ref (RefIdentity) when that op exists."""
    if not isinstance(tensor, Tensor):
        tensor = convert_to_tensor(tensor)
    if tensor.dtype._is_ref_dtype and registry.is_registered("RefIdentity"):
        return apply_op("RefIdentity", input=tensor, name=name).outputs[0]
    return apply_op("Identity", input=tensor, name=name).outputs[0]


def _is_indexed_slices(value):
    return (not isinstance(value, Tensor) and hasattr(value, "indices") and
            hasattr(value, "values") and hasattr(value, "dense_shape"))


def with_dependencies(dependencies, output_tensor, name=None):
    """`output_tensor`, produced only after every op in `dependencies` has run.

    Args:
      dependencies: iterable of Operations or Tensors to run first.
      output_tensor: a Tensor or IndexedSlices.
      name: name scope (default "control_dependency").

    Returns:
      an identity of `output_tensor` with the control dependencies.
    """
    with name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as scope:
        target = output_tensor.values if _is_indexed_slices(output_tensor) else output_tensor
        with colocate_with(target):
            with control_dependencies(dependencies):
                output_tensor = convert_to_tensor_or_indexed_slices(output_tensor)
                if _is_indexed_slices(output_tensor):
                    return type(output_tensor)(identity_like(output_tensor.values, name=scope),
                                               output_tensor.indices, output_tensor.dense_shape)
                return identity_like(output_tensor, name=scope)


def _group_control_deps(dev, deps, name=None):
    with control_dependencies(deps):
        if dev is None:
            return no_op(name=name)
        with device(dev):
            return no_op(name=name)


def group(*inputs, **kwargs):
    """An op that runs when all of `inputs` have run (a NoOp with control inputs).

    Inputs on several devices get one NoOp per device (sorted by device name) and
    the returned NoOp depends on those, as in TensorFlow.

    Args:
      *inputs: Operations or Tensors, possibly nested in lists.
      name: the op name (default "group_deps").

    Raises:
      ValueError: for unknown keyword arguments.
      TypeError: for inputs that are not Operations or Tensors.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    flat = nest.flatten(list(inputs))
    with name_scope(name, "group_deps", [x for x in flat if isinstance(x, (Tensor, Operation))]
                    ) as scope:
        if not inputs:
            return no_op(name=scope)
        ops_on_device = {}
        for inp in flat:
            if not hasattr(inp, "device"):
                raise TypeError("'inputs' should be zero or more (nested) Tensors. "
                                f"Received '{inp}' with type '{type(inp)}'.")
            ops_on_device.setdefault(inp.device, []).append(inp)
        if len(ops_on_device) == 1:
            (dev, deps), = ops_on_device.items()
            return _group_control_deps(dev, deps, name=scope)
        deps = [_group_control_deps(dev, ops_on_device[dev])
                for dev in sorted(ops_on_device, key=lambda d: "" if d is None else d)]
        with control_dependencies(deps):
            return no_op(name=scope)


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TF's name
    """Identities of `tensors` that are only available once all of them (and
    `control_inputs`) have been computed (`tf.tuple`).

    Args:
      tensors: list of Tensors, IndexedSlices, Operations or None.
      name: name scope (default "tuple").
      control_inputs: extra Operations/Tensors to wait for.

    Returns:
      a list like `tensors` (Operations become grouped NoOps; None stays None).

    Raises:
      ValueError: if `tensors` holds no tensor.
      TypeError: if `control_inputs` holds something other than Operations/Tensors.
    """
    with name_scope(name, "tuple", [t for t in tensors if isinstance(t, Tensor)]):
        tensors = [t if (isinstance(t, (Operation, Tensor)) or t is None or
                         _is_indexed_slices(t)) else convert_to_tensor(t) for t in tensors]
        gating_ops = [t if isinstance(t, Operation) else t.op for t in tensors if t is not None]
        for c in control_inputs or ():
            if isinstance(c, Tensor):
                c = c.op
            elif not isinstance(c, Operation):
                raise TypeError("'control_inputs' must only contain Operation or Tensor. "
                                f"Received: {type(c)}")
            gating_ops.append(c)
        gating_ops = sorted(set(gating_ops), key=lambda op: op._id)
        if not gating_ops:
            raise ValueError("'tuple' must have at least one nonempty tensor. Received: []")
        gate = group(*gating_ops)
        out = []
        for t in tensors:
            if isinstance(t, Operation):
                with control_dependencies([gate]):
                    out.append(group(t))
            elif t is None:
                out.append(None)
            else:
                out.append(with_dependencies([gate], t))
        return out
