"""`tf.switch_case` and the functional `Case` / `StatelessCase` ops it builds: one
function body per branch, the one `branch_index` picks runs (the last one, the
default, when the index is out of range).

Gradient: another Case on the same index whose branches are copies of the forward
branches extended with `tf.gradients` (as the functional If's gradient)."""
import itertools

from trainflow._src.framework import errors, nest
from trainflow._src.framework.function_graph import FuncGraph
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.control_flow.function_grad import gradient_function, trainable

_uids = itertools.count(1)


class _CaseRunner:
    """The compiled branch functions of one Case op in one session."""

    def __init__(self, ctx):
        self.plans = []
        for fg in ctx.op._attrs["branches"]:
            if not isinstance(fg, FuncGraph):
                raise errors.UnimplementedError(
                    None, ctx.op, f"Case op {ctx.op.name} refers to function "
                                  f"'{getattr(fg, 'name', fg)}' that was not built in this "
                                  "process")
            self.plans.append(ctx.make_callable(fg.outputs, fg.inputs))


def _case_kernel(branch_index, input, *, ctx):  # noqa: A002 - TF's argument name
    runner = ctx.state.get("runner")
    if runner is None:
        runner = ctx.state["runner"] = _CaseRunner(ctx)
    index = int(branch_index)
    if index < 0 or index >= len(runner.plans):
        index = len(runner.plans) - 1
    outs = runner.plans[index](list(input))
    if not outs:
        return None
    return outs[0] if len(outs) == 1 else tuple(outs)


def _case_shape(op):
    shapes = op._attrs.get("output_shapes")
    return list(shapes) if shapes else None


for _type, _stateful in (("Case", True), ("StatelessCase", False)):
    register_op(_type, inputs=["branch_index: int32", "input: Tin"], outputs=["output: Tout"],
                attrs=["Tin: list(type) >= 0", "Tout: list(type) >= 0",
                       "branches: list(func) >= 1", "output_shapes: list(shape) = []"],
                shape_fn=_case_shape, kernel=_case_kernel, stateful=_stateful,
                output_aliases_input=True)


@RegisterGradient("Case")
def _case_grad(op, *grads):
    """Gradients of a Case's inputs (none for the index)."""
    inputs = op.inputs[1:]
    result = [None] * len(op.inputs)
    positions = [i for i, t in enumerate(inputs) if trainable(t)]
    out_positions = [k for k, g in enumerate(grads)
                     if g is not None and trainable(op.outputs[k])]
    if not positions or not out_positions:
        return result
    # lazy: keeps protobuf out of `import trainflow`
    from trainflow._src.framework.graph_export import to_function_defs
    library = {fdef.signature.name: fdef for fdef in to_function_defs(op)}
    branches = [gradient_function(fg, op, inputs, positions, out_positions, library)
                for fg in op._attrs["branches"]]
    grad_ys = [convert_to_tensor(grads[k]) for k in out_positions]
    grad_case = apply_op(op.type, branch_index=op.inputs[0], input=list(inputs) + grad_ys,
                         Tout=[inputs[i].dtype.base_dtype for i in positions],
                         branches=branches,
                         output_shapes=[inputs[i].shape for i in positions], name=op.type)
    for n, i in enumerate(positions):
        result[1 + i] = grad_case.outputs[n]
    return result


RegisterGradient("StatelessCase")(_case_grad)


def _canonical_branches(branch_fns, default, branch_index):
    """The branch callables in index order, default last (TensorFlow's checks)."""
    if not isinstance(branch_index, Tensor):
        raise TypeError("'branch_index' must be a Tensor, got {}".format(type(branch_index)))
    if not branch_index.dtype.is_integer:
        raise TypeError("'branch_index' must be an integer Tensor, got {}".format(
            branch_index.dtype))
    if not branch_fns:
        raise ValueError("Must provide at least one item in 'branch_fns'")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("'branch_fns' must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = list(branch_fns.items())
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for pair in branch_fns:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in 'branch_fns' must be a 2-tuple. Received {pair}.")
        key, fn = pair
        if not isinstance(key, int):
            raise TypeError("key must be a Python `int`, got {}".format(type(key)))
        if not callable(fn):
            raise TypeError("fn for key {} must be callable.".format(key))
    keys = [p[0] for p in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError("branch indices (keys) must form contiguous range of [0 to {}) but "
                         "found {{{}}}".format(len(keys), ",".join(map(str, sorted(keys)))))
    actions = [p[1] for p in sorted(branch_fns, key=lambda p: p[0])]
    if default is not None:
        actions.append(default)
    return actions


def _most_specific(shapes):
    first = shapes[0]
    if any(s.rank != first.rank for s in shapes) or first.rank is None:
        return TensorShape(None)
    dims = []
    for i in range(first.rank):
        values = {s.dims[i].value if hasattr(s.dims[i], "value") else s.dims[i]
                  for s in shapes}
        dims.append(values.pop() if len(values) == 1 else None)
    return TensorShape(dims)


def _build_branches(fns, graph, scope):
    """One FuncGraph per branch; then every branch takes the union of what any branch
    captured, in one order, as its inputs."""
    uid = next(_uids)
    bodies, structures = [], []
    for i, fn in enumerate(fns):
        fg = FuncGraph(f"{scope}branch{i}_{uid}".replace("/", "_"), graph)
        with fg.as_default():
            out = fn()
            fg.outputs = [identity(convert_to_tensor(o)) for o in nest.flatten(out)]
        bodies.append(fg)
        structures.append(out)
    outer = []
    for fg in bodies:
        for c in fg.captures:
            if all(c.outer is not t for t in outer):
                outer.append(c.outer)
    for fg in bodies:
        inner = {id(c.outer): c.inner for c in fg.captures}
        fg.inputs = [inner[id(t)] if id(t) in inner else
                     fg.add_input(t.dtype.base_dtype, t.shape, "unused") for t in outer]
        fg.captures, fg._capture_index = [], {}
    return bodies, structures, outer


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Runs `branch_fns[branch_index]()` (or `default`, else the last branch, for an
    index out of range) and returns its results (`tf.switch_case`).

    Raises:
      TypeError: if branch_index is not an integer Tensor or a branch is not callable.
      ValueError: if the branch keys are not 0..n-1, or the branches return different
        structures or dtypes.
    """
    fns = _canonical_branches(branch_fns, default, branch_index)
    graph = get_default_graph()
    with graph.name_scope(name) as scope:
        bodies, structures, outer = _build_branches(fns, graph, scope)
        for s in structures[1:]:
            nest.assert_same_structure(structures[0], s, check_types=False)
        out_dtypes = [t.dtype.base_dtype for t in bodies[0].outputs]
        for i, fg in enumerate(bodies[1:], 1):
            other = [t.dtype.base_dtype for t in fg.outputs]
            if other != out_dtypes:
                raise TypeError(f"branch {i} returns dtypes {[d.name for d in other]} but "
                                f"branch 0 returns {[d.name for d in out_dtypes]}")
        shapes = [_most_specific([fg.outputs[k].shape for fg in bodies])
                  for k in range(len(out_dtypes))]
        op_type = "Case" if any(fg.is_stateful() for fg in bodies) else "StatelessCase"
        op = apply_op(op_type, branch_index=branch_index, input=list(outer), Tout=out_dtypes,
                      branches=bodies, output_shapes=shapes, name="indexed_case")
        with graph.name_scope(op.name + "/"):
            results = [identity(t) for t in op.outputs]
    if not results:
        return op
    return nest.pack_sequence_as(structures[0], results)
