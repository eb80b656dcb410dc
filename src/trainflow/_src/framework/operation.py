"""`Operation`: a node of a Graph that consumes and produces tensors."""
import os
import sys

from trainflow._src.framework import session_stack
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.device_spec import canonical_name
from trainflow._src.framework.attr_value import attr_for_get_attr

# The trainflow package (two floors up: _src/framework/): frames inside it are not the user's.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def user_frame():
    """(filename, lineno, function) of the innermost caller outside trainflow."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(_PACKAGE_DIR):
        f = f.f_back
    if f is None:
        return ("<unknown>", 0, "<unknown>")
    return (f.f_code.co_filename, f.f_lineno, f.f_code.co_name)


class Operation:
    """A graph node: its type, inputs, attrs, outputs and where it was created."""

    __slots__ = ("_graph", "_name", "_type", "_inputs", "_outputs", "_control_inputs",
                 "_attrs", "_device", "_id", "_info", "_frame", "_control_outputs",
                 "_colocation", "_cond_context", "_attr_protos", "__weakref__")

    def __init__(self, graph, name, op_type, inputs, output_types, output_shapes, attrs,
                 info, op_id):
        self._graph = graph
        self._name = name
        self._type = op_type
        self._inputs = list(inputs)
        self._attrs = attrs
        self._info = info
        self._id = op_id
        self._device = ""
        self._control_inputs = []
        self._control_outputs = []
        self._colocation = None
        self._cond_context = None
        # name -> (value, AttrValue) for attrs imported from a GraphDef, so export writes
        # back TF's exact encoding (e.g. a splat `float_val: 0`) while the value is unchanged.
        self._attr_protos = None
        self._frame = user_frame()
        self._outputs = [Tensor(self, i, dt, sh)
                         for i, (dt, sh) in enumerate(zip(output_types, output_shapes))]
        for t in self._inputs:
            t._consumers.append(self)

    # -- identity -------------------------------------------------------------
    @property
    def name(self):
        """The op's unique name in its graph."""
        return self._name

    @property
    def type(self):
        """The op type, e.g. "MatMul"."""
        return self._type

    @property
    def graph(self):
        return self._graph

    @property
    def inputs(self):
        """The input tensors, in order."""
        return tuple(self._inputs)

    @property
    def outputs(self):
        """The output tensors, in order."""
        return list(self._outputs)

    def values(self):
        """The outputs as a tuple."""
        return tuple(self._outputs)

    @property
    def control_inputs(self):
        """Operations that must run before this one."""
        return list(self._control_inputs)

    @property
    def _control_outputs_list(self):
        return list(self._control_outputs)

    @property
    def device(self):
        """The device string ("" when unplaced)."""
        return self._device

    @property
    def op_def(self):
        """The parsed signature of this op type."""
        return self._info.op_def if self._info is not None else None

    @property
    def traceback(self):
        """[(filename, lineno, function)] of the user code that created the op."""
        return [self._frame]

    @property
    def creation_site(self):
        """"file:line" of the user code that created the op."""
        return f"{self._frame[0]}:{self._frame[1]}"

    @property
    def node_def(self):
        """The NodeDef proto describing this op."""
        # lazy: keeps protobuf out of `import trainflow`
        from trainflow._src.framework.graph_export import node_def_of
        return node_def_of(self)

    # -- attrs ------------------------------------------------------------------
    def get_attr(self, name):
        """The value of attr `name` as TF returns it (DType, TensorShapeProto, bytes...).

        Raises:
          ValueError: if the op has no such attr.
        """
        if name not in self._attrs:
            raise ValueError(f"Operation '{self._name}' has no attr named '{name}'.")
        # lazy: keeps protobuf out of `import trainflow`
        return attr_for_get_attr(self, name)

    def _get_attr_value(self, name, default=None):
        """The raw Python value of an attr (no proto conversion)."""
        return self._attrs.get(name, default)

    def _set_attr(self, name, value):
        self._attrs[name] = value

    def _set_device(self, device):
        self._device = canonical_name(device)

    def colocation_groups(self):
        """The `loc:@name` groups this op is colocated with (itself by default)."""
        groups = self._attrs.get("_class")
        if groups:
            return [g if isinstance(g, bytes) else g.encode() for g in groups]
        return [b"loc:@" + self._name.encode()]

    # -- mutation used by graph utilities ------------------------------------------
    def _add_control_input(self, op):
        if not isinstance(op, Operation):
            raise TypeError(f"op must be an Operation: {op!r}")
        if op not in self._control_inputs:
            self._control_inputs.append(op)
            op._control_outputs.append(self)
            self._graph._version_bump()

    def _add_control_inputs(self, ops):
        for op in ops:
            self._add_control_input(op)

    def _remove_all_control_inputs(self):
        for op in self._control_inputs:
            op._control_outputs.remove(self)
        self._control_inputs = []
        self._graph._version_bump()

    def _update_input(self, index, tensor):
        old = self._inputs[index]
        old._consumers.remove(self)
        self._inputs[index] = tensor
        tensor._consumers.append(self)
        self._graph._version_bump()

    # -- running ----------------------------------------------------------------
    def run(self, feed_dict=None, session=None):
        """Runs this op in `session` (default: the default session)."""
        session_stack.run_using_default_session(self, feed_dict, self._graph, session)

    def __repr__(self):
        return f"<tf.Operation '{self._name}' type={self._type}>"

    def __str__(self):
        try:
            # lazy: keeps protobuf out of `import trainflow`
            from google.protobuf import text_format
            return text_format.MessageToString(self.node_def)
        except Exception:  # noqa: BLE001 - str() must not fail
            return repr(self)
