"""`Graph`: ops, unique names, scopes, collections, control dependencies, devices."""
import contextlib
import re
import threading

from trainflow._src.framework import attr_scope, registry
from trainflow._src.framework.attr_value import from_attr_value
from trainflow._src.framework.device_spec import (
    apply_colocation, apply_device_functions, device_function)
from trainflow._src.framework.operation import Operation
# The default-graph stack lives with the other scopes; its functions are TF's ops module's too.
from trainflow._src.framework.scopes import (  # noqa: F401
    _DefaultGraphStack, _default_graph_stack, _get_graph_from_inputs, apply_container,
    get_default_graph, graph_container, reset_default_graph)
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import unknown_shape
from trainflow._src.framework.shape_inference import run_shape_fn

_VALID_OP_NAME_REGEX = re.compile(r"^[A-Za-z0-9.][A-Za-z0-9_.\\/>-]*$")
_VALID_SCOPE_NAME_REGEX = re.compile(r"^[A-Za-z0-9_.\\/>-]*$")


class _ThreadState(threading.local):
    """Per-thread builder state, as in TF: scopes and stacks are thread-local."""

    def __init__(self):
        self.name_stack = ""
        self.control_dependencies = []
        self.device_functions = []
        self.colocation_stack = []
        self.cond_context = None


class _ControlDependenciesController:
    """Context manager behind `Graph.control_dependencies`."""

    def __init__(self, graph, control_inputs):
        self._graph = graph
        self.control_inputs = [] if control_inputs is None else control_inputs
        self._new_stack = control_inputs is None
        self.seen_ops = set()
        self._old_stack = None

    def __enter__(self):
        state = self._graph._state
        if self._new_stack:
            # A fresh stack also leaves any conditional context, as TF's does.
            self._old_stack = state.control_dependencies
            self._old_cond_context = state.cond_context
            state.control_dependencies = []
            state.cond_context = None
        state.control_dependencies.append(self)

    def __exit__(self, *exc):
        state = self._graph._state
        state.control_dependencies.pop()
        if self._new_stack:
            state.control_dependencies = self._old_stack
            state.cond_context = self._old_cond_context
        return False


class Graph:
    """A TensorFlow computation: a set of Operations and the Tensors between them."""

    def __init__(self):
        self._lock = threading.RLock()
        self._nodes_by_name = {}
        self._nodes_by_id = []
        self._names_in_use = {}
        self._collections = {}
        self._finalized = False
        self._seed = None
        self._version = 0
        self._structure_version = 0
        self._state = _ThreadState()
        self._gradient_override_map = {}
        self._attr_scope_map = {}
        self._unfeedable, self._unfetchable = set(), set()
        self._functions = {}
        self._graph_def_versions = None
        self._variable_creator_stack = []
        self._scoped_c_graph, self._container = None, ""

    # -- basic facts -------------------------------------------------------------
    @property
    def version(self):
        """A counter that grows with every op added."""
        return self._version

    @property
    def _last_id(self):
        return self._version

    @property
    def finalized(self):
        return self._finalized

    @property
    def seed(self):
        """The graph-level random seed (None unless set)."""
        return self._seed

    @seed.setter
    def seed(self, seed):
        self._seed = seed

    @property
    def building_function(self):
        return False

    def finalize(self):
        """Makes the graph read-only: adding ops raises RuntimeError."""
        self._finalized = True

    def _unsafe_unfinalize(self):
        self._finalized = False

    def _check_not_finalized(self):
        if self._finalized:
            raise RuntimeError("Graph is finalized and cannot be modified.")

    def _version_bump(self):
        self._structure_version += 1

    # -- default graph -------------------------------------------------------------
    def as_default(self):
        """Context manager making this the default graph of the current thread.

        Raises:
          AssertionError: on exit, if default-graph blocks were exited out of order.
        """
        return _default_graph_stack.get_controller(self)

    # -- names -----------------------------------------------------------------------
    def get_name_scope(self):
        """The current name scope (no trailing slash)."""
        return self._state.name_stack

    def unique_name(self, name, mark_as_used=True):
        """A name not yet used in this graph, under the current name scope."""
        stack = self._state.name_stack
        if stack:
            name = stack + "/" + name
        name_key = name.lower()
        i = self._names_in_use.get(name_key, 0)
        if mark_as_used:
            self._names_in_use[name_key] = i + 1
        if i > 0:
            base_name_key = name_key
            while name_key in self._names_in_use:
                name_key = f"{base_name_key}_{i}"
                i += 1
            if mark_as_used:
                self._names_in_use[name_key] = 1
            name = f"{name}_{i - 1}"
        return name

    @contextlib.contextmanager
    def name_scope(self, name):
        """Opens a name scope: "" or None resets to the top level, "scope/" re-enters
        an existing scope, anything else opens a new unique scope.

        Yields:
          the scope string, with a trailing "/" ("" at the top level).

        Raises:
          ValueError: if `name` is not a valid scope name.
        """
        if name:
            if isinstance(name, bytes):
                name = name.decode()
            if self._state.name_stack:
                # Nested scopes may start with characters an op name can't ('_', '-', '/').
                if not _VALID_SCOPE_NAME_REGEX.match(name):
                    raise ValueError(f"'{name}' is not a valid scope name. A scope name has to "
                                     "match the following pattern: "
                                     f"{_VALID_SCOPE_NAME_REGEX.pattern}")
            elif not _VALID_OP_NAME_REGEX.match(name):
                raise ValueError(f"'{name}' is not a valid root scope name. A root scope name "
                                 "has to match the following pattern: "
                                 f"{_VALID_OP_NAME_REGEX.pattern}")
        state = self._state
        old_stack = state.name_stack
        if not name:
            new_stack, returned = "", ""
        elif name[-1] == "/":
            new_stack, returned = name[:-1], name
        else:
            new_stack = self.unique_name(name)
            returned = new_stack + "/"
        state.name_stack = new_stack
        try:
            yield returned
        finally:
            state.name_stack = old_stack

    # -- op creation -------------------------------------------------------------
    def create_op(self, op_type, inputs, dtypes=None, input_types=None, name=None,
                  attrs=None, op_def=None, compute_shapes=True, compute_device=True):
        """Adds an op of registered type `op_type` (TF's low-level `Graph.create_op`).

        Args:
          op_type: the registered op type.
          inputs: list of input Tensors.
          dtypes: output DTypes; default from the op's signature.
          name: the op name (made unique); a name ending in "/" is used as is.
          attrs: dict of attr name to Python value or AttrValue proto.

        Returns:
          the new Operation.
        """
        info = registry.get(op_type)
        attrs = dict(attrs or {})
        for k, v in attrs.items():
            if getattr(getattr(v, "DESCRIPTOR", None), "name", None) == "AttrValue":
                kind = info.op_def.attrs.get(k)
                attrs[k] = from_attr_value(v, kind.kind if kind is not None else None)
        if dtypes is None:
            dtypes = info.op_def.output_dtypes(attrs)
        return self._create_op_internal(op_type, list(inputs), list(dtypes), name, attrs, info,
                                        compute_device=compute_device)

    def _create_op_internal(self, op_type, inputs, dtypes, name, attrs, info,
                            compute_device=True):
        with self._lock:
            self._check_not_finalized()
            if name is None:
                name = op_type
            if name and name[-1] == "/":
                name = name[:-1]
            else:
                name = self.unique_name(name)
            if not _VALID_OP_NAME_REGEX.match(name):
                raise ValueError(f"`{name}` is not a valid node name. Accepted names conform to "
                                 f"Regex /{_VALID_OP_NAME_REGEX}/")
            if name in self._nodes_by_name:
                raise ValueError(f"Duplicate node name in graph: '{name}'")
            input_ops = {t._op for t in inputs}
            for t in inputs:
                if t._op._graph is not self:
                    raise ValueError(f"Tensor {t.name} must be from the same graph as the op "
                                     f"'{name}' being created.")
            control_inputs = self._control_dependencies_for_inputs(input_ops)
            op = Operation(self, name, op_type, inputs, dtypes,
                           [unknown_shape()] * len(dtypes), attrs, info, self._version + 1)
            try:
                if info is not None and info.shape_fn is not None:
                    run_shape_fn(op)
            except BaseException:
                for t in inputs:
                    t._consumers.remove(op)
                raise
            self._version += 1
            self._nodes_by_name[name] = op
            self._nodes_by_id.append(op)
            for c in control_inputs:
                op._control_inputs.append(c)
                c._control_outputs.append(op)
            self._finish_op(op, compute_device)
            return op

    def _finish_op(self, op, compute_device):
        state = self._state
        for controller in state.control_dependencies:
            controller.seen_ops.add(op)
        if self._attr_scope_map:  # jit_scope's and other attr scopes' attrs
            attr_scope.apply(self._attr_scope_map, op)
        override = self._gradient_override_map.get(op._type)
        if override is not None:
            op._attrs["_gradient_op_type"] = override.encode()
        if compute_device:
            apply_device_functions(state.device_functions, op)
        if state.colocation_stack:
            apply_colocation(state.colocation_stack, op)
        apply_container(self, op)
        op._cond_context = state.cond_context
        if state.cond_context is not None:
            state.cond_context.add_op(op)

    def _apply_device_functions(self, op):  # for import_graph_def
        apply_device_functions(self._state.device_functions, op)

    def _add_op_from_import(self, op):
        """Registers an op built by import_graph_def (name already unique)."""
        with self._lock:
            self._check_not_finalized()
            self._version += 1
            op._id = self._version
            self._nodes_by_name[op._name] = op
            self._nodes_by_id.append(op)
            self._names_in_use[op._name.lower()] = max(
                1, self._names_in_use.get(op._name.lower(), 0))

    # -- lookup ----------------------------------------------------------------------
    def get_operations(self):
        """All operations, in creation order."""
        return list(self._nodes_by_id)

    def get_operation_by_name(self, name):
        """The Operation called `name`.

        Raises:
          KeyError: if there is none; ValueError if `name` is a tensor name.
        """
        if not isinstance(name, str):
            raise TypeError(f"Operation names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=False, allow_operation=True)

    def get_tensor_by_name(self, name):
        """The Tensor called `name` ("op:index").

        Raises:
          KeyError / ValueError: as TF does for unknown or malformed names.
        """
        if not isinstance(name, str):
            raise TypeError(f"Tensor names are strings (or similar), not {type(name).__name__}.")
        return self.as_graph_element(name, allow_tensor=True, allow_operation=False)

    def _get_operation_by_name_unsafe(self, name):
        return self._nodes_by_name[name]

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """Resolves a Tensor, Operation or name ("op" / "op:index") to an element of
        this graph.

        Args:
          obj: a Tensor, Operation, name (str or bytes), or an object with
            `_as_graph_element()` (a Variable).
          allow_tensor: whether a Tensor may be returned.
          allow_operation: whether an Operation may be returned.

        Returns:
          the Tensor or Operation.

        Raises:
          TypeError: if `obj` can't be converted to an allowed kind.
          ValueError: for a malformed name, an element of another graph, or a name
            naming the wrong kind of element.
          KeyError: for a well-formed name that is not in the graph.
        """
        if not allow_tensor and not allow_operation:
            raise ValueError("allow_tensor and allow_operation can't both be False.")
        if allow_tensor and allow_operation:
            types_str = "Tensor or Operation"
        elif allow_tensor:
            types_str = "Tensor"
        else:
            types_str = "Operation"
        if not isinstance(obj, (Tensor, Operation, str)):
            conv = getattr(obj, "_as_graph_element", None)
            if conv is not None:
                obj = conv()
            if isinstance(obj, bytes):
                obj = obj.decode()
        if isinstance(obj, str):
            return self._element_by_name(obj, allow_tensor, allow_operation, types_str)
        if isinstance(obj, Tensor) and allow_tensor:
            if obj._op._graph is not self:
                raise ValueError(f"Tensor {obj} is not an element of this graph.")
            return obj
        if isinstance(obj, Operation) and allow_operation:
            if obj._graph is not self:
                raise ValueError(f"Operation {obj} is not an element of this graph.")
            return obj
        raise TypeError(f"Can not convert a {type(obj).__name__} into a {types_str}.")

    def _element_by_name(self, name, allow_tensor, allow_operation, types_str):
        if ":" in name and allow_tensor:
            try:
                op_name, out_n = name.split(":")
                out_n = int(out_n)
            except ValueError:
                raise ValueError(f"The name {name!r} looks a like a Tensor name, but is not a "
                                 "valid one. Tensor names must be of the form "
                                 "\"<op_name>:<output_index>\".") from None
            op = self._nodes_by_name.get(op_name)
            if op is None:
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. "
                               f"The operation, {op_name!r}, does not exist in the graph.")
            if not 0 <= out_n < len(op._outputs):
                raise KeyError(f"The name {name!r} refers to a Tensor which does not exist. "
                               f"The operation, {op_name!r}, exists but only has "
                               f"{len(op._outputs)} outputs.")
            return op._outputs[out_n]
        if ":" in name:
            raise ValueError(f"Name {name!r} appears to refer to a Tensor, not a {types_str}.")
        if not allow_operation:
            if name in self._nodes_by_name:
                raise ValueError(f"The name {name!r} refers to an Operation, not a "
                                 f"{types_str}. Tensor names must be of the form "
                                 "\"<op_name>:<output_index>\".")
            raise ValueError(f"The name {name!r} looks like an (invalid) Operation name, "
                             f"not a {types_str}. Tensor names must be of the form "
                             "\"<op_name>:<output_index>\".")
        op = self._nodes_by_name.get(name)
        if op is None:
            raise KeyError(f"The name {name!r} refers to an Operation not in the graph.")
        return op

    # -- collections ---------------------------------------------------------------
    def add_to_collection(self, name, value):
        """Appends `value` to collection `name`.

        Raises:
          RuntimeError: if the graph is finalized.
        """
        self._check_not_finalized()
        with self._lock:
            self._collections.setdefault(name, []).append(value)

    def add_to_collections(self, names, value):
        """Appends `value` to each collection in `names` (a string or iterable; each
        collection once even if named twice)."""
        names = (names,) if isinstance(names, str) else set(names)
        for name in names:
            self.add_to_collection(name, value)

    def get_collection_ref(self, name):
        """The list behind collection `name` (created if absent); edits stick."""
        with self._lock:
            return self._collections.setdefault(name, [])

    def get_collection(self, name, scope=None):
        """A copy of collection `name`, filtered to items whose `.name` matches `scope`."""
        with self._lock:
            collection = self._collections.get(name)
            if collection is None:
                return []
            if scope is None:
                return list(collection)
            regex = re.compile(scope)
            out = []
            for item in collection:
                item_name = getattr(item, "name", None)
                if isinstance(item_name, str) and regex.match(item_name):
                    out.append(item)
            return out

    def get_all_collection_keys(self):
        """The string keys of every collection created so far (even if now empty)."""
        with self._lock:
            return [k for k in self._collections if isinstance(k, str)]

    def clear_collection(self, name):
        """Removes collection `name`.

        Raises:
          RuntimeError: if the graph is finalized.
        """
        self._check_not_finalized()
        with self._lock:
            self._collections.pop(name, None)

    # -- control dependencies ----------------------------------------------------------
    def _current_control_dependencies(self):
        out = set()
        for controller in self._state.control_dependencies:
            out.update(controller.control_inputs)
        return out

    def _control_dependencies_for_inputs(self, input_ops):
        ret = []
        for controller in self._state.control_dependencies:
            if any(op in controller.seen_ops for op in input_ops):
                continue
            ret.extend(c for c in controller.control_inputs
                       if c not in input_ops and c not in ret)
        return ret

    def control_dependencies(self, control_inputs):
        """Context manager: ops created inside run after `control_inputs`.

        Nested contexts accumulate; None clears the outer ones. An op whose inputs
        already come from an op created inside the same context gets no redundant
        control edge, and a control input is never added when it is also a data input.
        The ops used as control inputs get TF's `_has_manual_control_dependencies` attr.

        Args:
          control_inputs: a list of Operations or Tensors (or objects with
            `_as_graph_element`, or names), or None.

        Raises:
          TypeError: if an element is not an Operation or Tensor.
        """
        if control_inputs is None:
            return _ControlDependenciesController(self, None)
        control_ops = []
        current = self._current_control_dependencies()
        for c in control_inputs:
            if hasattr(c, "values") and hasattr(c, "indices") and hasattr(c, "op"):
                c = c.op  # IndexedSlices
            if callable(getattr(c, "_as_graph_element", None)) and not isinstance(
                    c, (Tensor, Operation)):
                c = c._as_graph_element()
            c = self.as_graph_element(c)
            if isinstance(c, Tensor):
                c = c.op
            elif not isinstance(c, Operation):
                raise TypeError(f"Control input must be Operation or Tensor: {c}")
            if c not in current:
                control_ops.append(c)
                current.add(c)
                c._attrs["_has_manual_control_dependencies"] = True
        return _ControlDependenciesController(self, control_ops)

    # -- devices and colocation --------------------------------------------------------
    @contextlib.contextmanager
    def device(self, device_name_or_function):
        """Context manager placing new ops: a device string (merged with outer partial
        specs), a DeviceSpec, a function op -> device string, or None (clears).

        Raises:
          ValueError: for a malformed device string.
        """
        fn = device_function(device_name_or_function)
        stack = self._state.device_functions
        stack.append(fn)
        try:
            yield
        finally:
            stack.pop()

    container = graph_container

    @contextlib.contextmanager
    def colocate_with(self, op, ignore_existing=False):
        """Context manager: new ops share `op`'s colocation group and device."""
        if op is None and not ignore_existing:
            raise ValueError("Trying to reset colocation (op is None) but "
                             "ignore_existing is not True")
        if op is not None and not isinstance(op, Operation):
            if isinstance(op, Tensor):
                op = op.op
            elif hasattr(op, "op") and isinstance(op.op, Operation):
                op = op.op
            else:
                op = self.as_graph_element(op, allow_tensor=True, allow_operation=True)
                op = op.op if isinstance(op, Tensor) else op
        state = self._state
        saved_devices = state.device_functions
        state.device_functions = []
        saved_coloc = state.colocation_stack
        if ignore_existing:
            state.colocation_stack = []
        else:
            state.colocation_stack = list(saved_coloc)
        if op is not None:
            state.colocation_stack.append(op)
        try:
            yield
        finally:
            state.device_functions = saved_devices
            state.colocation_stack = saved_coloc

    # -- gradients override / feeding ---------------------------------------------------
    @contextlib.contextmanager
    def gradient_override_map(self, op_type_map):
        """Context manager: ops of the mapped types use another type's gradient."""
        if not isinstance(op_type_map, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in op_type_map.items()):
            raise TypeError("op_type_map must be a dictionary mapping strings to strings")
        saved = dict(self._gradient_override_map)
        self._gradient_override_map.update(op_type_map)
        try:
            yield
        finally:
            self._gradient_override_map = saved

    def prevent_feeding(self, tensor):
        self._unfeedable.add(tensor)

    def is_feedable(self, tensor):
        return tensor not in self._unfeedable

    def prevent_fetching(self, op):
        self._unfetchable.add(op)

    def is_fetchable(self, tensor_or_op):
        op = tensor_or_op.op if isinstance(tensor_or_op, Tensor) else tensor_or_op
        return op not in self._unfetchable

    # -- serialization ---------------------------------------------------------------
    # graph_export (below the graph core) is imported here to keep protobuf out of import.
    def as_graph_def(self, from_version=None, add_shapes=False):
        """The GraphDef proto of this graph."""
        from trainflow._src.framework.graph_export import graph_to_graph_def  # lazy: protobuf
        return graph_to_graph_def(self, from_version=from_version, add_shapes=add_shapes)

    @property
    def graph_def_versions(self):
        from trainflow._src.framework.graph_export import graph_versions  # lazy: protobuf
        return graph_versions()

    def __repr__(self):
        return f"<trainflow.Graph object at {id(self):#x}>"


_DefaultGraphStack.graph_class = Graph
