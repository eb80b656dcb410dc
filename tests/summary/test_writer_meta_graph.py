"""FileWriter(graph=...) writes the full MetaGraphDef (op list, collections) after the graph."""
import glob

import trainflow.compat.v1 as tf
from trainflow._src.protos import meta_graph_pb2


def test_file_writer_graph_writes_meta_graph(tmp_path):
    with tf.Graph().as_default() as g:
        tf.Variable([1.0], name="v")
        tf.add_to_collection("my_ints", 3)
        writer = tf.summary.FileWriter(str(tmp_path), graph=g)
        writer.close()
    events = list(tf.train.summary_iterator(glob.glob(str(tmp_path / "events.*"))[0]))
    metas = [e.meta_graph_def for e in events if e.meta_graph_def]
    assert len(metas) == 1 and any(e.graph_def for e in events)
    mgd = meta_graph_pb2.MetaGraphDef.FromString(metas[0])
    assert "VariableV2" in [o.name for o in mgd.meta_info_def.stripped_op_list.op]
    assert list(mgd.collection_def["my_ints"].int64_list.value) == [3]
    assert len(mgd.collection_def["variables"].bytes_list.value) == 1
