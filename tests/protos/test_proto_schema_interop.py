"""Our .proto schemas agree with TensorFlow's own descriptors (field numbers,
types, labels, packing, oneofs). Runs TF in a subprocess; skipped without it."""
from tf_interop import TF_PYTHON, needs_tf, run_json

pytestmark = needs_tf

# our module stem -> TensorFlow's generated module
TF_MODULES = {
    "types": "tensorflow.core.framework.types_pb2",
    "tensor_shape": "tensorflow.core.framework.tensor_shape_pb2",
    "resource_handle": "tensorflow.core.framework.resource_handle_pb2",
    "tensor": "tensorflow.core.framework.tensor_pb2",
    "versions": "tensorflow.core.framework.versions_pb2",
    "attr_value": "tensorflow.core.framework.attr_value_pb2",
    "node_def": "tensorflow.core.framework.node_def_pb2",
    "op_def": "tensorflow.core.framework.op_def_pb2",
    "function": "tensorflow.core.framework.function_pb2",
    "graph": "tensorflow.core.framework.graph_pb2",
    "graph_debug_info": "tensorflow.core.framework.graph_debug_info_pb2",
    "full_type": "tensorflow.core.framework.full_type_pb2",
    "tensor_description": "tensorflow.core.framework.tensor_description_pb2",
    "allocation_description": "tensorflow.core.framework.allocation_description_pb2",
    "step_stats": "tensorflow.core.framework.step_stats_pb2",
    "cost_graph": "tensorflow.core.framework.cost_graph_pb2",
    "variable": "tensorflow.core.framework.variable_pb2",
    "summary": "tensorflow.core.framework.summary_pb2",
    "tensor_slice": "tensorflow.core.framework.tensor_slice_pb2",
    "config": "tensorflow.core.protobuf.config_pb2",
    "cluster": "tensorflow.core.protobuf.cluster_pb2",
    "device_filters": "tensorflow.core.protobuf.device_filters_pb2",
    "debug": "tensorflow.core.protobuf.debug_pb2",
    "tensorflow_server": "tensorflow.core.protobuf.tensorflow_server_pb2",
    "saver": "tensorflow.core.protobuf.saver_pb2",
    "queue_runner": "tensorflow.core.protobuf.queue_runner_pb2",
    "meta_graph": "tensorflow.core.protobuf.meta_graph_pb2",
    "struct": "tensorflow.core.protobuf.struct_pb2",
    "tensor_bundle": "tensorflow.core.protobuf.tensor_bundle_pb2",
    "trackable_object_graph": "tensorflow.core.protobuf.trackable_object_graph_pb2",
    "saved_tensor_slice": "tensorflow.core.util.saved_tensor_slice_pb2",
    "event": "tensorflow.core.util.event_pb2",
    "feature": "tensorflow.core.example.feature_pb2",
    "example": "tensorflow.core.example.example_pb2",
    "checkpoint_state": "tensorflow.python.training.checkpoint_state_pb2",
    # TF moved these three under xla/tsl; summary.proto holds HistogramProto for us.
    "device_attributes": "tensorflow.core.framework.device_attributes_pb2",
    "named_tensor": "tensorflow.core.protobuf.named_tensor_pb2",
    "error_codes": "tensorflow.compiler.xla.tsl.protobuf.error_codes_pb2",
    "rpc_options": "tensorflow.compiler.xla.tsl.protobuf.rpc_options_pb2",
    "histogram": "tensorflow.compiler.xla.tsl.protobuf.histogram_pb2",
}

# Fields we leave out on purpose (their types pull in large trees we do not use).
OMITTED = {
    ("ConfigProto.Experimental", "coordination_config"),
    ("GraphOptions", "rewrite_options"),
    ("MetaGraphDef", "object_graph_def"),
}

# Prints {message or enum name without package: {field: [number, type, repeated,
# packed, oneof, type name]} or {value name: number}} for the modules in argv.
_SCHEMA_SCRIPT = r'''
import importlib, json, sys
def strip(n):
    for p in ("tensorflow.", "trainflow."):
        if n.startswith(p):
            return n[len(p):]
    return n
def add_message(m, out):
    fields = {}
    for f in m.fields:
        ref = f.message_type or f.enum_type
        fields[f.name] = [f.number, f.type, f.is_repeated, f.is_packed,
                          f.containing_oneof.name if f.containing_oneof else None,
                          strip(ref.full_name) if ref else None]
    out[strip(m.full_name)] = fields
    for e in m.enum_types:
        out[strip(e.full_name)] = {v.name: v.number for v in e.values}
    for n in m.nested_types:
        add_message(n, out)
out = {}
for name in sys.argv[1:]:
    fd = importlib.import_module(name).DESCRIPTOR
    for e in fd.enum_types_by_name.values():
        out[strip(e.full_name)] = {v.name: v.number for v in e.values}
    for m in fd.message_types_by_name.values():
        add_message(m, out)
json.dump(out, sys.stdout)
'''


def _schema(python, modules):
    return run_json(_SCHEMA_SCRIPT, *modules, python=python)


def test_schemas_match_tensorflow():
    import sys
    ours = _schema(sys.executable, [f"trainflow._src.protos.{stem}_pb2"
                                    for stem in TF_MODULES if stem != "histogram"])
    theirs = _schema(TF_PYTHON, list(TF_MODULES.values()))
    problems = []
    for name, fields in theirs.items():
        if name not in ours:
            problems.append(f"missing {name}")
            continue
        for field, spec in fields.items():
            if (name, field) in OMITTED:
                assert field not in ours[name]
                continue
            if ours[name].get(field) != spec:
                problems.append(f"{name}.{field}: TF {spec}, ours {ours[name].get(field)}")
    assert not problems, "\n".join(problems)
