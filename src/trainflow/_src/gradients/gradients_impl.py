"""`tf.gradients`: symbolic reverse-mode differentiation over the graph (contract 3 of
docs/architecture.md).

Walks back from `ys` to `xs` over the ops between them, in reverse dependency
order, calling each op type's registered gradient function (which adds ops) and
summing the gradients that reach each tensor. Iterative, never recursive.
"""
import collections
import contextlib
import enum

from trainflow._src.framework import attr_scope, dtypes, graph_walk, registry
from trainflow._src.framework.graph import _get_graph_from_inputs
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array import create
from trainflow._src.ops.array import identity
from trainflow._src.ops.array import join
from trainflow._src.ops.array import shape as shape_lib
from trainflow._src.ops.control_flow import grouping
from trainflow._src.ops.math import arith


class AggregationMethod:
    """How gradients reaching one tensor are summed (`tf.AggregationMethod`)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class UnconnectedGradients(enum.Enum):
    """What `tf.gradients` returns for an x that the ys do not depend on (TF's enum: its
    members or their values, "none" and "zero", are accepted)."""

    NONE = "none"
    ZERO = "zero"


def is_trainable(t):
    """Gradients flow only through floating and complex tensors."""
    base = t.dtype.base_dtype
    return base.is_floating or base.is_complex or base in (dtypes.resource, dtypes.variant)


def _is_sparse(g):
    return not isinstance(g, Tensor) and hasattr(g, "indices") and hasattr(g, "values")


def gradient_function(op):
    """The gradient function registered for `op` (honouring gradient_override_map).

    Returns:
      the function, or None if the op type is marked not differentiable.

    Raises:
      LookupError: if no gradient is registered for the op type.
    """
    op_type = op._attrs.get("_gradient_op_type")
    if op_type is not None:
        op_type = op_type.decode() if isinstance(op_type, bytes) else op_type
    else:
        op_type = op._type
    found, fn = registry.get_gradient(op_type)
    if not found:
        raise LookupError(
            f"No gradient defined for operation '{op.name}' (op type: {op_type}). In general "
            "every operation must have an associated `@tf.RegisterGradient` for correct "
            "autodiff, which this op is lacking. If you want to pretend this operation is a "
            "constant in your program, you may insert `tf.stop_gradient`.")
    return fn


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _trainable_consumers(op):
    return [c for out in op._outputs if is_trainable(out) for c in out._consumers]


def _reached_ops(from_ops):
    """The ops reachable forward from `from_ops` through trainable outputs."""
    return graph_walk.reachable(from_ops, _trainable_consumers)


def _between_ops(to_ops, reached):
    """The ops of `reached` that `to_ops` depend on."""
    return graph_walk.reachable([op for op in to_ops if op in reached],
                                lambda op: [t._op for t in op._inputs if t._op in reached])


def _default_grad_ys(ys, grad_ys, colocate):
    out = []
    for i, (y, gy) in enumerate(zip(ys, grad_ys)):
        if gy is None:
            if y.dtype.is_complex:
                raise TypeError(f"Gradients of complex tensors ({y}) must set grad_ys "
                                f"(y.dtype = {y.dtype.base_dtype.name})")
            g = y.graph
            ctx = g.colocate_with(y.op) if colocate else _Null()
            with ctx:
                out.append(create.ones(shape_lib.shape(y), dtype=y.dtype.base_dtype,
                                          name=f"grad_ys_{i}"))
            continue
        if isinstance(gy, Tensor) or _is_sparse(gy):
            gdt = gy.dtype.base_dtype
            ydt = y.dtype.base_dtype
            if ydt.is_floating or ydt.is_integer:
                if not (gdt.is_floating or gdt.is_integer):
                    raise TypeError(f"Gradient type {gdt.name} generated for real or integer "
                                    f"tensor {y} with type {ydt.name} must be real or integer")
            elif ydt.is_complex and not gdt.is_complex:
                raise TypeError(f"Gradient type {gdt.name} generated for complex tensor {y} "
                                f"with type {ydt.name} must be complex")
            # As TF does, a given gradient enters the gradient graph through an Identity.
            if isinstance(gy, Tensor):
                out.append(identity.identity(gy, name=f"grad_ys_{i}"))
            else:
                out.append(IndexedSlices(
                    identity.identity(gy.values, name=f"grad_ys_{i}_values"),
                    identity.identity(gy.indices, name=f"grad_ys_{i}_indices"),
                    None if gy.dense_shape is None else
                    identity.identity(gy.dense_shape, name=f"grad_ys_{i}_shape")))
        else:
            out.append(convert_to_tensor(gy, dtype=y.dtype.base_dtype, name=f"grad_ys_{i}"))
    return out


class _Null:
    """A context manager that does nothing (where no colocation or name scope applies)."""

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


def _aggregate(grads_for_output, aggregation_method, op=None):
    """Sums the gradients reaching one tensor (add_n; IndexedSlices concat if any is sparse).

    As TF: the tree methods add pairwise in `<op>_gradient_sum`; the default adds per
    device, each AddN colocated with its first term's op, then across devices.
    """
    grads = [g for g in grads_for_output if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    if all(isinstance(g, Tensor) for g in grads):
        graph = grads[0].graph
        if aggregation_method in (AggregationMethod.EXPERIMENTAL_TREE,
                                  AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
            scope = graph.name_scope(op.name + "_gradient_sum") if op is not None else _Null()
            with scope:
                total = grads[0]
                for g in grads[1:]:
                    total = arith.add_n([total, g])
            return total
        by_device = collections.defaultdict(list)
        for g in grads:
            by_device[g.device or ""].append(g)
        summands = []
        for dev in sorted(by_device):
            terms = by_device[dev]
            with graph.colocate_with(terms[0].op, ignore_existing=True):
                summands.append(arith.add_n(terms))
        return arith.add_n(summands)
    if any(isinstance(g, Tensor) for g in grads):
        # Dense and sparse terms sum densely, as TF does.
        return arith.add_n([convert_to_tensor(g) for g in grads])
    return IndexedSlices(join.concat([g.values for g in grads], 0),
                         join.concat([g.indices for g in grads], 0),
                         grads[0].dense_shape)


def _zeros_like_output(op, i):
    """The gradient of an output nothing consumes: a ZerosLike op, as TF builds it."""
    return create.zeros_like(op._outputs[i], optimize=False)


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE):
    """Symbolic derivatives of sum(ys) with respect to each x in xs (`tf.gradients`).

    Args:
      ys: a Tensor or list of Tensors to differentiate.
      xs: a Tensor/Variable or list of them.
      grad_ys: optional initial gradients, one per y (default: ones).
      name: name scope of the gradient ops.
      colocate_gradients_with_ops: place each gradient op with its forward op.
      gate_gradients: wrap each op's input gradients in a `tuple` (no races).
      aggregation_method: an AggregationMethod constant.
      stop_gradients: tensors not to differentiate through.
      unconnected_gradients: "none" (None) or "zero" (zeros) for unconnected xs.

    Returns:
      a list with one gradient (Tensor, IndexedSlices or None) per x.

    Raises:
      LookupError: if an op on the path has no registered gradient.
      ValueError / TypeError: for bad arguments.
    """
    ys = _as_list(ys)
    xs = _as_list(xs)
    stop_gradients = [] if stop_gradients is None else _as_list(stop_gradients)
    if grad_ys is None:
        grad_ys = [None] * len(ys)
    else:
        grad_ys = _as_list(grad_ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    try:
        unconnected_gradients = UnconnectedGradients(unconnected_gradients)
    except ValueError:
        raise ValueError(
            f"Unknown value for unconnected_gradients: '{unconnected_gradients}'") from None
    _check_aggregation_method(aggregation_method)
    g = _get_graph_from_inputs(list(ys) + list(xs))
    with g.as_default(), g.name_scope(name or "gradients"):
        ys = [convert_to_tensor(y, name="y") if not isinstance(y, Tensor) else y for y in ys]
        xs = [x if isinstance(x, Tensor) else convert_to_tensor(x, name="x", as_ref=True)
              for x in xs]
        stop_ops = set(_stop_op(s) for s in stop_gradients)
        grad_ys = _default_grad_ys(ys, grad_ys, colocate_gradients_with_ops)
        to_ops = [y.op for y in ys]
        from_ops = [x.op for x in xs]
        reached = _reached_ops(from_ops)
        between = _between_ops(to_ops, reached)
        pending = collections.defaultdict(int)
        for op in between:
            for t in op._inputs:
                if t._op in between:
                    pending[t._op] += 1
        for op in from_ops:
            if all(pending[t._op] == 0 for t in op._inputs):
                stop_ops.add(op)
        grads = {}
        for y, gy in zip(ys, grad_ys):
            _set_grad(grads, y, gy)
        queue = collections.deque()
        queued = set()
        for op in to_ops:
            if pending[op] == 0 and op in between and op not in queued:
                queued.add(op)
                queue.append(op)
        while queue:
            op = queue.popleft()
            _backprop_op(g, op, grads, stop_ops, gate_gradients, aggregation_method,
                         colocate_gradients_with_ops)
            for t in op._inputs:
                src = t._op
                if src in between:
                    pending[src] -= 1
                    if pending[src] == 0 and src not in queued:
                        queued.add(src)
                        queue.append(src)
    out = []
    with g.as_default():  # TF makes the zeros outside the "gradients" name scope
        for x in xs:
            gx = _get_grad(grads, x)
            if gx is None and unconnected_gradients == UnconnectedGradients.ZERO:
                gx = create.zeros_like(x)
            out.append(gx)
    return out


_AGGREGATION_METHODS = (AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                        AggregationMethod.EXPERIMENTAL_ACCUMULATE_N)


def _check_aggregation_method(method):
    if method is not None and method not in _AGGREGATION_METHODS:
        raise ValueError(f"Invalid `aggregation_method` specified {method}. Accepted values "
                         f"are {list(_AGGREGATION_METHODS)}.")


def _stop_op(s):
    """The op of one `stop_gradients` entry (a Tensor, Variable or IndexedSlices).

    TF takes `.op` of each entry; a name or a Python value is an error there too.
    """
    op = getattr(s, "op", None)
    if op is None:
        raise AttributeError(f"stop_gradients entries must be Tensors or Variables (with "
                             f"an `.op`); got {type(s).__name__} {s!r}")
    return op


def _set_grad(grads, t, grad):
    op_grads = grads.setdefault(t._op, [[] for _ in t._op._outputs])
    op_grads[t._value_index].append(grad)


def _get_grad(grads, t):
    op_grads = grads.get(t._op)
    if op_grads is None:
        return None
    g = op_grads[t._value_index]
    if isinstance(g, list):
        return _aggregate(g, None)
    return g


def _xla_marks(g, op):
    """The attr scope that puts the gradient of an op marked by `jit_scope` for XLA in
    the op's XLA scope (or a scope of its own with separate_compiled_gradients), as TF
    does; a null context for other ops."""
    if op._attrs.get("_XlaCompile") is not True:
        return contextlib.nullcontext()
    scope = op._attrs.get("_XlaScope", b"")
    scope = scope.decode() if isinstance(scope, bytes) else scope
    if op._attrs.get("_XlaSeparateCompiledGradients"):
        scope = f"{scope}_grad_{g.get_name_scope()}/"
    return attr_scope.attr_scope(g, {"_XlaCompile": True, "_XlaScope": scope.encode()})


def _backprop_op(g, op, grads, stop_ops, gate_gradients, aggregation_method, colocate):
    ctx = g.colocate_with(op) if colocate else _Null()
    with ctx:
        op_grads = grads.get(op)
        if op_grads is None:
            out_grads = [None] * len(op._outputs)
        else:
            out_grads = [_aggregate(lst, aggregation_method, op) if isinstance(lst, list)
                         else lst
                         for lst in op_grads]
            grads[op] = out_grads
        has_out_grads = any(x is not None for x in out_grads)
        grad_fn = None
        if has_out_grads and op not in stop_ops:
            grad_fn = gradient_function(op)
        if grad_fn is not None and has_out_grads:
            # Switch gradients build their own zeros, live only on the untaken side.
            fill_zeros = op._type not in ("Switch", "RefSwitch")
            for i, og in enumerate(out_grads):
                if og is None and fill_zeros and is_trainable(op._outputs[i]):
                    out_grads[i] = _zeros_like_output(op, i)
            with _xla_marks(g, op), g.name_scope(op.name + "_grad"):
                in_grads = _as_list(grad_fn(op, *out_grads))
                if len(in_grads) != len(op._inputs):
                    raise ValueError(f"Num gradients {len(in_grads)} generated for op "
                                     f"{op.node_def} do not match num inputs "
                                     f"{len(op._inputs)}")
                if gate_gradients and sum(x is not None for x in in_grads) > 1:
                    with g.device(None):
                        in_grads = grouping.tuple(in_grads)
        else:
            in_grads = [None] * len(op._inputs)
    for i, (t_in, in_grad) in enumerate(zip(op._inputs, in_grads)):
        if in_grad is None:
            continue
        if isinstance(in_grad, Tensor) and t_in.dtype.base_dtype != dtypes.resource:
            try:
                in_grad.set_shape(t_in.get_shape())
            except ValueError:
                raise ValueError("Incompatible shapes between op input and calculated input "
                                 f"gradient. Forward operation: {op.name}. Input index: {i}. "
                                 f"Original input shape: {t_in.shape}. Calculated input "
                                 f"gradient shape: {in_grad.shape}") from None
        _set_grad(grads, t_in, in_grad)


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """Second derivatives of sum(ys) for each x (`tf.hessians`): one Tensor of shape
    x.shape + x.shape per x. Each x needs a fully defined static shape.

    Raises:
      ValueError: if an x's shape is not fully defined, or ys do not depend on an x.
    """
    xs = _as_list(xs)
    kwargs = dict(colocate_gradients_with_ops=colocate_gradients_with_ops,
                  gate_gradients=gate_gradients, aggregation_method=aggregation_method)
    first = gradients(ys, xs, **kwargs)
    g = _get_graph_from_inputs(xs)
    out = []
    with g.as_default(), g.name_scope(name):
        for grad, x in zip(first, xs):
            shape = x.get_shape()
            if not shape.is_fully_defined():
                raise ValueError(f"tf.hessians needs a fully defined shape for {x}, got {shape}")
            n = shape.num_elements()
            if grad is None:
                raise ValueError(f"tf.hessians: {x} is not connected to ys (its gradient is "
                                 "None), so it has no Hessian")
            flat = shape_lib.reshape(grad, [-1])
            rows = []
            for j in range(n):
                row = gradients(flat[j], x, **kwargs)[0]
                rows.append(create.zeros_like(x) if row is None else row)
            stacked = join.stack(rows)
            out.append(shape_lib.reshape(stacked, shape.as_list() + shape.as_list()))
    return out


__all__ = ["gradients", "hessians", "AggregationMethod", "UnconnectedGradients"]
