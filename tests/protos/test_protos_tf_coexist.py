"""trainflow's protos keep TensorFlow's full names in a pool of their own, so TensorFlow
and trainflow import side by side in one process and their messages read each other's
bytes (TensorFlow's python; skipped without it)."""
import os

from tf_interop import needs_tf, run_json

import trainflow

_SRC = os.path.dirname(os.path.dirname(os.path.abspath(trainflow.__file__)))

_BOTH = r"""
import json, sys
import tensorflow as tf
sys.path.insert(0, sys.argv[1])
import trainflow.compat.v1 as tft
from trainflow._src.protos import event_pb2, meta_graph_pb2
ours = event_pb2.Event(step=7, file_version="brain.Event:2")
theirs = tf.compat.v1.Event.FromString(ours.SerializeToString())
packed = meta_graph_pb2.CollectionDef().any_list.value.add()
from tensorflow.core.protobuf import meta_graph_pb2 as tf_meta_graph_pb2
packed.Pack(tf_meta_graph_pb2.AssetFileDef(filename="vocab.txt"))
asset = meta_graph_pb2.AssetFileDef()
packed.Unpack(asset)
print(json.dumps([event_pb2.Event.DESCRIPTOR.full_name,
                  tf.compat.v1.Event.DESCRIPTOR.full_name, theirs.step, theirs.file_version,
                  packed.type_url, asset.filename, tft.Event is event_pb2.Event]))
"""


@needs_tf
def test_tensorflow_and_trainflow_protos_in_one_process():
    assert run_json(_BOTH, _SRC) == [
        "tensorflow.Event", "tensorflow.Event", 7, "brain.Event:2",
        "type.googleapis.com/tensorflow.AssetFileDef", "vocab.txt", True]
