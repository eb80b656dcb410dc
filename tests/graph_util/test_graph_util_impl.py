"""tf.graph_util's GraphDef helpers: extract_sub_graph, remove_training_nodes,
must_run_on_cpu, tensor_shape_from_node_def_name, and device functions built on
must_run_on_cpu (the behaviour of TF's graph_util_test)."""
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.formats.tensor_proto import make_tensor_proto
from trainflow._src.protos import attr_value_pb2, graph_pb2, node_def_pb2


def _node(op, name, inputs=()):
    return node_def_pb2.NodeDef(op=op, name=name, input=list(inputs))


def _const(name, value, dtype=tf.float32, inputs=()):
    node = _node("Const", name, inputs)
    node.attr["dtype"].type = dtype.as_datatype_enum
    node.attr["value"].CopyFrom(attr_value_pb2.AttrValue(
        tensor=make_tensor_proto(value, dtype=dtype, shape=[])))
    return node


def _with_attr(node, key, **value):
    node.attr[key].CopyFrom(attr_value_pb2.AttrValue(**value))
    return node


def _graph(*nodes):
    g = graph_pb2.GraphDef()
    g.node.extend(nodes)
    return g


def _pin_variables_to_cpu(op):
    if op.device:
        return op.device
    return "/cpu:0" if tf.graph_util.must_run_on_cpu(op, pin_variables_on_cpu=True) \
        else op.device


def test_two_device_functions():
    with tf.Graph().as_default() as g:
        var_0 = tf.Variable([0.0], name="var_0")
        with g.device(_pin_variables_to_cpu):
            var_1 = tf.Variable([1.0], name="var_1")
        var_2 = tf.Variable([2.0], name="var_2")
        with g.device(_pin_variables_to_cpu):
            var_4 = tf.Variable([4.0], name="var_4")
            with g.device("/device:GPU:0"):
                var_5 = tf.Variable([5.0], name="var_5")
            var_6 = tf.Variable([6.0], name="var_6")
    assert var_0.op.device == "" and var_2.op.device == ""
    assert tf.DeviceSpec.from_string(var_1.op.device).device_type == "CPU"
    assert tf.DeviceSpec.from_string(var_4.op.device).device_type == "CPU"
    assert tf.DeviceSpec.from_string(var_5.op.device).device_type == "GPU"
    assert tf.DeviceSpec.from_string(var_6.op.device).device_type == "CPU"


def test_extract_sub_graph():
    g = _graph(_node("", "n1", ["n5"]), _node("", "n2", ["n1:0"]), _node("", "n3", ["^n2"]),
               _node("", "n4"), _node("", "n5", ["n1"]))  # a loop is fine
    g.versions.producer = 27
    sub = tf.graph_util.extract_sub_graph(g, ["n3"])
    assert [n.name for n in sub.node] == ["n1", "n2", "n3", "n5"]
    assert sub.versions.producer == 27


def test_extract_sub_graph_keeps_colocated_nodes():
    node = _with_attr(_node("Identity", "b", ["a"]), "_class",
                      list=attr_value_pb2.AttrValue.ListValue(s=[b"loc:@c"]))
    sub = tf.graph_util.extract_sub_graph(_graph(_node("", "a"), node, _node("", "c")), ["b"])
    assert [n.name for n in sub.node] == ["a", "b", "c"]


@pytest.mark.parametrize("graph_def, dest, error", [
    (_graph(_node("", "n1")), "n1", TypeError),
    ("not a graph", ["n1"], TypeError),
    (_graph(_node("", "n1")), ["n2"], AssertionError),
])
def test_extract_sub_graph_errors(graph_def, dest, error):
    with pytest.raises(error):
        tf.graph_util.extract_sub_graph(graph_def, dest)


def test_remove_training_nodes():
    def add(name, inputs):
        return _with_attr(_node("Add", name, inputs), "T", type=tf.float32.as_datatype_enum)

    def sub():
        return _with_attr(_node("Sub", "sub", ["c_constant", "c_identity"]), "_class",
                          list=attr_value_pb2.AttrValue.ListValue(s=[b"c_identity"]))

    graph_def = _graph(
        _const("a_constant", 1), _node("CheckNumerics", "a_check", ["a_constant"]),
        _node("Identity", "a_identity", ["a_constant", "^a_check"]),
        _const("b_constant", 1), _node("CheckNumerics", "b_check", ["b_constant"]),
        _node("Identity", "b_identity", ["b_constant", "^b_check"]),
        add("add", ["a_identity", "b_identity"]),
        _const("c_constant", 1), _node("Identity", "c_identity", ["c_constant"]), sub())
    expected = _graph(_const("a_constant", 1), _const("b_constant", 1),
                      add("add", ["a_constant", "b_constant"]), _const("c_constant", 1),
                      _node("Identity", "c_identity", ["c_constant"]), sub())
    assert tf.graph_util.remove_training_nodes(graph_def) == expected


def test_remove_identity_chains():
    graph_def = _graph(_node("Aop", "A", ["B"]), _node("Identity", "B", ["C"]),
                       _node("Identity", "C", ["D"]), _node("Dop", "D"))
    assert tf.graph_util.remove_training_nodes(graph_def) == _graph(
        _node("Aop", "A", ["D"]), _node("Dop", "D"))


def test_remove_training_nodes_keeps_protected_and_control_identities():
    graph_def = _graph(_const("C", 1, inputs=["^I"]), _node("Identity", "I", ["Base"]),
                       _node("BaseOp", "Base"))
    assert tf.graph_util.remove_training_nodes(graph_def) == graph_def
    graph_def = _graph(_node("Aop", "A", ["B"]), _node("Identity", "B", ["D"]),
                       _node("CheckNumerics", "K", ["D"]), _node("Dop", "D"))
    assert tf.graph_util.remove_training_nodes(graph_def, protected_nodes=["B", "K"]) == \
        graph_def


@pytest.mark.parametrize("node, pin, want", [
    (_const("c", 1, tf.int32), False, True),
    (_const("c", "s", tf.string), False, True),
    (_const("c", 1.0, tf.float32), False, False),
    (_with_attr(_node("DynamicStitch", "d"), "T", type=tf.int32.as_datatype_enum), False, True),
    (_with_attr(_node("DynamicStitch", "d"), "T", type=tf.float32.as_datatype_enum), False,
     False),
    (_with_attr(_node("Cast", "c"), "SrcT", type=tf.int32.as_datatype_enum), False, True),
    (_node("VariableV2", "v"), True, True),
    (_node("VariableV2", "v"), False, False),
    (_node("MatMul", "m"), True, False),
])
def test_must_run_on_cpu(node, pin, want):
    assert tf.graph_util.must_run_on_cpu(node, pin_variables_on_cpu=pin) is want


def test_must_run_on_cpu_takes_operations():
    with tf.Graph().as_default():
        assert tf.graph_util.must_run_on_cpu(tf.constant(1).op)
        assert not tf.graph_util.must_run_on_cpu(tf.constant(1.0).op)


def test_tensor_shape_from_node_def_name():
    with tf.Graph().as_default() as g:
        tf.placeholder(tf.float32, [None, 3], name="x")
        tf.split(tf.zeros([4, 6]), 2, axis=1, name="s")
    assert tf.graph_util.tensor_shape_from_node_def_name(g, "x").as_list() == [None, 3]
    assert tf.graph_util.tensor_shape_from_node_def_name(g, "s:1").as_list() == [4, 3]


def _device_type(op):
    return tf.DeviceSpec.from_string(op.device).device_type if op.device else None


def test_nested_device_functions():
    with tf.Graph().as_default():
        var_0 = tf.Variable(0)
        with tf.device(_pin_variables_to_cpu):
            var_1 = tf.Variable(1)
            with tf.device(lambda op: "/device:GPU:0"):
                var_2 = tf.Variable(2)
            with tf.device("/device:GPU:0"):  # merges with the outer device function
                var_3 = tf.Variable(3)
    assert [_device_type(v.op) for v in (var_0, var_1, var_2, var_3)] == [
        None, "CPU", "GPU", "GPU"]


def test_explicit_and_default_devices():
    with tf.Graph().as_default() as g:
        const_0 = tf.constant(5.0)
        devices = ["/device:GPU:0", "/device:GPU:1", "/device:CPU:0", "/device:CPU:1",
                   "/job:ps"]
        consts = []
        for d in devices:
            with g.device(d):
                consts.append(tf.constant(5.0))
    assert const_0.op.device == ""
    for d, c in zip(devices, consts):
        assert tf.DeviceSpec.from_string(c.op.device) == tf.DeviceSpec.from_string(d)
    with tf.Graph().as_default() as g, g.device(_pin_variables_to_cpu):
        consts = []
        for d in devices + ["/replica:0"]:
            with g.device(d):
                consts.append(tf.constant(5.0))
    for d, c in zip(devices + ["/replica:0"], consts):
        assert tf.DeviceSpec.from_string(c.op.device) == tf.DeviceSpec.from_string(d)
