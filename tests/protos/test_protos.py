"""The generated proto modules read and write the files real TensorFlow wrote."""
import glob
import importlib
import json
import os

import numpy as np
import pytest
from google.protobuf import any_pb2, descriptor_pool, text_format

import trainflow._src.protos
from trainflow._src.protos._pool import POOL
from trainflow._src.protos import (checkpoint_state_pb2, config_pb2, event_pb2, example_pb2,
                              feature_pb2, graph_pb2, meta_graph_pb2, queue_runner_pb2,
                              saver_pb2, types_pb2, variable_pb2)

from fixture_paths import FIXTURES

PROTO_DIR = os.path.dirname(os.path.abspath(trainflow._src.protos.__file__))


def _fixture(*parts):
    return os.path.join(FIXTURES, *parts)


def test_every_proto_source_has_an_importable_module():
    sources = sorted(glob.glob(os.path.join(PROTO_DIR, "*.proto")))
    assert len(sources) >= 30
    for src in sources:
        stem = os.path.basename(src)[:-len(".proto")]
        module = importlib.import_module(f"trainflow._src.protos.{stem}_pb2")
        assert module.DESCRIPTOR.name == f"trainflow/_src/protos/{stem}.proto"
        assert module.DESCRIPTOR.package.startswith("tensorflow")
        assert module.DESCRIPTOR.pool is POOL


def test_messages_have_tensorflows_full_names_in_a_pool_of_their_own():
    assert event_pb2.Event.DESCRIPTOR.full_name == "tensorflow.Event"
    assert meta_graph_pb2.MetaGraphDef.DESCRIPTOR.full_name == "tensorflow.MetaGraphDef"
    # Not in protobuf's default pool, where TensorFlow's own modules register these names.
    with pytest.raises(KeyError):
        descriptor_pool.Default().FindMessageTypeByName("tensorflow.Event")
    packed = any_pb2.Any()
    packed.Pack(meta_graph_pb2.AssetFileDef(filename="vocab.txt"))
    assert packed.type_url == "type.googleapis.com/tensorflow.AssetFileDef"


def test_datatype_enum_has_plain_and_ref_values():
    assert types_pb2.DT_FLOAT == 1 and types_pb2.DT_BFLOAT16 == 14 and types_pb2.DT_HALF == 19
    assert types_pb2.DT_UINT64 == 23 and types_pb2.DT_FLOAT4_E2M1FN == 33
    for name, number in types_pb2.DataType.items():
        if name.endswith("_REF"):
            assert types_pb2.DataType.Value(name[:-4]) == number - 100


def test_mlp_graph_binary_and_text_agree():
    with open(_fixture("graphs", "mlp_graph.pb"), "rb") as f:
        binary = graph_pb2.GraphDef.FromString(f.read())
    with open(_fixture("graphs", "mlp_graph.pbtxt")) as f:
        text = text_format.Parse(f.read(), graph_pb2.GraphDef())
    assert binary == text
    with open(_fixture("graphs", "mlp.json")) as f:
        expected = json.load(f)
    assert len(binary.node) == expected["node_count"]
    by_name = {n.name: n for n in binary.node}
    for node in expected["nodes"]:
        got = by_name[node["name"]]
        assert got.op == node["op"]
        assert sorted(got.attr) == sorted(node["attr_keys"])
    assert by_name["x"].attr["dtype"].type == types_pb2.DT_FLOAT
    assert [d.size for d in by_name["x"].attr["shape"].shape.dim] == [-1, 4]


def test_graph_roundtrips_byte_for_byte():
    with open(_fixture("graphs", "mlp_graph.pb"), "rb") as f:
        data = f.read()
    assert graph_pb2.GraphDef.FromString(data).SerializeToString(deterministic=True) == data


@pytest.mark.parametrize(
    "path", sorted(glob.glob(os.path.join(FIXTURES, "checkpoints", "*", "*.meta"))))
def test_meta_graphs_parse(path):
    with open(path, "rb") as f:
        data = f.read()
    meta = meta_graph_pb2.MetaGraphDef.FromString(data)
    assert meta.meta_info_def.tensorflow_version == "2.21.0"
    assert meta.saver_def.version == saver_pb2.SaverDef.V2
    assert meta.saver_def.restore_op_name.endswith("restore_all")
    assert len(meta.graph_def.node) > 0
    assert len(meta.meta_info_def.stripped_op_list.op) > 0
    for raw in meta.collection_def["variables"].bytes_list.value:
        var = variable_pb2.VariableDef.FromString(raw)
        assert var.variable_name.endswith(":0")
    # Every field TF wrote is in our schema, so re-serializing loses nothing.
    again = meta.SerializeToString(deterministic=True)
    assert len(again) == len(data)
    assert meta_graph_pb2.MetaGraphDef.FromString(again) == meta


def test_partitioned_save_slice_info():
    with open(_fixture("checkpoints", "c_partitioned", "model.ckpt.meta"), "rb") as f:
        meta = meta_graph_pb2.MetaGraphDef.FromString(f.read())
    infos = {}
    for raw in meta.collection_def["variables"].bytes_list.value:
        var = variable_pb2.VariableDef.FromString(raw)
        if var.HasField("save_slice_info_def"):
            infos[var.variable_name] = var.save_slice_info_def
    info = infos["part/part_0:0"]
    assert info.full_name == "part"
    assert list(info.full_shape) == [10, 3]
    assert list(info.var_offset) == [0, 0] and list(info.var_shape) == [4, 3]


@pytest.mark.parametrize(
    "path", sorted(glob.glob(os.path.join(FIXTURES, "checkpoints", "*", "checkpoint"))))
def test_checkpoint_state_text_parses(path):
    with open(path) as f:
        text = f.read()
    state = text_format.Parse(text, checkpoint_state_pb2.CheckpointState())
    assert state.model_checkpoint_path
    assert state.all_model_checkpoint_paths[-1] == state.model_checkpoint_path
    assert text_format.MessageToString(state) == text


def _feature_from_json(spec):
    feature = feature_pb2.Feature()
    kind = spec["kind"]
    if kind == "int64_list":
        feature.int64_list.value.extend(spec["value"])
    elif kind == "float_list":
        feature.float_list.value.extend(spec["value"])
    elif kind == "bytes_list":
        feature.bytes_list.value.extend(bytes.fromhex(h) for h in spec["value_hex"])
    return feature


def _records():
    with open(_fixture("records", "records.json")) as f:
        return json.load(f)


def test_examples_serialize_to_tf_bytes():
    records = _records()
    for i, hex_bytes in enumerate(records["serialized_hex_first3"]):
        example = example_pb2.Example()
        for key, spec in records["examples"][i].items():
            example.features.feature[key].CopyFrom(_feature_from_json(spec))
        assert example.SerializeToString(deterministic=True) == bytes.fromhex(hex_bytes)
        assert example_pb2.Example.FromString(bytes.fromhex(hex_bytes)) == example


def test_sequence_examples_serialize_to_tf_bytes():
    records = _records()
    for decoded, hex_bytes in zip(records["sequence_examples"], records["sequence_serialized_hex"]):
        seq = example_pb2.SequenceExample()
        for key, spec in decoded["context"].items():
            seq.context.feature[key].CopyFrom(_feature_from_json(spec))
        for key, steps in decoded["feature_lists"].items():
            feature_list = seq.feature_lists.feature_list[key]
            for step in steps:
                feature_list.feature.add().CopyFrom(_feature_from_json(step))
        assert seq.SerializeToString(deterministic=True) == bytes.fromhex(hex_bytes)


def test_float_and_int64_lists_are_packed():
    feature = feature_pb2.Feature(float_list=feature_pb2.FloatList(value=[1.0, 2.0]))
    # field 2 (float_list), then field 1 packed: tag 0x0a, length 8, two floats
    assert feature.SerializeToString() == b"\x12\x0a\x0a\x08" + np.array([1, 2], "<f4").tobytes()
    feature = feature_pb2.Feature(int64_list=feature_pb2.Int64List(value=[1, 2]))
    assert feature.SerializeToString() == b"\x1a\x04\x0a\x02\x01\x02"


def test_queue_runner_error_codes_and_config_messages():
    qr = queue_runner_pb2.QueueRunnerDef(queue_name="q", enqueue_op_name=["q/enqueue"])
    qr.queue_closed_exception_types.append(11)  # OUT_OF_RANGE
    assert "OUT_OF_RANGE" in text_format.MessageToString(qr)
    opts = config_pb2.RunOptions(trace_level=config_pb2.RunOptions.FULL_TRACE, timeout_in_ms=5)
    assert config_pb2.RunOptions.FromString(opts.SerializeToString()).trace_level == 3
    config = config_pb2.ConfigProto(intra_op_parallelism_threads=1, device_count={"CPU": 1})
    config.gpu_options.allow_growth = True
    assert config_pb2.ConfigProto.FromString(config.SerializeToString()) == config
    event = event_pb2.Event(file_version="brain.Event:2", wall_time=1.0)
    assert event.WhichOneof("what") == "file_version"
