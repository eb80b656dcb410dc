"""Gradient of the functional While / StatelessWhile op (`tf.while_loop`).

Design. The gradient of a loop is the gradient of its body, applied once per
iteration in reverse order, with the gradients of captured (loop-invariant)
tensors summed over the iterations. It is built from three pieces:

1. A gradient function graph, built once per forward op: a FuncGraph nested in
   the body graph (`_BodyGradGraph`) whose arguments are the gradients of the
   body's outputs, and in which `tf.gradients` of the body outputs with respect
   to the body's inputs and captured tensors is taken. Every forward body tensor
   that those gradient ops read (an activation, a loop value, a nested loop's
   output) is captured into this graph as a placeholder.
2. Recording: from then on the forward While op keeps, in each iteration, the
   values of exactly those body tensors (ops/control_flow/while_records.py). It reuses
   them in the backward pass, so nothing in the body runs twice: random ops
   (dropout) and other stateful ops inside the loop see one execution, and the
   gradient uses the values the forward pass really computed.
3. A `WhileGrad` op in the calling graph. It takes the loop's first output (its
   handle to the run's record) and the gradients of the loop outputs, runs the
   gradient graph once per recorded iteration, last iteration first, feeding the
   recorded values, and returns the gradients of the loop's initial values and
   of its captured inputs (for a captured variable, the variable gets it).

Tensors built inside a cond branch of the body may be DEAD in a recorded
iteration. The gradient graph reads such captured values through a Switch on a
constant true predicate, so the executor propagates DEAD into the untaken
branch's gradient ops and skips them, as it does for a cond outside a loop.

A loop nested in a body works the same way one level down: its WhileGrad op sits
in the outer loop's gradient graph, and the values it needs are recorded by the
outer loop in each outer iteration.

`back_prop=False` puts StopGradient on the loop outputs (ops/control_flow/while_loop.py), so no
gradient is built. Limits: WhileGrad is a trainflow op (TensorFlow cannot run a
GraphDef holding one). Its record layout is not serialized: `tf.train.import_meta_graph`
rebuilds it from the imported loop, whose captures became loop values
(train/meta_graph_io.py), while one imported by a bare `import_graph_def` cannot run;
second derivatives through a loop are not supported
(WhileGrad also takes the loop outputs as inputs, so that `tf.gradients` reaches
it from the loop's inputs and its gradient function raises LookupError, rather
than silently missing the terms that flow through the recorded values).
"""
import itertools

import numpy as np

from trainflow._src.framework import errors, tensor_util
from trainflow._src.framework.indexed_slices import IndexedSlices
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.registry import RegisterGradient, register_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.control_flow import while_records
from trainflow._src.framework.function_graph import DEREF, FuncGraph
from trainflow._src.framework.graph_walk import topological_order
from trainflow._src.framework.kernel_context import DEAD, MERGE_TYPES, SWITCH_TYPES, RefSlot
from trainflow._src.ops.array import create
from trainflow._src.ops.math import arith
from trainflow._src.framework.constant_op import constant
from trainflow._src.gradients.gradients_impl import gradients

_grad_ids = itertools.count(1)


def _trainable(t):
    base = t.dtype.base_dtype
    # variant: TensorLists (TensorArrays) carry gradients of their elements.
    return base.is_floating or base.is_complex or base.name == "variant"


def _possibly_dead_ops(graph):
    """The ops of `graph` whose outputs can be DEAD when it runs: Switches and what
    depends on them, except Merges with a live input (the executor's rule)."""
    dead = set()
    for op in topological_order(graph._nodes_by_id):
        if op.type in SWITCH_TYPES:
            dead.add(op)
            continue
        from_inputs = [t.op in dead for t in op.inputs]
        if op.type in MERGE_TYPES:
            maybe = bool(from_inputs) and all(from_inputs)
        else:
            maybe = any(from_inputs)
        if maybe or any(c in dead for c in op.control_inputs):
            dead.add(op)
    return dead


class _BodyGradGraph(FuncGraph):
    """The gradient graph of a loop body: a FuncGraph inside the body graph.

    Body tensors that may be DEAD (inside a cond branch) are read through a gate, a
    Switch on a constant true predicate: the executor treats values fed to a plan
    as live, but the output of a Switch as possibly dead.
    """

    def __init__(self, name, body):
        super().__init__(name, body)
        self._may_be_dead = _possibly_dead_ops(body)
        self._gates = {}
        self._true = None

    def capture(self, tensor, as_ref=False):
        inner = super().capture(tensor, as_ref=as_ref)
        if (inner is tensor or inner.dtype._is_ref_dtype or
                tensor.op not in self._may_be_dead):
            return inner
        gate = self._gates.get(inner)
        if gate is None:
            with self.as_default(), self.control_dependencies(None):
                if self._true is None:
                    self._true = constant(True, name="live")
                gate = apply_op("Switch", data=inner, pred=self._true,
                                name="gate").outputs[1]
            self._gates[inner] = gate
        return gate


class _GradSpec:
    """How one forward While op is differentiated.

    Attributes:
      forward_op: the While op.
      graph: the _BodyGradGraph. Arguments: one gradient per entry of
        `loop_positions`; outputs: the gradients of those loop inputs, then of
        each body capture in `captures`.
      loop_positions: indices of the trainable loop values (op inputs/outputs).
      captures: the body's trainable Capture records.
      capture_positions: for each of `captures`, the op input it is fed from.
      external_positions: the op inputs (captured outer tensors) that get a
        gradient, sorted; WhileGrad outputs one per entry after the loop values.
      feeds: for each capture of `graph`: (True, index into an iteration's
        recorded values) or (False, the body capture placeholder whose per-run
        value it takes), plus whether a variable's value is read.
    """

    def __init__(self, op):
        body = op._attrs["body"]
        self.forward_op = op
        n = len(body.outputs)
        self.loop_positions = [j for j in range(n)
                               if _trainable(body.inputs[j]) and _trainable(body.outputs[j])]
        self.captures = [c for c in body.captures if _trainable(c.inner)]
        self.capture_positions = [n + body.external_index[c.outer] for c in self.captures]
        self.external_positions = sorted(set(self.capture_positions))
        self.graph = self._build_graph(op, body)
        self.graph.while_grad_spec = self
        invariant = {c.inner for c in body.captures}
        recorded, self.feeds = [], []
        for c in self.graph.captures:
            if c.outer in invariant:
                self.feeds.append((False, c.outer, c.mode == DEREF))
            else:
                self.feeds.append((True, len(recorded), c.mode == DEREF))
                recorded.append(c.outer)
        self.recorded = recorded

    def _build_graph(self, op, body):
        n_captures = len(body.captures)
        graph = _BodyGradGraph(f"{body.name}_grad_{next(_grad_ids)}", body)
        with graph.as_default():
            grad_ys = [graph.add_input(body.outputs[j].dtype.base_dtype, body.inputs[j].shape,
                                       f"grad_{j}") for j in self.loop_positions]
            ys = [body.outputs[j] for j in self.loop_positions]
            xs = [body.inputs[j] for j in self.loop_positions] + \
                [c.inner for c in self.captures]
            grads = gradients(ys, xs, grad_ys=grad_ys) if ys else [None] * len(xs)
            outputs = []
            for grad, x in zip(grads, xs):
                if grad is None:
                    grad = create.zeros_like(x, dtype=x.dtype.base_dtype)
                elif isinstance(grad, IndexedSlices):
                    grad = convert_to_tensor(grad)
                outputs.append(grad)
            graph.outputs = outputs
        if len(body.captures) != n_captures:
            raise ValueError(f"The gradient of while loop {op.name} reads tensors from outside "
                             "the loop body, which the loop does not pass in")
        return graph

    def output_dtypes_and_shapes(self):
        """(dtypes, shapes) of the WhileGrad outputs."""
        op = self.forward_op
        positions = self.loop_positions + self.external_positions
        return ([op.inputs[i].dtype.base_dtype for i in positions],
                [op.inputs[i].shape for i in positions])


def gradient_spec(op):
    """The _GradSpec of While op `op`, built (and the op set recording) on first use.

    Raises:
      LookupError: if the loop's body has no FuncGraph, or an op on a path through
        the body has no gradient.
    """
    body = op._attrs["body"]
    if not isinstance(body, FuncGraph):
        raise LookupError(f"No gradient for while loop {op.name}: its body function was "
                          "not built in this process")
    # Specs live on the body graph (several imported loops may share one body).
    specs = body.__dict__.setdefault("_while_grad_specs", {})
    spec = specs.get(op)
    if spec is None:
        spec = specs[op] = _GradSpec(op)
        while_records.start_recording(op, spec.recorded)
    return spec


class _BackwardRunner:
    """Runs the gradient graph of one WhileGrad op over a recorded loop run."""

    def __init__(self, ctx):
        op = ctx.op
        self.ctx = ctx
        graph = op._attrs["grad_body"]
        spec = getattr(graph, "while_grad_spec", None)
        if spec is None:
            raise errors.UnimplementedError(
                None, op, f"WhileGrad op {op.name} was not built in this process: the record "
                          "layout of its forward loop is unknown")
        self.spec = spec
        # An imported WhileGrad runs the gradient graph rebuilt for its imported loop, whose
        # captures became loop values (train/meta_graph_io.py links them up).
        graph = spec.graph
        self.plan = ctx.make_callable(graph.outputs,
                                      list(graph.inputs) + [c.inner for c in graph.captures])
        # The loop values given gradients: where the gradient was built, all of
        # spec.loop_positions; for an imported loop, those of the original loop.
        self._given = getattr(op._attrs["grad_body"], "imported_loop_positions", None) or \
            spec.loop_positions

    def _loop_grads(self, grads):
        """The incoming gradient of every differentiated loop value: those given, zeros
        for loop values that were captured tensors where the gradient was built."""
        spec = self.spec
        if self._given == spec.loop_positions:
            return list(grads)
        given = dict(zip(self._given, grads))
        out = []
        for j in spec.loop_positions:
            g = given.get(j)
            if g is None:
                t = spec.forward_op.inputs[j]
                if not t.shape.is_fully_defined():
                    raise errors.UnimplementedError(
                        None, spec.forward_op, f"while_loop gradient of imported loop "
                        f"{spec.forward_op.name}: loop value {j} has no static shape")
                g = np.zeros(t.shape.as_list(), dtype=t.dtype.base_dtype.as_numpy_dtype)
            out.append(g)
        return out

    def _feed(self, grads, values, record):
        feed = list(grads)
        for from_iteration, source, deref in self.spec.feeds:
            value = values[source] if from_iteration else record.captures[source]
            if deref and isinstance(value, RefSlot):
                value = value.get()
            feed.append(value)
        return feed

    def run(self, first_output, grads):
        spec = self.spec
        record = while_records.find_record(first_output, spec.forward_op.name)
        n_loop = len(spec.loop_positions)
        loop_grads = self._loop_grads(grads)
        capture_grads = [None] * len(spec.captures)
        state = self.ctx.run_state
        for values in reversed(record.iterations):
            state.check()
            outs = self.plan(self._feed(loop_grads, values, record))
            if any(v is DEAD for v in outs):
                raise errors.InvalidArgumentError(
                    None, None, f"while_loop gradient of {spec.forward_op.name}: the body "
                                "gradient produced no value (an untaken conditional branch)")
            loop_grads = outs[:n_loop]
            for i, g in enumerate(outs[n_loop:]):
                capture_grads[i] = g if capture_grads[i] is None else capture_grads[i] + g
        external = {}
        for capture, position, grad in zip(spec.captures, spec.capture_positions,
                                           capture_grads):
            if grad is None:
                value = record.captures[capture.inner]
                value = value.get() if isinstance(value, RefSlot) else value
                grad = np.zeros_like(np.asarray(value),
                                     dtype=capture.inner.dtype.base_dtype.as_numpy_dtype)
            external[position] = grad if position not in external else external[position] + grad
        out = loop_grads + [external[p] for p in spec.external_positions]
        if not out:
            return None
        return out[0] if len(out) == 1 else tuple(out)


def _while_grad_kernel(first_output, loop_outputs, grads, *, ctx):
    del loop_outputs  # inputs only so that differentiating this op is refused
    runner = ctx.state.get("runner")
    if runner is None:
        runner = ctx.state["runner"] = _BackwardRunner(ctx)
    return runner.run(first_output, grads)


def _while_grad_shape(op):
    shapes = op._attrs.get("output_shapes")
    return list(shapes) if shapes else None


register_op("WhileGrad",
            inputs=["first_output: Tkey", "loop_outputs: Tloop", "grads: Tgrads"],
            outputs=["output: Tout"],
            attrs=["Tkey: type", "Tloop: list(type) >= 0", "Tgrads: list(type) >= 0",
                   "Tout: list(type) >= 0", "grad_body: func",
                   "output_shapes: list(shape) = []"],
            shape_fn=_while_grad_shape, kernel=_while_grad_kernel, stateful=True,
            output_aliases_input=True)


@RegisterGradient("WhileGrad")
def _while_grad_grad(op, *grads):
    """Refuses second derivatives: a WhileGrad depends on its loop's inputs through the
    recorded values too, which no gradient of its own inputs can account for."""
    raise LookupError(
        f"No gradient defined for operation '{op.name}' (op type: WhileGrad): second "
        "derivatives through tf.while_loop are not supported")


def _dense(grad):
    return convert_to_tensor(grad) if isinstance(grad, IndexedSlices) else grad


@RegisterGradient("While")
def _while_grad(op, *grads):
    """Gradients of a While op's inputs: loop initial values and captured tensors."""
    spec = gradient_spec(op)
    result = [None] * len(op.inputs)
    if not spec.loop_positions and not spec.external_positions:
        return result
    grad_ys = []
    for j in spec.loop_positions:
        g = grads[j]
        grad_ys.append(create.zeros_like(op.outputs[j]) if g is None else _dense(g))
    out_dtypes, out_shapes = spec.output_dtypes_and_shapes()
    # The loop outputs make this op reachable from the loop's inputs, so that taking
    # a second derivative through it fails loudly instead of missing terms.
    loop_outputs = [op.outputs[j] for j in spec.loop_positions]
    grad_op = apply_op("WhileGrad", first_output=op.outputs[0], loop_outputs=loop_outputs,
                       grads=grad_ys,
                       Tout=out_dtypes, grad_body=spec.graph, output_shapes=out_shapes,
                       name="while_grad")
    externals = set(spec.external_positions)
    for j, g in zip(spec.loop_positions + spec.external_positions, grad_op.outputs):
        through = grads[j] if j in externals else None
        if through is not None and not _is_zero(through):
            # The loop also returns the captured tensor unchanged (an output whose
            # gradient was only filled in with zeros adds nothing).
            if g.dtype.base_dtype.name == "variant":  # TensorList gradients sum by AddN
                g = arith.add_n([g, through])
            else:
                g = arith.add(g, _dense(through))
        result[j] = g
    return result


def _is_zero(grad):
    """True if `grad` is statically all zeros."""
    if isinstance(grad, IndexedSlices):
        return False
    value = tensor_util.constant_value(grad)
    return value is not None and not np.any(value)


RegisterGradient("StatelessWhile")(_while_grad)
