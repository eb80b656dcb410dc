"""`tf.while_loop` as one functional op, TensorFlow's `While` / `StatelessWhile`.

Representation. `while_loop(cond, body, loop_vars)` builds two function graphs
(ops/function_graph.FuncGraph), `while_cond_<n>` and `while_body_<n>`, and one op
in the calling graph, as TensorFlow's while_v2 does:

  while/loop_counter (Const 0), while/maximum_iterations (Const, -1 = no limit)
  while = While(loop_counter, maximum_iterations, *flat loop vars, *captures)
          attrs: T, cond, body (the FuncGraph objects), output_shapes,
                 parallel_iterations, _num_original_outputs
  while/Identity, while/Identity_1, ... one per While output

Both function graphs take (counter, max, *loop vars) as arguments; tensors of
outer graphs that they use are captured and passed as the trailing inputs. The
body returns (counter + 1, max, *new loop vars); with `maximum_iterations` the
cond graph is `counter < max && cond(...)`. The op is `While` when either graph
holds a stateful op, else `StatelessWhile`.

Execution. The kernel compiles the two graphs once per session (through
`ctx.make_callable`, so the runtime's planner and backend) and loops: run cond, stop
when false, else run body and carry its outputs. Captured ref variables reach the body
as the variables themselves, so assignments inside the loop update them in place. Ops
of a graph that no output depends on are not run (TF1 graph semantics; use control
dependencies).

Gradients. Once `tf.gradients` has differentiated a loop, its op also records,
per iteration, the body values the gradient reads (ops/control_flow/while_grad.py explains the
design, ops/control_flow/while_records.py the record).

The function graphs are reachable from the op as `op._attrs["cond"]` and
`op._attrs["body"]` (see `graph_export.to_function_defs` for FunctionDefs).
"""
import itertools
import threading

from trainflow._src.framework import dtypes, errors, registry
from trainflow._src.framework.graph import _get_graph_from_inputs, get_default_graph
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import register_op
from trainflow._src.framework.scopes import control_dependencies
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.framework import nest
from trainflow._src.ops.control_flow import while_records
from trainflow._src.framework.function_graph import DEREF, REF, FuncGraph
from trainflow._src.framework.kernel_context import DEAD, RefSlot

_fn_ids = itertools.count(1)


class _RefScopes(threading.local):
    """Per thread: the variables fed to the ref placeholders of the function graphs
    now running, innermost last (a nested loop finds its outer loop's variables)."""

    def __init__(self):
        self.stack = []


_ref_scopes = _RefScopes()


def _variable_behind(tensor, ctx):
    """The VariableSlot that ref `tensor` refers to.

    Ref-producing ops (Assign, RefSwitch, RefIdentity, ...) forward their first
    input's ref, so the walk ends at the variable op or at a ref placeholder of a
    function graph that an enclosing loop is running.

    Raises:
      InvalidArgumentError: if no variable is found.
    """
    t = tensor
    while True:
        op = t.op
        if op.type in ("VariableV2", "Variable"):
            return ctx.variable(op)
        if op.type == "Placeholder" and isinstance(op.graph, FuncGraph):
            for scope in reversed(_ref_scopes.stack):
                if t in scope:
                    return scope[t]
            break
        if not op._inputs or not op._inputs[0].dtype._is_ref_dtype:
            break
        t = op._inputs[0]
    raise errors.InvalidArgumentError(
        None, None, f"while_loop: cannot find the variable that ref tensor {tensor.name} "
                    "refers to")


class _LoopRunner:
    """The compiled cond and body of one While op in one session."""

    def __init__(self, ctx):
        op = ctx.op
        self.ctx = ctx
        self.cond_graph = op._attrs["cond"]
        self.body_graph = op._attrs["body"]
        if not isinstance(self.cond_graph, FuncGraph) or not isinstance(self.body_graph,
                                                                        FuncGraph):
            raise errors.UnimplementedError(
                None, op, f"While op {op.name} refers to functions that were not built "
                          "in this process")
        self.n_loop = len(self.body_graph.outputs)
        # Inputs that are refs (captured variables): the kernel gets their values,
        # the loop needs the variables themselves.
        self.ref_inputs = [(i, t) for i, t in enumerate(op._inputs)
                           if i >= self.n_loop and t.dtype._is_ref_dtype]
        self.cond_feeds = self._feed_spec(self.cond_graph)
        self.body_feeds = self._feed_spec(self.body_graph)
        self.cond_refs = [(t, i) for t, i, mode in self.cond_feeds if mode == REF]
        self.body_refs = [(t, i) for t, i, mode in self.body_feeds if mode == REF]
        self.cond_plan = ctx.make_callable(self.cond_graph.outputs,
                                           [t for t, _, _ in self.cond_feeds])
        self.body_plan = ctx.make_callable(self.body_graph.outputs,
                                           [t for t, _, _ in self.body_feeds])
        self.op = op
        self._recording = None  # (recorded tensors, body plan that also fetches them)

    def _feed_spec(self, fg):
        """(placeholder, index into the op's inputs, mode) for each argument."""
        spec = [(t, i, "value") for i, t in enumerate(fg.inputs)]
        for c in fg.captures:
            spec.append((c.inner, self.n_loop + fg.external_index[c.outer], c.mode))
        return spec

    @staticmethod
    def _feed_values(spec, values):
        return [values[index].get() if mode == DEREF else values[index]
                for _, index, mode in spec]

    def _run_plan(self, plan, spec, refs, values):
        if not refs:
            return plan(self._feed_values(spec, values))
        _ref_scopes.stack.append({t: values[i] for t, i in refs})
        try:
            return plan(self._feed_values(spec, values))
        finally:
            _ref_scopes.stack.pop()

    def _recording_plan(self, tensors):
        """The body plan that also fetches `tensors` (built once per tensor list)."""
        if self._recording is None or self._recording[0] is not tensors:
            plan = self.ctx.make_callable(list(self.body_graph.outputs) + tensors,
                                          [t for t, _, _ in self.body_feeds])
            self._recording = (tensors, plan)
        return self._recording[1]

    def run(self, inputs):
        values = list(inputs)
        for index, tensor in self.ref_inputs:
            values[index] = _variable_behind(tensor, self.ctx)
        n = self.n_loop
        state = self.ctx.run_state
        recorded = while_records.recorded_tensors(self.op)
        body_plan = self.body_plan
        if recorded is not None:
            body_plan = self._recording_plan(recorded)
            iterations = []
        while True:
            pred = self._run_plan(self.cond_plan, self.cond_feeds, self.cond_refs, values)[0]
            if not pred:
                break
            state.check()
            new = self._run_plan(body_plan, self.body_feeds, self.body_refs, values)
            if recorded is not None:
                iterations.append(new[n:])
                new = new[:n]
            if any(v is DEAD for v in new):
                raise errors.InvalidArgumentError(
                    None, None, "while_loop body produced no value for a loop variable (it "
                                "comes from an untaken branch of a conditional)")
            values[:n] = new
        result = [v.get() if isinstance(v, RefSlot) else v for v in values]
        if recorded is not None:
            captures = {t: values[i].get() if mode == DEREF else values[i]
                        for t, i, mode in self.body_feeds[n:]}
            result[0] = while_records.file_record(
                result[0], while_records.LoopRecord(iterations, captures))
        return tuple(result)


def _while_kernel(input, *, ctx):  # noqa: A002 - TF's argument name
    runner = ctx.state.get("runner")
    if runner is None:
        runner = ctx.state["runner"] = _LoopRunner(ctx)
    return runner.run(input)


def _while_shape(op):
    shapes = op._attrs.get("output_shapes")
    if shapes:
        return list(shapes)
    return [t._shape for t in op._inputs]


for _type, _stateful in (("While", True), ("StatelessWhile", False)):
    register_op(_type, inputs=["input: T"], outputs=["output: T"],
                attrs=["T: list(type) >= 0", "cond: func", "body: func",
                       "output_shapes: list(shape) = []", "parallel_iterations: int = 10"],
                shape_fn=_while_shape, kernel=_while_kernel, stateful=_stateful,
                output_aliases_input=True)


def _shape_less_equal(shape1, shape2):
    """True if `shape1` is at least as specific as `shape2` and agrees with it."""
    if shape2.rank is None:
        return True
    if shape1.rank != shape2.rank:
        return False
    return all(d2 is None or d1 == d2 for d1, d2 in zip(shape1._dims, shape2._dims))


def _invariants(flat_vars, loop_vars, shape_invariants):
    if shape_invariants is None:
        return [t.shape for t in flat_vars]
    nest.assert_same_structure(loop_vars, shape_invariants, check_types=False)
    out = []
    for t, shape in zip(flat_vars, nest.flatten(shape_invariants)):
        if shape is None:
            shape = t.shape
        elif not isinstance(shape, TensorShape):
            raise TypeError("'shape' must be one of TypeSpec, TensorShape or None. "
                            f"Received: {type(shape)}")
        if not _shape_less_equal(t.shape, shape):
            raise ValueError(
                f"The shape invariant specified for {t.name} is not compatible with the "
                f"initial shape of the loop variable. It enters the loop with shape "
                f"{t.shape}, but the specified shape invariant is {shape}.")
        out.append(shape)
    return out


def _to_value(x):
    """A loop variable as a plain (non-ref) tensor of the current graph."""
    t = convert_to_tensor(x)
    if t.dtype._is_ref_dtype:
        t = apply_op("Identity", input=t).outputs[0]
    return t


def _add_args(fg, counter, max_iter, flat_vars, invariants):
    counter_arg = fg.add_input(counter.dtype, TensorShape([]), "loop_counter")
    max_arg = fg.add_input(max_iter.dtype, TensorShape([]), "maximum_iterations")
    var_args = [fg.add_input(t.dtype, shape) for t, shape in zip(flat_vars, invariants)]
    return counter_arg, max_arg, var_args


class _OuterGraphGuard:
    """Stands as the enclosing graph's cond_context while a loop function is built:
    an op landing in the enclosing graph then would run once, not every iteration,
    so it is reported instead of silently built."""

    def __init__(self, graph, fg):
        self._graph = graph
        self._fg = fg
        self.outer_context = None

    def __enter__(self):
        state = self._graph._state
        self._saved = state.cond_context
        self.outer_context = self._saved
        state.cond_context = self
        return self

    def __exit__(self, *exc):
        self._graph._state.cond_context = self._saved
        return False

    def add_op(self, op):
        raise ValueError(
            f"Op '{op.name}' ({op.type}) was added to the graph enclosing while_loop "
            f"function '{self._fg.name}' while that function was being built, so it would "
            "run once instead of once per iteration. Build loop ops from the loop "
            "variables or tensors of the loop's own graph (ops whose first input is an "
            "outer tensor need the framework to route them to the function graph).")


def _is_tensor_array(x):
    return hasattr(x, "flow") and hasattr(x, "_with_flow")


def _repack(loop_vars, flat):
    """`flat` in the structure of `loop_vars`, TensorArrays rebuilt around their new flow."""
    templates = nest.flatten(loop_vars)
    flat = [t._with_flow(v) if _is_tensor_array(t) else v for t, v in zip(templates, flat)]
    return nest.pack_sequence_as(loop_vars, flat)


def _build_cond(fg, cond, loop_vars, counter, max_iter, flat_vars, invariants, has_max):
    with fg.as_default(), _OuterGraphGuard(fg.outer_graph, fg):
        counter_arg, max_arg, var_args = _add_args(fg, counter, max_iter, flat_vars, invariants)
        packed = _repack(loop_vars, var_args)
        pred = _to_value(cond(*packed))
        if pred.dtype.base_dtype != dtypes.bool:
            raise TypeError(f"'cond' of while_loop must return a bool tensor, but returned "
                            f"{pred.name} of type {pred.dtype.base_dtype.name}.")
        if pred.shape.rank not in (None, 0):
            raise ValueError(f"'cond' of while_loop must return a scalar, but returned "
                             f"{pred.name} with shape {pred.shape}.")
        if has_max:
            in_range = apply_op("Less", x=counter_arg, y=max_arg).outputs[0]
            pred = apply_op("LogicalAnd", x=in_range, y=pred).outputs[0]
        fg.outputs = [pred]


def _build_body(fg, body, loop_vars, counter, max_iter, flat_vars, invariants):
    with fg.as_default(), _OuterGraphGuard(fg.outer_graph, fg):
        counter_arg, max_arg, var_args = _add_args(fg, counter, max_iter, flat_vars, invariants)
        packed = _repack(loop_vars, var_args)
        result = body(*packed)
        if not nest.is_nested(result):
            result = [result]
        nest.assert_same_structure(list(packed), list(result), check_types=False)
        flat_out = []
        for x in nest.flatten(result):
            if x is None:
                raise ValueError("None values not supported.")
            t = _to_value(x.flow if _is_tensor_array(x) else x)
            if t.graph is not fg:
                t = fg.capture(t)
            flat_out.append(t)
        next_counter = apply_op("AddV2", x=counter_arg, y=1, name="add").outputs[0]
        fg.outputs = [next_counter, max_arg] + flat_out
    return flat_out


def _check_body_outputs(flat_vars, flat_out, invariants):
    for var, out, shape in zip(flat_vars, flat_out, invariants):
        if var.dtype.base_dtype != out.dtype.base_dtype:
            raise TypeError(f"Loop var {var.name} enters the loop with type "
                            f"{var.dtype.base_dtype.name} but has type "
                            f"{out.dtype.base_dtype.name} after 1 iteration. {var.name} type "
                            "should remain constant.")
        if not _shape_less_equal(out.shape, shape):
            raise ValueError(
                f"Input tensor '{var.name}' enters the loop with shape {shape}, but has "
                f"shape {out.shape} after one iteration. To allow the shape to vary across "
                "iterations, use the `shape_invariants` argument of tf.while_loop to "
                "specify a less-specific shape.")


def _externals(*graphs):
    """The outer tensors captured by `graphs`, each once, in first-capture order;
    records on each graph where its captures sit among them."""
    order = {}
    for fg in graphs:
        for c in fg.captures:
            order.setdefault(c.outer, len(order))
    externals = list(order)
    for fg in graphs:
        fg.external_index = order
        fg.external_order = externals
    return externals


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, name=None, maximum_iterations=None,
               return_same_structure=False):
    """Repeats `body` while `cond` is true (`tf.while_loop`).

    Args:
      cond: callable taking the loop variables, returning a scalar bool tensor.
      body: callable taking the loop variables, returning new values of the same
        structure, dtypes and (compatible) shapes.
      loop_vars: a (nested) list/tuple/dict of tensors or Python values.
      shape_invariants: TensorShapes (same structure) the variables keep across
        iterations; defaults to their initial shapes.
      parallel_iterations: recorded on the op (iterations run one after another).
      back_prop: False stops gradients through the outputs.
      swap_memory: accepted for compatibility; has no effect.
      name: name scope (default "while").
      maximum_iterations: optional scalar int bound on the number of iterations.
      return_same_structure: always return the structure of `loop_vars`; otherwise
        a single loop variable is returned unwrapped.

    Returns:
      the loop variables after the last iteration.

    Raises:
      TypeError: for non-callable cond/body, bad parallel_iterations, a non-bool
        cond result, or a loop variable whose dtype changes.
      ValueError: for empty loop_vars, structure mismatches, or shapes that change
        without a shape invariant allowing it.
    """
    del swap_memory
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if not nest.is_nested(loop_vars):
        loop_vars = [loop_vars]
    # A TensorArray travels through the loop as its flow (TF2's while_v2 does the same).
    flat_in = [x.flow if _is_tensor_array(x) else x for x in nest.flatten(loop_vars)]
    default = get_default_graph()
    graph = default if default.building_function else _get_graph_from_inputs(flat_in)
    with graph.as_default(), graph.name_scope(name or "while") as scope:
        if not flat_in:
            raise ValueError("'loop_vars' must be provided.")
        flat_vars = [_to_value(x) for x in flat_in]
        invariants = _invariants(flat_vars, loop_vars, shape_invariants)
        has_max = maximum_iterations is not None
        if has_max:
            max_iter = convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if max_iter.shape.rank != 0:
                raise ValueError("'maximum_iterations' must be a scalar. Received shape: "
                                 f"{max_iter.shape}")
        else:
            max_iter = convert_to_tensor(-1, dtype=dtypes.int32, name="maximum_iterations")
        counter = convert_to_tensor(0, dtype=max_iter.dtype, name="loop_counter")

        prefix = scope.replace("/", "_")
        ident = next(_fn_ids)
        cond_graph = FuncGraph(f"{prefix}cond_{ident}", graph)
        body_graph = FuncGraph(f"{prefix}body_{ident}", graph)
        _build_cond(cond_graph, cond, loop_vars, counter, max_iter, flat_vars, invariants,
                    has_max)
        flat_out = _build_body(body_graph, body, loop_vars, counter, max_iter, flat_vars,
                               invariants)
        _check_body_outputs(flat_vars, flat_out, invariants)

        externals = _externals(cond_graph, body_graph)
        body_graph.passes_captures_through = True
        inputs = [counter, max_iter] + flat_vars + externals
        shapes = [TensorShape([]), TensorShape([])] + list(invariants) + \
            [t.shape for t in externals]
        stateful = cond_graph.is_stateful() or body_graph.is_stateful()
        with control_dependencies(cond_graph.control_captures + body_graph.control_captures):
            op = apply_op("While" if stateful else "StatelessWhile", input=inputs,
                          cond=cond_graph, body=body_graph, output_shapes=shapes,
                          parallel_iterations=parallel_iterations, name=scope,
                          _num_original_outputs=len(inputs), _lower_using_switch_merge=True)
        outputs = [apply_op("Identity", input=t).outputs[0] for t in op.outputs]
    results = outputs[2:2 + len(flat_vars)]
    if not back_prop and registry.is_registered("StopGradient"):
        results = [apply_op("StopGradient", input=t).outputs[0] for t in results]
    packed = _repack(loop_vars, results)
    if return_same_structure or len(results) != 1:
        return packed
    return results[0]
