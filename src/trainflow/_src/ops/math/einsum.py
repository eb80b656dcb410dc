"""`tf.einsum`: Einstein summation as one `Einsum` op (TensorFlow 2's graph), with
shape inference, a NumPy kernel and a gradient.

The gradient of input i is itself an einsum of the output gradient with the other
inputs; labels summed inside input i alone are broadcast back, and dimensions
that an ellipsis broadcast are summed away. Inputs with a repeated label (a
diagonal, e.g. "ii->i") have no gradient here.
"""
import re

import numpy as np

from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.ops.array.shape_util import (
    UNKNOWN, broadcast_batch_dims, dims_of, invalid_argument, shape_of)
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.ops.array import create, join, shape
from trainflow._src.ops.math import reductions
from trainflow._src.ops.math.grad_util import broadcast_gradient_args

__all__ = ["einsum"]

_SPEC = re.compile(r"^[A-Za-z]*(\.\.\.)?[A-Za-z]*$")


def _text(equation):
    return equation.decode() if isinstance(equation, bytes) else equation


def parse_equation(equation):
    """(input specs, output spec) of an explicit equation, spaces removed.

    Raises:
      ValueError: for a malformed equation.
    """
    equation = _text(equation)
    eq = equation.replace(" ", "")
    if "->" not in eq:
        raise ValueError(f"Einsum equation must contain '->': {equation!r}")
    lhs, out = eq.split("->")
    ins = lhs.split(",")
    for spec in ins + [out]:
        if not _SPEC.match(spec):
            raise ValueError(f"Invalid Einsum subscripts {spec!r} in equation {equation!r}")
    for label in out.replace("...", ""):
        if out.count(label) > 1:
            raise ValueError(f"Output subscripts contain label {label!r} more than once: "
                             f"{equation!r}")
        if not any(label in s for s in ins):
            raise ValueError(f"Output subscript {label!r} does not appear in the inputs of "
                             f"{equation!r}")
    return ins, out


def _explicit(equation, n_inputs):
    """The equation with its output written out (implicit mode: the labels seen once,
    sorted, after any ellipsis)."""
    eq = equation.replace(" ", "")
    if "->" in eq:
        return eq
    ins = eq.split(",")
    labels = "".join(s.replace("...", "") for s in ins)
    once = sorted(c for c in set(labels) if labels.count(c) == 1)
    return eq + "->" + ("..." if "..." in eq else "") + "".join(once)


def _einsum_kernel(inputs, *, equation):
    wide = [np.asarray(x) for x in inputs]
    dt = wide[0].dtype
    if dt.itemsize <= 2 and dt.kind == "f":
        wide = [x.astype(np.float32) for x in wide]
    try:
        out = np.einsum(_text(equation), *wide)
    except ValueError as e:
        raise invalid_argument(f"Einsum {equation!r}: {e}") from None
    return np.asarray(out).astype(dt, copy=False)


def _split_dims(spec, dims):
    """(dims before the ellipsis, ellipsis dims, dims after) of one input."""
    if "..." not in spec:
        if len(spec) != len(dims):
            raise ValueError(f"Einsum subscripts {spec!r} name {len(spec)} dimensions but "
                             f"the input has rank {len(dims)}")
        return dims, (), ()
    head, tail = spec.split("...")
    if len(dims) < len(head) + len(tail):
        raise ValueError(f"Einsum subscripts {spec!r} need rank >= {len(head) + len(tail)}, "
                         f"got rank {len(dims)}")
    cut = len(dims) - len(tail)
    return dims[:len(head)], dims[len(head):cut], dims[cut:]


def _einsum_shape(op):
    ins, out = parse_equation(op._attrs["equation"])
    if len(ins) != len(op.inputs):
        raise ValueError(f"Einsum equation {op._attrs['equation']!r} names {len(ins)} inputs "
                         f"but {len(op.inputs)} were given")
    sizes = {}
    ellipsis = ()
    for spec, t in zip(ins, op.inputs):
        dims = dims_of(t)
        if dims is None:
            if "..." in spec or "..." in out:
                return [UNKNOWN]
            continue
        head, ell, tail = _split_dims(spec, dims)
        labels = spec.replace("...", "")
        for label, d in zip(labels, head + tail):
            known = sizes.get(label)
            if known is not None and d is not None and known != d:
                raise ValueError(f"Einsum label {label!r} has sizes {known} and {d}")
            if known is None:
                sizes[label] = d
        ellipsis = broadcast_batch_dims(
            ellipsis, ell, "Einsum ellipsis dimensions {} and {} do not broadcast")
    result = []
    for part in re.split(r"(\.\.\.)", out):
        if part == "...":
            result.extend(ellipsis)
        else:
            result.extend(sizes.get(label) for label in part)
    return [shape_of(tuple(result))]


register_op("Einsum", inputs=["inputs: N * T"], outputs=["output: T"],
            attrs=["equation: string", "N: int >= 1", "T: type"],
            shape_fn=_einsum_shape, kernel=_einsum_kernel)


def einsum(equation, *inputs, **kwargs):
    """Einstein summation over `inputs` as described by `equation` (`Einsum`).

    Args:
      equation: e.g. "ij,jk->ik"; without "->" the output is the labels that
        appear once, sorted (NumPy's implicit mode); "..." broadcasts.
      *inputs: the tensors, one per comma-separated input spec.
      name: the op name (keyword only).

    Raises:
      TypeError: for unknown keyword arguments.
      ValueError: for a malformed equation or mismatched shapes.
    """
    name = kwargs.pop("name", None)
    kwargs.pop("optimize", None)  # TF's opt_einsum strategy; one op here either way
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: "
                        f"{', '.join(sorted(kwargs))}. Expected: name, optimize")
    equation = _explicit(equation, len(inputs))
    parse_equation(equation)
    with get_default_graph().name_scope(name or "einsum"):
        return apply_op("Einsum", inputs=list(inputs), equation=equation).outputs[0]


@RegisterGradient("Einsum")
def _einsum_grad(op, grad):
    ins, out = parse_equation(op.get_attr("equation"))
    inputs = list(op.inputs)
    return [_input_grad(i, ins, out, inputs, grad, op) for i in range(len(ins))]


def _input_grad(i, ins, out, inputs, grad, op):
    spec = ins[i]
    labels = spec.replace("...", "")
    if len(set(labels)) != len(labels):
        raise LookupError(f"No gradient defined for Einsum '{op.name}' input {i}: its "
                          f"subscripts {spec!r} repeat a label")
    others = [s for j, s in enumerate(ins) if j != i]
    other_inputs = [t for j, t in enumerate(inputs) if j != i]
    keep = [c for c in labels if c in out or any(c in s for s in others)]
    ell = "..." in spec
    # NumPy keeps broadcast dimensions in the output: sum them after, if x has none.
    ell_out = ell or "..." in out or any("..." in s for s in others)
    target = ("..." if ell_out else "") + "".join(keep)
    g = einsum(",".join([out] + others) + "->" + target, grad, *other_inputs)
    x = inputs[i]
    x_shape = shape.shape(x)
    if ell_out and not ell:
        g = reductions.reduce_sum(g, create.range(shape.rank(g) - len(keep)))
        target = "".join(keep)
    if ell:
        # Sum the ellipsis dimensions that were broadcast up to the output's.
        head, tail = spec.split("...")
        rank = shape.rank(x)
        ell_dims = x_shape[len(head):rank - len(tail)]
        positions = [spec.index(c) if spec.index(c) < len(head) else
                     -(len(spec) - spec.index(c)) for c in keep]
        kept = [x_shape[p] if p >= 0 else x_shape[rank + p] for p in positions]
        ref = join.concat([ell_dims, join.stack(kept)], 0) if kept else ell_dims
        reduce_axes, _ = broadcast_gradient_args(ref, shape.shape(g))
        g = shape.reshape(reductions.reduce_sum(g, reduce_axes), ref)
    present = "".join(c for c in spec.replace("...", ".") if c == "." or c in keep)
    present = present.replace(".", "...")
    if present != target:
        g = einsum(f"{target}->{present}", g)
    missing = [c for c in labels if c not in keep]
    if not missing:
        return g
    head, _, tail = spec.partition("...") if ell else (spec, "", "")
    for c in head:
        if c in missing:
            g = shape.expand_dims(g, head.index(c))
    for c in reversed(tail):
        if c in missing:
            g = shape.expand_dims(g, -(len(tail) - tail.index(c)))
    return shape.broadcast_to(g, x_shape)
