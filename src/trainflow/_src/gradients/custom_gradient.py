"""`tf.custom_gradient`: a function that supplies its own gradient.

As in TensorFlow's graph mode, the function's outputs, inputs and the variables it
reads pass through one `IdentityN` op whose gradient is overridden (a fresh
gradient type `CustomGradient-<n>`) by a wrapper around the user's `grad_fn`; the
ops inside the function then get no gradient of their own.
"""
import functools
import inspect
import itertools

from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.registry import RegisterGradient
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.cast import identity_n

_UIDS = itertools.count(1)


def custom_gradient(f=None):
    """Decorates `f(*tensors) -> (result, grad_fn)` so that the gradient of `result`
    is `grad_fn(*result_grads)` (`tf.custom_gradient`).

    `grad_fn` returns one gradient per input tensor. If `f` reads variables,
    `grad_fn` must take a `variables=` keyword and return
    `(input_grads, variable_grads)`, one variable gradient per variable.

    Raises (when the decorated function is called):
      ValueError: for keyword arguments (graph mode takes positional tensors only),
        or a grad_fn returning the wrong number of variable gradients.
      TypeError: if `f` reads variables and `grad_fn` has no `variables` keyword.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")
        return _graph_mode_call(f, args)
    return decorated


def _flatten(x):
    if isinstance(x, (list, tuple)):
        out = []
        for v in x:
            out.extend(_flatten(v))
        return out
    return [x]


def _pack_like(structure, flat):
    it = iter(flat)

    def build(s):
        if isinstance(s, (list, tuple)):
            items = [build(v) for v in s]
            return type(s)(*items) if hasattr(s, "_fields") else type(s)(items)
        return next(it)
    return build(structure)


def _variables_read(graph, first_new_id, args):
    """The trainable variables that ops created since `first_new_id` read directly
    (those created there too, as a tape watches TF2's resource variables)."""
    arg_ids = {id(a) for a in args}
    by_tensor = {}
    for v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES):
        for t in (v._ref(), v.value()):
            by_tensor[t] = v
    found = []
    for op in graph.get_operations():
        if op._id < first_new_id:
            continue
        for t in op._inputs:
            v = by_tensor.get(t)
            if v is not None and v not in found and id(t) not in arg_ids:
                found.append(v)
    return found


def _graph_mode_call(f, args):
    graph = get_default_graph()
    args = [convert_to_tensor(a) for a in args]
    first_new_id = graph._version + 1
    result, grad_fn = f(*args)
    variables = _variables_read(graph, first_new_id, args)
    params = inspect.signature(grad_fn).parameters
    takes_variables = "variables" in params or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    if variables and not takes_variables:
        raise TypeError("If using @custom_gradient with a function that uses variables, "
                        "then grad_fn must accept a keyword argument 'variables'.")
    flat_result = [convert_to_tensor(r) for r in _flatten(result)]
    n_result = len(flat_result)
    var_tensors = [v._ref() for v in variables]

    def grad_wrapper(op, *result_grads):
        result_grads = list(result_grads[:n_result])
        if variables:
            input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
            variable_grads = list(variable_grads)
            if len(variable_grads) != len(variables):
                raise ValueError("Must return gradient for each variable from "
                                 "@custom_gradient grad_fn.")
        else:
            input_grads, variable_grads = grad_fn(*result_grads), []
        input_grads = _flatten(input_grads)
        if len(input_grads) != len(args):
            raise ValueError(f"custom_gradient: grad_fn returned {len(input_grads)} "
                             f"gradients for {len(args)} inputs")
        return [None] * n_result + input_grads + variable_grads

    name = f"CustomGradient-{next(_UIDS)}"
    RegisterGradient(name)(grad_wrapper)
    with graph.gradient_override_map({"IdentityN": name}):
        passed = identity_n(flat_result + args + var_tensors)
    return _pack_like(result, passed[:n_result])
