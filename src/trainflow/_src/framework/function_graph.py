"""Function graphs: the separate Graphs that hold a while_loop's cond and body.

A `FuncGraph` starts with one Placeholder per argument. Ops built in it may use
tensors of enclosing graphs: each such tensor is *captured*, i.e. replaced by a
new Placeholder of the function graph, and recorded in `captures` so that the
op that calls the function passes the outer value in. Refs (ref variables) are
captured twice over if needed: as a ref placeholder, fed with the variable
itself, for ops that take a ref (Assign, ...), and as a value placeholder, fed
with the variable's current buffer, for ops that read it. Control inputs from
outer graphs are recorded in `control_captures` and become control inputs of
the calling op.

The FunctionDefs of function graphs are `graph_export`'s.
"""

from trainflow._src.framework import registry
from trainflow._src.framework.graph import Graph
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.tensor import Tensor

VALUE, REF, DEREF = "value", "ref", "deref"


def _ref_arg_flags(info, attrs, n_inputs):
    """For each input of an op, whether its argument is declared Ref(...)."""
    if info is None:
        return [False] * n_inputs
    flags = []
    for arg in info.op_def.inputs:
        try:
            count = arg.flat_count(attrs)
        except KeyError:  # an attr not set yet: the argument holds nothing so far
            count = 0
        flags.extend([arg.is_ref] * count)
    flags.extend([False] * (n_inputs - len(flags)))
    return flags[:n_inputs]


class Capture:
    """One captured outer tensor: `outer` is passed in and read inside as `inner`."""

    __slots__ = ("outer", "inner", "mode")

    def __init__(self, outer, inner, mode):
        self.outer = outer
        self.inner = inner
        self.mode = mode


class FuncGraph(Graph):
    """A Graph holding a function body, built inside `outer_graph`.

    Attributes:
      name: the function's name (unique in the process, e.g. "while_body_3").
      outer_graph: the graph the function is called from.
      inputs: the argument placeholders, in signature order.
      outputs: the result tensors.
      captures: Capture records for outer tensors used inside, in capture order.
      control_captures: outer Operations used as control inputs inside.
    """

    def __init__(self, name, outer_graph):
        super().__init__()
        self.name = name
        self.outer_graph = outer_graph
        self.inputs = []
        self.outputs = []
        self.captures = []
        self.control_captures = []
        self._capture_index = {}
        # Outer tensor -> its position among the calling op's captured inputs, and
        # those tensors in order (set by the op that calls the function).
        self.external_index = {}
        self.external_order = None
        # A loop body returns its captured inputs unchanged (TF's While signature).
        self.passes_captures_through = False
        # Collections are shared with the outer graph (as TF's while_v2 does), so
        # variable scopes and stores resolve to the outer graph's variables.
        self._collections = outer_graph._collections
        self._seed = outer_graph._seed
        self._state.device_functions = list(outer_graph._state.device_functions)

    @property
    def building_function(self):
        return True

    # -- arguments and captures ------------------------------------------------------
    def _new_placeholder(self, dtype, shape, name):
        """A Placeholder at the top of this graph, outside any scope or context."""
        state = self._state
        saved = (state.name_stack, state.cond_context, state.control_dependencies,
                 state.colocation_stack)
        state.name_stack, state.cond_context = "", None
        state.control_dependencies, state.colocation_stack = [], []
        try:
            op = self._create_op_internal(
                "Placeholder", [], [dtype], name, {"dtype": dtype, "shape": shape},
                registry.get("Placeholder"), compute_device=False)
        finally:
            (state.name_stack, state.cond_context, state.control_dependencies,
             state.colocation_stack) = saved
        return op._outputs[0]

    def add_input(self, dtype, shape, name="placeholder"):
        """Appends an argument placeholder; returns its tensor."""
        t = self._new_placeholder(dtype.base_dtype, shape, name)
        self.inputs.append(t)
        return t

    def capture(self, tensor, as_ref=False):
        """The tensor of this graph standing for `tensor` of an enclosing graph.

        Args:
          tensor: a Tensor of this graph or of an enclosing graph.
          as_ref: the consumer takes a ref (only meaningful for ref tensors).

        Raises:
          ValueError: if `tensor` belongs to an unrelated graph.
        """
        if tensor.graph is self:
            return tensor
        source = tensor
        if tensor.graph is not self.outer_graph:
            if not isinstance(self.outer_graph, FuncGraph):
                raise ValueError(f"Tensor {tensor.name} must be from the same graph as the "
                                 f"function graph '{self.name}' or one of its outer graphs.")
            source = self.outer_graph.capture(tensor, as_ref=as_ref)
        if source.dtype._is_ref_dtype:
            mode = REF if as_ref else DEREF
        else:
            mode = VALUE
        key = (source, mode)
        found = self._capture_index.get(key)
        if found is not None:
            return found
        dtype = source.dtype if mode == REF else source.dtype.base_dtype
        base = source.op.name.replace("/", "_")
        inner = self._new_placeholder(dtype, source.shape, base + ("_ref" if mode == REF else ""))
        self.captures.append(Capture(source, inner, mode))
        self._capture_index[key] = inner
        return inner

    # -- graph hooks -----------------------------------------------------------------
    def _create_op_internal(self, op_type, inputs, dtypes, name, attrs, info,
                            compute_device=True):
        if any(t._op._graph is not self for t in inputs):
            flags = _ref_arg_flags(info, attrs, len(inputs))
            inputs = [t if t._op._graph is self else self.capture(t, as_ref=flag)
                      for t, flag in zip(inputs, flags)]
        return super()._create_op_internal(op_type, inputs, dtypes, name, attrs, info,
                                           compute_device=compute_device)

    def control_dependencies(self, control_inputs):
        """As Graph.control_dependencies; outer-graph inputs go to `control_captures`."""
        if control_inputs is None:
            return super().control_dependencies(None)
        inner = []
        for c in control_inputs:
            element = c
            if not isinstance(c, (Tensor, Operation)):
                conv = getattr(c, "_as_graph_element", None)
                if callable(conv):
                    element = conv()
                elif hasattr(c, "op") and isinstance(c.op, Operation):
                    element = c.op
            op = element.op if isinstance(element, Tensor) else element
            if isinstance(op, Operation) and op._graph is not self:
                if op not in self.control_captures:
                    self.control_captures.append(op)
            else:
                inner.append(c)
        return super().control_dependencies(inner)

    def is_stateful(self):
        """True if any op of this graph has side effects."""
        return any(op._info is not None and op._info.stateful for op in self._nodes_by_id)

    def __repr__(self):
        return f"<trainflow FuncGraph '{self.name}'>"
