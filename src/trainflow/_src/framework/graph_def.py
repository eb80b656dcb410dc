"""`tf.import_graph_def`: a GraphDef (and its function library) built into the default graph.
Export is `graph_export`'s."""
import heapq

from trainflow._src.framework import errors, registry
from trainflow._src.framework.attr_value import from_attr_value
from trainflow._src.framework.graph import (
    _VALID_OP_NAME_REGEX as _VALID_NODE_NAME, get_default_graph)
from trainflow._src.framework.op_builder import output_dtypes
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.shape_inference import run_shape_fn
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_shape import unknown_shape
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.function_import import function_graph_from_def
from trainflow._src.framework import dtypes, loop_frames
from trainflow._src.framework.graph_export import GRAPH_DEF_VERSION
from trainflow._src.protos import graph_pb2

# -- import ------------------------------------------------------------------------------
_CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}
_ONEOF_KIND = {"s": "string", "i": "int", "f": "float", "b": "bool", "type": "type",
               "shape": "shape", "tensor": "tensor", "func": "func", "list": "list"}


def _cpp_type(dtype):
    """TensorFlow's C++ name of a dtype ("float", "double", "float_ref"), as its
    import errors print it."""
    base = dtype.base_dtype.name
    name = _CPP_TYPE_NAMES.get(base, base)
    return name + "_ref" if dtype._is_ref_dtype else name


def _signature(op_def):
    """A one-line description of an op's signature, as TF's import errors print it."""
    def arg(a):
        kind = a.type.name if a.type is not None else \
            a.type_attr or a.type_list_attr
        kind = f"{a.number_attr}*{kind}" if a.number_attr else kind
        return f"{a.name}:{'Ref(' + kind + ')' if a.is_ref else kind}"
    ins = ", ".join(arg(a) for a in op_def.inputs)
    outs = ", ".join(arg(a) for a in op_def.outputs)
    attrs = "; ".join(f"attr={a.name}:{a.kind}" for a in op_def.attrs.values())
    return f"Op<name={op_def.name}; signature={ins} -> {outs}" + \
        (f"; {attrs}" if attrs else "") + ">"


def _parse_input(name):
    """"^op" -> (op, -1); "op:2" -> (op, 2); "op" -> (op, 0).

    Raises:
      ValueError: if the output index is not a number.
    """
    if name.startswith("^"):
        return name[1:], -1
    op_name, sep, idx = name.rpartition(":")
    if not sep:
        return name, 0
    return op_name, int(idx)


def _input_key(name):
    src, idx = _parse_input(name)
    return "^" + src if idx < 0 else f"{src}:{idx}"


def _check_args(graph_def, input_map, return_elements, name):
    if not isinstance(graph_def, graph_pb2.GraphDef):
        if hasattr(graph_def, "SerializeToString") and type(graph_def).__name__ == "GraphDef":
            graph_def = graph_pb2.GraphDef.FromString(graph_def.SerializeToString())
        else:
            raise TypeError("Argument `graph_def` must be a GraphDef proto.")
    if input_map is None:
        input_map = {}
    elif not isinstance(input_map, dict):
        raise TypeError(f"Argument `input_map` must be a dictionary. Obtained "
                        f"{type(input_map).__name__}")
    bad = [k for k in input_map if not isinstance(k, str)]
    if bad:
        raise TypeError(f"All keys for argument `input_map` must be strings. Obtained keys: "
                        f"{bad}")
    if return_elements is not None:
        return_elements = list(return_elements)
        if not all(isinstance(x, str) for x in return_elements):
            raise TypeError("Argument `return_elements` must be a list of strings. Obtained "
                            f"{return_elements}.")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"Argument `name` must be a string. Obtained {type(name).__name__}")
    min_consumer = graph_def.versions.min_consumer
    if min_consumer > GRAPH_DEF_VERSION:
        raise ValueError(f"GraphDef min consumer version {min_consumer} above current version "
                         f"{GRAPH_DEF_VERSION} of trainflow's op set. Please upgrade "
                         "trainflow.")
    return graph_def, input_map, return_elements


def _map_inputs(g, input_map):
    """{"op:i" or "^op": Tensor/Operation}: values converted with convert_to_tensor."""
    mapped = {}
    if not input_map:
        return mapped
    with g.name_scope("_inputs"):
        for key, value in input_map.items():
            if not isinstance(value, (Operation, Tensor)):
                value = convert_to_tensor(value)
            if isinstance(value, Tensor) and value.graph is not g or \
                    isinstance(value, Operation) and value.graph is not g:
                raise ValueError(f"input_map value for {key!r} is not an element of the "
                                 "graph being imported into.")
            k = key if key.startswith("^") else _input_key(key)
            if not k.startswith("^") and not isinstance(value, Tensor):
                raise TypeError(f"input_map value for {key!r} must be a Tensor, not "
                                f"{value!r}.")
            mapped[k] = value
    return mapped


def _order_nodes(nodes, mapped):
    """Orders NodeDefs so inputs come first (imported GraphDefs may be unsorted).

    Raises:
      ValueError: for duplicate names, unknown inputs, or a cycle.
    """
    by_name = {}
    for n in nodes:
        if n.name in by_name:
            raise ValueError(f"Node '{n.name}' is not unique")
        by_name[n.name] = n
    deps = {}
    for n in nodes:
        d = []
        for inp in n.input:
            try:
                src, idx = _parse_input(inp)
            except ValueError:
                raise ValueError(f"Node '{n.name}': Unknown input node '{inp}'") from None
            if _input_key(inp) in mapped:
                continue
            if src not in by_name:
                raise ValueError(f"Node '{n.name}': Unknown input node '{inp}'")
            d.append(src)
        deps[n.name] = d
    indegree = {name: len(d) for name, d in deps.items()}
    position = {n.name: i for i, n in enumerate(nodes)}
    users = {}
    for name, d in deps.items():
        for src in d:
            users.setdefault(src, []).append(name)
    # Kahn's algorithm by GraphDef position: a sorted GraphDef keeps its order.
    ready = [(position[n.name], n.name) for n in nodes if indegree[n.name] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, name = heapq.heappop(ready)
        order.append(by_name[name])
        for u in users.get(name, ()):
            indegree[u] -= 1
            if indegree[u] == 0:
                heapq.heappush(ready, (position[u], u))
    if len(order) != len(nodes):
        raise ValueError(f"{len(nodes) - len(order)} nodes in a cycle")
    return order


def _bad_attr(av, name, full_name, error):
    """The ValueError for an attr value that cannot be decoded (TF's wording for a bad
    DataType enum), naming the attr and the node."""
    where = f"\n\t for attr '{name}'\n\t; NodeDef: {{{{node {full_name}}}}}"
    for enum in ([av.type] if av.WhichOneof("value") == "type" else list(av.list.type)):
        try:
            dtypes.as_dtype(enum)
        except TypeError:
            return ValueError(f"AttrValue has invalid DataType enum: {enum}{where}")
    return ValueError(f"{error}{where}")


def _node_attrs(node, info, full_name):
    """The Python attr values of `node`, with defaults filled in and kinds checked.

    Returns:
      (attrs, kept): kept maps tensor attrs to (value, AttrValue), the encoding to write
      back on export.
    """
    kinds = info.op_def.attrs
    attrs = {}
    kept = {}
    for k, av in node.attr.items():
        if k == "_output_shapes":
            continue
        attr = kinds.get(k)
        if attr is not None:
            which = av.WhichOneof("value")
            want = "list" if attr.kind.startswith("list(") else attr.kind
            if which is not None and _ONEOF_KIND.get(which, which) != want:
                raise ValueError(f"AttrValue had value with type '{_ONEOF_KIND.get(which)}' "
                                 f"when '{attr.kind}' expected\n\t for attr '{k}'\n\t; NodeDef: "
                                 f"{{{{node {full_name}}}}}; {_signature(info.op_def)}")
            if which is None and want != "list":  # TF's AttrValueHasType
                raise ValueError(f"AttrValue missing value with expected type '{attr.kind}'"
                                 f"\n\t for attr '{k}'\n\t; NodeDef: {{{{node {full_name}}}}}; "
                                 f"{_signature(info.op_def)}")
        try:
            attrs[k] = from_attr_value(av, attr.kind if attr is not None else None)
        except (TypeError, ValueError) as e:
            raise _bad_attr(av, k, full_name, e) from None
        if av.WhichOneof("value") == "tensor" or av.list.tensor:
            kept[k] = (attrs[k], av)
    for k, attr in kinds.items():
        if k not in attrs:
            if not attr.has_default:
                raise ValueError(f"NodeDef missing attr '{k}' from {_signature(info.op_def)}; "
                                 f"NodeDef: {{{{node {full_name}}}}}")
            attrs[k] = attr.default
    return attrs, kept


def _expected_input_types(info, attrs):
    out = []
    for arg in info.op_def.inputs:
        out.extend(arg.dtypes(attrs))
    return out


class _Importer:
    """One run of import_graph_def: validates and creates every op, or nothing."""

    def __init__(self, g, graph_def, mapped, prefix):
        self.g = g
        self.graph_def = graph_def
        self.mapped = mapped
        self.prefix = prefix
        self.used = set()
        self.created = {}  # node name -> Operation
        self.new_ops = []
        self.library = {f.signature.name: f for f in graph_def.library.function}
        self.functions = {}  # function name -> FuncGraph built from the library

    def function(self, name_attr_list):
        """The FuncGraph for a func attr, built from the GraphDef's library once."""
        name = name_attr_list if isinstance(name_attr_list, str) else name_attr_list.name
        fg = self.functions.get(name)
        if fg is None:
            fdef = self.library.get(name)
            if fdef is None:
                raise ValueError(f"Function '{name}' is not in the GraphDef's library")
            fg = function_graph_from_def(fdef, self.library, self.g, self.functions)
            self.functions[name] = fg
        return fg

    def unique(self, full_name, planned):
        name, count = full_name, 0
        while name in self.g._nodes_by_name or (count > 0 and name in planned):
            count += 1
            name = f"{full_name}_{count}"
        return name

    def run(self, return_elements):
        """Builds every op, checks the request, then adds the ops to the graph.

        Returns:
          the requested return elements (or None).
        """
        for node in self.graph_def.node:
            if not _VALID_NODE_NAME.match(node.name):
                raise ValueError(f"Node '{node.name}': Node name contains invalid characters")
        order = _order_nodes(self.graph_def.node, self.mapped)
        planned = {self.prefix + n.name for n in self.graph_def.node}
        names = {}
        for node in order:
            names[node.name] = self.unique(self.prefix + node.name, planned)
        try:
            for node in order:
                self.created[node.name] = self.build(node, names[node.name])
            self.check_colocation()
            self.check_unused_inputs()
            returned = None if return_elements is None else \
                [_return_element(el, self, self.mapped) for el in return_elements]
        except BaseException:
            self.rollback()
            raise
        self.commit()
        return returned

    def check_unused_inputs(self):
        # Keys naming nodes that the GraphDef lacks are errors; keys for unused outputs
        # of existing nodes are not (TF's rule).
        unused = {k for k in set(self.mapped) - self.used
                  if _parse_input(k)[0] not in self.created}
        if unused:
            raise ValueError(f"Attempted to map inputs that were not found in graph_def: "
                             f"[{', '.join(sorted(unused))}]")

    def resolve(self, node, inp, full_name):
        key = _input_key(inp)
        if key in self.mapped:
            self.used.add(key)
            value = self.mapped[key]
            if key.startswith("^"):
                return None, value if isinstance(value, Operation) else value.op
            return value, None
        src, idx = _parse_input(inp)
        src_op = self.created[src]
        if idx < 0:
            return None, src_op
        if idx >= len(src_op._outputs):
            raise ValueError(f"Node '{node.name}': Connecting to invalid output {idx} of "
                             f"source node {src} which has {len(src_op._outputs)} outputs.")
        return src_op._outputs[idx], None

    def build(self, node, full_name):
        try:
            info = registry.get(node.op)
        except KeyError:
            raise errors.NotFoundError(
                None, None, f"Op type not registered '{node.op}' in trainflow (node "
                            f"'{node.name}'). Import the module that registers it before "
                            "importing the graph.") from None
        attrs, kept = _node_attrs(node, info, full_name)
        for k, attr in info.op_def.attrs.items():
            if attr.kind == "func" and k in attrs:
                attrs[k] = self.function(attrs[k])
            elif attr.kind == "list(func)" and k in attrs:
                attrs[k] = [self.function(v) for v in attrs[k]]
        if "_class" in attrs:
            classes = attrs["_class"] if isinstance(attrs["_class"], list) else \
                [attrs["_class"]]
            bad = [s for s in classes if not isinstance(s, (bytes, str))]
            if bad:  # TF's compat.as_bytes on each colocation name
                raise TypeError(f"Expected binary or unicode string, got {bad[0]!r}")
            attrs["_class"] = [_prefix_loc(s, self.prefix) for s in classes]
        inputs, controls = [], []
        for inp in node.input:
            t, c = self.resolve(node, inp, full_name)
            if c is not None:
                controls.append(c)
            else:
                inputs.append(t)
        expected = _expected_input_types(info, attrs)
        if len(expected) != len(inputs):
            raise ValueError(f"NodeDef expected inputs "
                             f"'{', '.join(_cpp_type(t) for t in expected)}' do not match "
                             f"{len(inputs)} inputs specified; {_signature(info.op_def)}; "
                             f"NodeDef: {{{{node {full_name}}}}}")
        for i, (want, t) in enumerate(zip(expected, inputs)):
            have = t._dtype
            if have.base_dtype != want.base_dtype or want._is_ref_dtype and \
                    not have._is_ref_dtype:
                raise ValueError(f"Input {i} of node {full_name} was passed {_cpp_type(have)} "
                                 f"from {t.name} incompatible with expected "
                                 f"{_cpp_type(want)}.")
        out_types = output_dtypes(info, attrs)
        op = Operation(self.g, full_name, node.op, inputs, out_types,
                       [unknown_shape()] * len(out_types), attrs, info, 0)
        if kept:
            op._attr_protos = kept
        self.new_ops.append(op)
        if info.shape_fn is not None:
            run_shape_fn(op)
        for c in controls:
            if c not in op._control_inputs:
                op._control_inputs.append(c)
        if node.device:
            op._set_device(node.device)
        return op

    def check_colocation(self):
        for node in self.graph_def.node:
            for s in self.created[node.name]._attrs.get("_class", ()):
                if s.startswith(b"loc:@"):
                    target = s[5:].decode()
                    if target in self.g._nodes_by_name:
                        continue
                    local = target[len(self.prefix):] if target.startswith(self.prefix) \
                        else None
                    if local not in self.created:
                        raise ValueError(f"Node '{node.name}' expects to be colocated with "
                                         f"unknown node '{local or target}'")

    def rollback(self):
        for op in self.new_ops:
            for t in op._inputs:
                if op in t._consumers:
                    t._consumers.remove(op)

    def commit(self):
        g = self.g
        outer = list(g._current_control_dependencies())
        for op in self.new_ops:
            g._add_op_from_import(op)
            for c in op._control_inputs:
                c._control_outputs.append(op)
            for c in outer:
                if c not in op._control_inputs:
                    op._control_inputs.append(c)
                    c._control_outputs.append(op)
            g._apply_device_functions(op)


def import_graph_def(graph_def, input_map=None, return_elements=None, name=None,
                     op_dict=None, producer_op_list=None):
    """Imports a GraphDef into the default graph (`tf.import_graph_def`).

    Imported ops are named "<name>/<node name>" (name defaults to "import", made unique;
    "" imports the names as they are, with "_1"... added where they collide). The
    import is atomic: on any error no op is added. The current device scope is merged
    into the imported devices, and the current control dependencies apply to every
    imported op.

    Args:
      graph_def: a GraphDef proto.
      input_map: {"name:idx" or "^name": value}: values (converted to Tensors) that
        replace the imported tensors (or control inputs).
      return_elements: names of ops ("name") or tensors ("name:0") to return.
      name: prefix for imported names.
      op_dict, producer_op_list: ignored (TF1 compatibility).

    Returns:
      the list of requested elements, or None.

    Raises:
      TypeError: for arguments of the wrong type.
      ValueError: for malformed GraphDefs (missing or duplicate nodes, bad attrs, dtype
        mismatches, cycles), unused input_map keys, or unknown return elements.
      NotFoundError: for an op type trainflow does not register.
    """
    graph_def, input_map, return_elements = _check_args(graph_def, input_map,
                                                        return_elements, name)
    if loop_frames.has_loop_frames(graph_def):
        graph_def = functionalize_loop_frames(graph_def)
    g = get_default_graph()
    with g.name_scope(name if name is not None else "import") as prefix:
        with g._lock:
            g._check_not_finalized()
            mapped = _map_inputs(g, input_map)
            return _Importer(g, graph_def, mapped, prefix).run(return_elements)


def functionalize_loop_frames(graph_def):
    """A copy of `graph_def` with every TF1 loop frame replaced by a functional While
    (`loop_frames`), whose functions this module's `import_graph_def` builds."""
    return loop_frames.functionalize(graph_def, import_graph_def)


def _return_element(el, importer, mapped):
    if ":" not in el:
        op = importer.created.get(el)
        if op is None:
            raise ValueError(f"Requested return node {el!r} not found in graph def")
        return op
    parts = el.split(":")
    if len(parts) != 2:
        raise ValueError(f"Cannot convert {el!r} to a tensor name. Tensor names should not "
                         f"contain more than 1 `:`. Obtained {len(parts) - 1}")
    try:
        idx = int(parts[1])
    except ValueError:
        raise ValueError(f"Requested return tensor {el!r} not found in graph def") from None
    key = f"{parts[0]}:{idx}"
    if key in mapped:
        return mapped[key]
    op = importer.created.get(parts[0])
    if op is None:
        raise ValueError(f"Requested return tensor {el!r} not found in graph def")
    if not 0 <= idx < len(op._outputs):
        raise ValueError(f"Invalid return output {idx} of node {parts[0]!r}, which has "
                         f"{len(op._outputs)} output(s)")
    return op._outputs[idx]


def _prefix_loc(s, prefix):
    s = s if isinstance(s, bytes) else s.encode()
    if prefix and s.startswith(b"loc:@"):
        return b"loc:@" + prefix.encode() + s[5:]
    return s
