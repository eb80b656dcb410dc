"""A TF1 program building summaries under scopes, families, repeated and illegal names,
custom collections, and merge/merge_all with key and scope; prints the node names, op
types and tags it made, as JSON. Standard library only, so TensorFlow's python runs it:
    python tests/helpers/summary_naming.py tensorflow.compat.v1
"""
import importlib
import json
import sys


def build(module):
    """The graph's summary nodes (name, type, inputs, tag) and collections, as a dict."""
    tf = importlib.import_module(module)
    if hasattr(tf, "disable_v2_behavior"):
        tf.disable_v2_behavior()
    with tf.Graph().as_default() as g:
        x = tf.constant(1.0, name="x")
        v = tf.constant([1.0, 2.0], name="v")
        tf.summary.scalar("loss", x)
        tf.summary.scalar("loss", x)
        tf.summary.scalar("loss", x, family="train")
        tf.summary.scalar("loss", x, family="train")
        with tf.name_scope("outer"):
            tf.summary.scalar("acc", x)
            tf.summary.histogram("w", v, family="params")
            tf.summary.histogram("w", v, collections=["mine"])
        tf.summary.scalar("my loss (train)", x)
        tf.summary.scalar("/lead", x)
        tf.summary.image("pic", tf.zeros([1, 2, 2, 1]), family="imgs")
        tf.summary.audio("snd", tf.zeros([1, 4]), 100, family="sounds")
        tf.summary.text("note", tf.constant("hi"))
        tf.summary.tensor_summary("raw", v, family="fam", display_name="d")
        tf.summary.merge_all(scope="outer")
        tf.summary.merge_all(key="mine", name="mine merged")
        tf.summary.merge([tf.summary.scalar("a", x, collections=[])], name="m")
        assert tf.summary.merge_all(key="nothing") is None
        nodes = []
        for op in g.get_operations():
            if op.type == "Const" and op.name not in ("x", "v"):
                value = op.get_attr("value")
                if value.string_val:
                    nodes.append([op.name, "Const", value.string_val[0].decode("latin-1")])
                continue
            nodes.append([op.name, op.type, [t.name for t in op.inputs]])
        collections = {k: [t.name for t in g.get_collection(k)] for k in ("summaries", "mine")}
    return {"nodes": nodes, "collections": collections}


if __name__ == "__main__":
    print(json.dumps(build(sys.argv[1])))
