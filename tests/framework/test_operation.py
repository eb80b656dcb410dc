"""Operation: identity, inputs/outputs, node_def, get_attr types, run(), creation site."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.protos import node_def_pb2, tensor_pb2, tensor_shape_pb2


@pytest.fixture
def graph():
    g = tf.Graph()
    with g.as_default():
        p = tf.placeholder(tf.float32, [None, 3], name="p")
        c = tf.constant([[1, 2, 3]], dtype=tf.float32, name="c")
        tf.identity(p, name="i")  # line used by test_creation_site
        with tf.control_dependencies([c]):
            tf.identity(p, name="j")
        tf.constant("abc", name="s")
    return g


def test_basic_properties(graph):
    op = graph.get_operation_by_name("i")
    p = graph.get_tensor_by_name("p:0")
    assert (op.name, op.type, op.device, op.graph) == ("i", "Identity", "", graph)
    assert op.inputs == (p,) and isinstance(op.inputs, tuple)
    assert op.outputs == [graph.get_tensor_by_name("i:0")] and isinstance(op.outputs, list)
    assert op.values() == tuple(op.outputs)
    assert op.control_inputs == []
    j = graph.get_operation_by_name("j")
    assert j.control_inputs == [graph.get_operation_by_name("c")]
    assert repr(op) == "<tf.Operation 'i' type=Identity>"
    assert p.consumers() == [op, j]


def test_node_def(graph):
    nd = graph.get_operation_by_name("j").node_def
    assert isinstance(nd, node_def_pb2.NodeDef)
    assert (nd.name, nd.op, list(nd.input)) == ("j", "Identity", ["p", "^c"])
    assert nd.attr["T"].type == tf.float32.as_datatype_enum
    assert 'name: "j"' in str(graph.get_operation_by_name("j"))


def test_get_attr_return_types(graph):
    i = graph.get_operation_by_name("i")
    p = graph.get_operation_by_name("p")
    c = graph.get_operation_by_name("c")
    assert i.get_attr("T") is tf.float32
    assert p.get_attr("dtype") is tf.float32
    shape = p.get_attr("shape")
    assert isinstance(shape, tensor_shape_pb2.TensorShapeProto)
    assert [d.size for d in shape.dim] == [-1, 3]
    value = c.get_attr("value")
    assert isinstance(value, tensor_pb2.TensorProto)
    assert [d.size for d in value.tensor_shape.dim] == [1, 3]
    s = graph.get_operation_by_name("s").get_attr("value")
    assert list(s.string_val) == [b"abc"]
    with pytest.raises(ValueError, match="Operation 'i' has no attr named 'nope'."):
        i.get_attr("nope")


def test_list_and_string_attrs():
    with tf.Graph().as_default():
        a = tf.constant(1, name="a")
        with tf.colocate_with(a):
            b = tf.constant(1, name="b")
    assert b.op.get_attr("_class") == [b"loc:@a"]


def test_run_and_missing_session(graph):
    op = graph.get_operation_by_name("i")
    with pytest.raises(ValueError, match=r"Cannot execute operation using `run\(\)`: No "
                       r"default session is registered. Use `with sess.as_default\(\):`"):
        op.run()
    with tf.Session(graph=graph) as sess:
        assert op.run(feed_dict={"p:0": [[1, 2, 3]]}) is None
        assert graph.get_operation_by_name("c").run(session=sess) is None
    with tf.Session(graph=tf.Graph()) as other:
        with pytest.raises(ValueError, match="the tensor's graph is different from the "
                           "session's graph"):
            op.run(session=other)


def test_creation_site_names_user_code(graph):
    op = graph.get_operation_by_name("i")
    filename, lineno, func = op.traceback[-1]
    assert filename == __file__ and func == "graph"
    assert op.creation_site == f"{__file__}:{lineno}"
    with open(__file__) as f:
        assert 'tf.identity(p, name="i")' in f.read().splitlines()[lineno - 1]


def test_runtime_errors_name_the_op_and_its_line():
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, name="needs_feed")
        line = p.op.traceback[-1][1]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(p)
    assert info.value.op is p.op
    assert f"[[node needs_feed (Placeholder) defined at {__file__}:{line} ]]" in info.value.message
    assert info.value.node_def.name == "needs_feed"


def test_ops_hash_by_identity(graph):
    op = graph.get_operation_by_name("i")
    assert {op: 1}[op] == 1
    assert op == graph.get_operation_by_name("i")
    assert op != graph.get_operation_by_name("j")
