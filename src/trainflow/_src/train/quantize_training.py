"""`tf.train.do_quantize_training_on_graphdef`: TF's GraphDef rewrite for quantized
training. Every float input of a MatMul or Conv2D (outside `gradients/`) passes through a
QuantizeAndDequantizeV2 node named `<input>/QuantizeAndDequantizeV2`; its range is a
constant for Relu6 / Sigmoid / Tanh inputs and otherwise a pair of moving averages
(`<input>/Min/Variable`, `<input>/Max/Variable`, decay 0.999, first set to the observed
min/max) that a graph with a Saver also saves and restores. Node names, ops, attrs and the
node order follow TF's rewrite, so the result imports into TF and here alike.
"""
import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework.op_def_proto import op_def_proto
from trainflow._src.formats.tensor_proto import make_ndarray, make_tensor_proto
from trainflow._src.formats.varint import encode_varint
from trainflow._src.protos import graph_pb2, tensor_pb2, tensor_shape_pb2, types_pb2

_TARGETS = ("MatMul", "Conv2D")
_ALLOWED_UNKNOWN_INPUTS = 2
_EMA_DECAY = 0.999
_FLOAT = types_pb2.DT_FLOAT
_INT32 = types_pb2.DT_INT32


def _name_of(inp):
    return inp.split(":")[0]


class _Rewriter:
    def __init__(self, graph_def):
        self.graph = graph_pb2.GraphDef()
        self.graph.CopyFrom(graph_def)
        self.by_name = {n.name: n for n in self.graph.node}
        self.name_counter = 0
        for node in self.graph.node:
            _add_default_attrs(node)

    # -- building nodes ----------------------------------------------------------------
    def add(self, name, op, inputs=(), **attrs):
        node = self.graph.node.add(name=name, op=op, input=list(inputs))
        for key, value in attrs.items():
            _set_attr(node.attr[key], value)
        _add_default_attrs(node)
        self.by_name[name] = node
        return name

    def const(self, name, value, dtype):
        proto = make_tensor_proto(value, dtype=_np_dtype(dtype))
        return self.add(name, "Const", dtype=("type", dtype), value=("tensor", proto))

    def new_name(self, prefix):
        # TF's Graph::NewName: a counter shared by every generated name in the graph.
        name = f"{prefix}/_{self.name_counter}"
        self.name_counter += 1
        return name

    # -- the input kinds ---------------------------------------------------------------
    def find_type(self, name):
        """(known, signed_input, range_given, min, max) for the tensor node `name`."""
        node = self.by_name[name]
        op = node.op
        if op in ("Const", "Variable", "VariableV2"):
            return True, True, False, 0.0, 0.0
        if op == "Relu":
            return True, False, False, 0.0, 0.0
        if op == "Relu6":
            return True, False, True, 0.0, 6.0
        if op == "Sigmoid":
            return True, False, True, 0.0, 1.0
        if op == "Tanh":
            return True, True, True, -1.0, 1.0
        if op in ("Reshape", "ConcatV2", "Identity", "MaxPool", "AvgPool", "MaxPool3D",
                  "AvgPool3D"):
            data = [i for i in node.input if not i.startswith("^")]
            if op in ("Reshape", "ConcatV2"):
                data = data[:1]
            kind = (True, False, False, 0.0, 0.0)
            for inp in data:
                kind = (True,) + self.find_type(_name_of(inp))[1:]
            return kind
        return False, True, False, 0.0, 0.0

    # -- the rewrite -------------------------------------------------------------------
    def target_edges(self, num_bits):
        unknown = 0
        edges = []
        for node in list(self.graph.node):
            if node.op not in _TARGETS or node.name.startswith("gradients"):
                continue
            for slot, inp in enumerate(node.input):
                if inp.startswith("^"):
                    continue
                src = _name_of(inp)
                known, signed, given, lo, hi = self.find_type(src)
                if not known:
                    unknown += 1
                    if unknown > _ALLOWED_UNKNOWN_INPUTS:
                        raise errors.UnimplementedError(
                            None, None, f"Found an unknown op: {src} with type: "
                            f"{self.by_name[src].op}; Unknown ops are considered as model "
                            f"input for now and only {_ALLOWED_UNKNOWN_INPUTS} inputs are "
                            "supported currently.")
                edges.append((node, slot, src, signed, given, lo, hi))
        return edges

    def ema_variable(self, name, decay, init_value, added):
        var = self.add(f"{name}/Variable", "VariableV2", shape=("shape", []),
                       dtype=("type", _FLOAT))
        added.append(var)
        is_init = self.add(f"{name}/IsInitialized", "IsVariableInitialized", [var],
                           dtype=("type", _FLOAT))
        switch = self.add(f"{name}/Switch", "Switch", [init_value, is_init], T=("type", _FLOAT))
        one = self.const(f"{name}/EMA/OneConst", np.float32(1.0), _FLOAT)
        complement = self.add(f"{name}/EMA/DecayComplement", "Sub", [one, decay],
                              T=("type", _FLOAT))
        diff = self.add(f"{name}/EMA/ValueDiff", "Sub", [var, f"{switch}:1"],
                        T=("type", _FLOAT))
        update = self.add(f"{name}/EMA/UpdateValue", "Mul", [diff, complement],
                          T=("type", _FLOAT))
        ema = self.add(f"{name}/EMA/EMAValue", "Sub", [var, update], T=("type", _FLOAT))
        merge = self.add(f"{name}/Merge", "Merge", [switch, ema], T=("type", _FLOAT),
                         N=("i", 2))
        return self.add(f"{name}/AssignValue", "Assign", [var, merge], T=("type", _FLOAT))

    def min_max(self, prefix, src, given, lo, hi, added):
        if given:
            return (self.const(f"{prefix}/InputMin", np.float32(lo), _FLOAT),
                    self.const(f"{prefix}/InputMax", np.float32(hi), _FLOAT))
        decay = self.const(f"{prefix}/Decay", np.float32(_EMA_DECAY), _FLOAT)
        axes = f"{prefix}/ReductionAxes"
        start = self.const(f"{axes}/RangeStart", np.int32(0), _INT32)
        delta = self.const(f"{axes}/RangeDelta", np.int32(1), _INT32)
        rank = self.add(f"{axes}/InputRank", "Rank", [src], T=("type", _FLOAT))
        axes = self.add(f"{axes}/ReductionAxes", "Range", [start, rank, delta],
                        Tidx=("type", _INT32))
        reduced = {}
        for kind in ("Min", "Max"):
            reduced[kind] = self.add(f"{prefix}/{kind}", kind, [src, axes],
                                     T=("type", _FLOAT), Tidx=("type", _INT32))
        return (self.ema_variable(f"{prefix}/Min", decay, reduced["Min"], added),
                self.ema_variable(f"{prefix}/Max", decay, reduced["Max"], added))

    def rewrite(self, num_bits):
        done = {}
        added = []
        for node, slot, src, signed, given, lo, hi in self.target_edges(num_bits):
            quant = done.get(src)
            if quant is None:
                lo_node, hi_node = self.min_max(src, src, given, lo, hi, added)
                quant = self.add(f"{src}/QuantizeAndDequantizeV2", "QuantizeAndDequantizeV2",
                                 [src, lo_node, hi_node], signed_input=("b", signed),
                                 num_bits=("i", num_bits), range_given=("b", True),
                                 T=("type", _FLOAT))
                done[src] = quant
            node.input[slot] = quant
        self.save_and_restore(added)
        return self.graph

    # -- the Saver's nodes -------------------------------------------------------------
    def save_and_restore(self, variables):
        saves = [n for n in self.graph.node if n.op == "SaveV2"]
        if len(saves) > 1:
            raise errors.InvalidArgumentError(None, None,
                                              "Input graph has multiple SaveV2 ops.")
        if not saves:
            return
        save = saves[0]
        data = [i for i in save.input if not i.startswith("^")]
        prefix = save.name[:save.name.rfind("/")] if "/" in save.name else save.name
        restore_all = self.by_name.get(f"{prefix}/restore_all")
        if restore_all is None:
            raise errors.InvalidArgumentError(
                None, None, "graph has SaveOp, but no restore_all NoOp")
        for var in variables:
            restore = self.new_name(f"{prefix}/RestoreV2") + "_qt"
            assign = self.new_name(f"{prefix}/Assign") + "_qt"
            names = self.const(f"{restore}/tensor_names", np.array([var], object),
                               types_pb2.DT_STRING)
            slices = self.const(f"{restore}/shape_and_slices", np.array([""], object),
                                types_pb2.DT_STRING)
            self.add(restore, "RestoreV2", [data[0], names, slices],
                     dtypes=("types", [_FLOAT]))
            self.add(assign, "Assign", [var, restore], T=("type", _FLOAT))
            restore_all.input.append("^" + assign)
            _sort_controls(restore_all)
        self._extend_save(save, data, variables)

    def _extend_save(self, save, data, variables):
        for const_name, extra in ((data[1], variables), (data[2], [""] * len(variables))):
            const = self.by_name[_name_of(const_name)]
            old = list(make_ndarray(const.attr["value"].tensor).reshape(-1))
            const.attr["value"].tensor.CopyFrom(
                _string_tensor_content(old + [e.encode() for e in extra]))
        dtypes = list(save.attr["dtypes"].list.type) + [_FLOAT] * len(variables)
        name = save.name
        # TF builds a new SaveV2 (at the graph's end) and moves the old one's control
        # outputs to it.
        self.graph.node.remove(save)
        self.add(name, "SaveV2", data + list(variables), dtypes=("types", dtypes))


def _string_tensor_content(values):
    """A string vector TensorProto packed as TF re-packs an edited Const: every length as
    a varint, then every string's bytes, in tensor_content."""
    proto = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING)
    proto.tensor_shape.dim.add(size=len(values))
    proto.tensor_content = (b"".join(encode_varint(len(v)) for v in values) + b"".join(values))
    return proto


def _np_dtype(dtype):
    return {_FLOAT: np.float32, _INT32: np.int32, types_pb2.DT_STRING: np.object_}[dtype]


def _set_attr(attr, value):
    kind, v = value
    if kind == "type":
        attr.type = v
    elif kind == "b":
        attr.b = v
    elif kind == "i":
        attr.i = v
    elif kind == "shape":
        attr.shape.CopyFrom(_shape(v))
    elif kind == "tensor":
        attr.tensor.CopyFrom(v)
    elif kind == "types":
        attr.list.type.extend(v)


def _shape(dims):
    proto = tensor_shape_pb2.TensorShapeProto()
    for d in dims:
        proto.dim.add(size=d)
    return proto


def _add_default_attrs(node):
    """Fills in the op's attr defaults the node leaves out, as TF's importer does."""
    proto = op_def_proto(node.op)
    if proto is None:
        return
    for attr in proto.attr:
        if attr.HasField("default_value") and attr.name not in node.attr:
            node.attr[attr.name].CopyFrom(attr.default_value)


def _sort_controls(node):
    data = [i for i in node.input if not i.startswith("^")]
    controls = sorted(i for i in node.input if i.startswith("^"))
    del node.input[:]
    node.input.extend(data + controls)


def do_quantize_training_on_graphdef(input_graph, num_bits):
    """Returns a copy of the GraphDef `input_graph` rewritten for quantized training with
    `num_bits`-bit QuantizeAndDequantizeV2 nodes on the inputs of MatMul and Conv2D.

    Raises:
      OutOfRangeError: if num_bits is not in [1, 63].
      UnimplementedError: if more than two such inputs come from ops of unknown kind.
      InvalidArgumentError: if the graph holds several SaveV2 ops, or one without its
        `restore_all` NoOp.
    """
    if num_bits < 1 or num_bits > 63:
        raise errors.OutOfRangeError(
            None, None, f"num_bits should be in range [1, 63] but is: {num_bits}")
    return _Rewriter(input_graph).rewrite(int(num_bits))
