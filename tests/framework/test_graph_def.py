"""Graph.as_graph_def and tf.import_graph_def.

Expected names, attrs and messages were recorded from TensorFlow 2.21 (compat.v1).
"""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.dtypes import float32_ref
from trainflow._src.ops.state import state_ops
from trainflow._src.protos import graph_pb2


def _build():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        p = tf.placeholder(tf.float32, [None, 2], name="p")
        with g.device("/cpu:0"):
            i = tf.identity(p, name="i")
        with g.control_dependencies([a]):
            j = tf.identity(i, name="j")
        with g.colocate_with(i):
            tf.identity(j, name="k")
        tf.placeholder_with_default(a, [], name="pw")
        tf.no_op(name="n")
    return g


@pytest.fixture
def gd():
    return _build().as_graph_def()


def _nodes(gd):
    return {n.name: n for n in gd.node}


class TestExport:
    def test_nodes_inputs_devices_and_attrs(self, gd):
        assert isinstance(gd, graph_pb2.GraphDef)
        got = [(n.name, n.op, list(n.input), n.device, sorted(n.attr)) for n in gd.node]
        assert got == [
            ("a", "Const", [], "", ["_has_manual_control_dependencies", "dtype", "value"]),
            ("p", "Placeholder", [], "", ["dtype", "shape"]),
            ("i", "Identity", ["p"], "/device:CPU:0", ["T"]),
            ("j", "Identity", ["i", "^a"], "", ["T"]),
            ("k", "Identity", ["j"], "/device:CPU:0", ["T", "_class"]),
            ("pw", "PlaceholderWithDefault", ["a"], "", ["dtype", "shape"]),
            ("n", "NoOp", [], "", []),
        ]
        nodes = _nodes(gd)
        assert nodes["k"].attr["_class"].list.s == [b"loc:@i"]
        assert nodes["a"].attr["_has_manual_control_dependencies"].b is True
        assert [d.size for d in nodes["p"].attr["shape"].shape.dim] == [-1, 2]
        assert nodes["a"].attr["value"].tensor.float_val == [1.0]
        assert gd.versions.producer == 2474
        assert not gd.library.function

    def test_default_attrs_are_written(self):
        with tf.Graph().as_default() as g:
            v = state_ops.variable_op_v2([2], tf.float32, name="v")
            state_ops.assign(v, np.zeros(2, np.float32), name="assign")
        nodes = _nodes(g.as_graph_def())
        assert nodes["v"].attr["container"].s == b"" and "shared_name" in nodes["v"].attr
        assert nodes["assign"].attr["use_locking"].b is True
        assert nodes["assign"].attr["validate_shape"].b is True
        assert nodes["assign"].input == ["v", "assign/value"]

    def test_add_shapes_and_from_version(self):
        g = _build()
        gd = g.as_graph_def(add_shapes=True)
        shapes = _nodes(gd)["i"].attr["_output_shapes"].list.shape
        assert [d.size for d in shapes[0].dim] == [-1, 2]
        assert not _nodes(gd)["a"].attr["_output_shapes"].list.shape[0].dim
        assert [n.name for n in g.as_graph_def(from_version=3).node] == ["j", "k", "pw", "n"]

    def test_graph_def_round_trips_through_bytes(self, gd):
        again = graph_pb2.GraphDef.FromString(gd.SerializeToString())
        assert again == gd


class TestImport:
    def test_names_devices_colocation_and_shapes(self, gd):
        with tf.Graph().as_default() as h:
            assert tf.import_graph_def(gd) is None
            assert [op.name for op in h.get_operations()] == [
                "import/a", "import/p", "import/i", "import/j", "import/k", "import/pw",
                "import/n"]
            k = h.get_operation_by_name("import/k")
            assert k.device == "/device:CPU:0"
            assert k.get_attr("_class") == [b"loc:@import/i"]
            assert [t.name for t in k.inputs] == ["import/j:0"]
            assert h.get_operation_by_name("import/j").control_inputs == [
                h.get_operation_by_name("import/a")]
            assert h.get_tensor_by_name("import/k:0").shape.as_list() == [None, 2]
            tf.import_graph_def(gd)
            assert h.get_operations()[-1].name == "import_1/n"

    def test_return_elements_and_name(self, gd):
        with tf.Graph().as_default():
            k, n, p = tf.import_graph_def(gd, return_elements=["k:0", "n", "p"], name="x")
            assert (k.name, n.name, p.name) == ("x/k:0", "x/n", "x/p")
            with tf.name_scope("outer"):
                [k2] = tf.import_graph_def(gd, return_elements=["k"])
            assert k2.name == "outer/import/k"
            assert k2.get_attr("_class") == [b"loc:@outer/import/i"]
            tf.constant(1, name="taken")
            [a] = tf.import_graph_def(gd, return_elements=["a"], name="taken")
            assert a.name == "taken_1/a"

    def test_empty_name_imports_names_as_they_are(self, gd):
        with tf.Graph().as_default() as h:
            tf.import_graph_def(gd, name="")
            tf.import_graph_def(gd, name="")
            names = [op.name for op in h.get_operations()]
        assert names[:7] == ["a", "p", "i", "j", "k", "pw", "n"]
        assert names[7:] == ["a_1", "p_1", "i_1", "j_1", "k_1", "pw_1", "n_1"]
        assert h.get_operation_by_name("j_1").inputs[0].name == "i_1:0"

    def test_input_map(self, gd):
        with tf.Graph().as_default() as h:
            c = tf.constant([[5.0, 6.0]], name="feedval")
            [k] = tf.import_graph_def(gd, input_map={"p:0": c}, return_elements=["k:0"],
                                      name="m")
            assert [t.name for t in h.get_operation_by_name("m/i").inputs] == ["feedval:0"]
            assert k.shape.as_list() == [1, 2]
            with tf.Session() as sess:
                np.testing.assert_array_equal(sess.run(k), [[5, 6]])
            [j] = tf.import_graph_def(gd, input_map={"p": c, "^a": c},
                                      return_elements=["j"], name="m2")
            assert [t.name for t in j.inputs] == ["m2/i:0"]
            assert j.control_inputs == [c.op]
            # A mapped tensor is what a return element naming it gives back.
            scalar = tf.constant(3.0)
            [mapped] = tf.import_graph_def(gd, input_map={"a:0": scalar},
                                           return_elements=["a:0"])
            assert mapped is scalar
            # Python values are converted (under "<name>/_inputs").
            [i] = tf.import_graph_def(gd, input_map={"p:0": [[1.0, 2.0]]},
                                      return_elements=["i"], name="m3")
            assert i.inputs[0].name == "m3/_inputs/Const:0"

    @pytest.mark.parametrize("kwargs, exc, message", [
        ({"input_map": {"zz:0": 1.0}}, ValueError,
         "Attempted to map inputs that were not found in graph_def: [zz:0]"),
        ({"input_map": {"p:0": 5}}, ValueError,
         "Input 0 of node import/i was passed int32 from import/_inputs/Const:0 incompatible "
         "with expected float."),
        ({"return_elements": ["zz"]}, ValueError,
         "Requested return node 'zz' not found in graph def"),
        ({"return_elements": ["zz:0"]}, ValueError,
         "Requested return tensor 'zz:0' not found in graph def"),
        ({"return_elements": ["k:3"]}, ValueError,
         "Invalid return output 3 of node 'k', which has 1 output(s)"),
        ({"return_elements": ["k:0:1"]}, ValueError,
         "Cannot convert 'k:0:1' to a tensor name. Tensor names should not contain more "
         "than 1 `:`. Obtained 2"),
        ({"input_map": 5}, TypeError, "Argument `input_map` must be a dictionary. Obtained "
                                      "int"),
        ({"name": 5}, TypeError, "Argument `name` must be a string. Obtained int"),
    ])
    def test_argument_errors(self, gd, kwargs, exc, message):
        with tf.Graph().as_default() as h:
            with pytest.raises(exc) as info:
                tf.import_graph_def(gd, **kwargs)
            assert str(info.value) == message
            # Only the converted input_map values (as in TF) stay in the graph.
            assert all("/_inputs/" in op.name for op in h.get_operations())

    def test_non_string_input_map_keys_and_bad_graph_def(self, gd):
        with tf.Graph().as_default():
            c = tf.constant(1.0)
            with pytest.raises(TypeError, match="All keys for argument `input_map` must be "
                               "strings. Obtained keys: "):
                tf.import_graph_def(gd, input_map={c: c})
            with pytest.raises(TypeError, match="Argument `graph_def` must be a GraphDef "
                               "proto."):
                tf.import_graph_def("notagraph")

    @staticmethod
    def _broken(gd, edit):
        bad = graph_pb2.GraphDef()
        bad.CopyFrom(gd)
        edit(bad)
        return bad

    @pytest.mark.parametrize("edit, exc, message", [
        (lambda d: d.node[2].input.__setitem__(0, "missing"), ValueError,
         "Node 'i': Unknown input node 'missing'"),
        (lambda d: d.node[2].input.__setitem__(0, "p:7"), ValueError,
         "Node 'i': Connecting to invalid output 7 of source node p which has 1 outputs."),
        (lambda d: setattr(d.node[2].attr["T"], "type", 3), ValueError,
         "Input 0 of node import/i was passed float from import/p:0 incompatible with "
         "expected int32."),
        (lambda d: d.node.add().CopyFrom(d.node[0]), ValueError, "Node 'a' is not unique"),
        (lambda d: d.node[2].attr.pop("T"), ValueError,
         "NodeDef missing attr 'T' from Op<name=Identity; signature=input:T -> output:T; "
         "attr=T:type>; NodeDef: {{node import/i}}"),
        (lambda d: setattr(d.node[2].attr["T"], "s", b"x"), ValueError,
         "AttrValue had value with type 'string' when 'type' expected\n\t for attr 'T'\n\t; "
         "NodeDef: {{node import/i}}; Op<name=Identity; signature=input:T -> output:T; "
         "attr=T:type>"),
        (lambda d: d.node[2].attr["T"].Clear(), ValueError,
         "AttrValue missing value with expected type 'type'\n\t for attr 'T'\n\t; "
         "NodeDef: {{node import/i}}; Op<name=Identity; signature=input:T -> output:T; "
         "attr=T:type>"),
        (lambda d: d.node[2].attr["_class"].list.i.append(3), TypeError,
         "Expected binary or unicode string, got 3"),
        (lambda d: d.node[2].input.append("p"), ValueError,
         "NodeDef expected inputs 'float' do not match 2 inputs specified; Op<name=Identity; "
         "signature=input:T -> output:T; attr=T:type>; NodeDef: {{node import/i}}"),
        (lambda d: d.node[2].input.__setitem__(0, "j"), ValueError, "3 nodes in a cycle"),
        (lambda d: setattr(d.node[2], "name", "bad name"), ValueError,
         "Node 'bad name': Node name contains invalid characters"),
        (lambda d: d.node[4].attr["_class"].list.s.__setitem__(0, b"loc:@zz"), ValueError,
         "Node 'k' expects to be colocated with unknown node 'zz'"),
        (lambda d: setattr(d.versions, "min_consumer", 100000), ValueError,
         "GraphDef min consumer version 100000 above current version 2474"),
    ])
    def test_malformed_graph_defs_add_nothing(self, gd, edit, exc, message):
        bad = self._broken(gd, edit)
        with tf.Graph().as_default() as h:
            tf.constant(1.0, name="before")
            with pytest.raises(exc) as info:
                tf.import_graph_def(bad)
            assert str(info.value).startswith(message), str(info.value)
            assert [op.name for op in h.get_operations()] == ["before"]
            assert h.get_tensor_by_name("before:0").consumers() == []

    def test_unknown_op_type(self, gd):
        bad = self._broken(gd, lambda d: setattr(d.node[2], "op", "NoSuchOp"))
        with tf.Graph().as_default():
            with pytest.raises(tf.errors.NotFoundError,
                               match="Op type not registered 'NoSuchOp'"):
                tf.import_graph_def(bad)

    def test_unsorted_graph_defs(self, gd):
        rev = self._broken(gd, lambda d: d.node.reverse())
        with tf.Graph().as_default() as h:
            [k] = tf.import_graph_def(rev, return_elements=["k:0"])
            assert k.name == "import/k:0"
            names = [op.name for op in h.get_operations()]
            assert names.index("import/p") < names.index("import/i") < names.index("import/j")

    def test_ref_inputs_need_ref_tensors(self):
        with tf.Graph().as_default() as g:
            v = state_ops.variable_op_v2([], tf.float32, name="v")
            state_ops.assign(v, np.float32(1.0), name="as")
        gd = g.as_graph_def()
        with tf.Graph().as_default():
            [asg] = tf.import_graph_def(gd, return_elements=["as"])
            assert asg.inputs[0].dtype == float32_ref
            with pytest.raises(ValueError, match="Input 0 of node import_1/as was passed float "
                               "from Const:0 incompatible with expected float_ref."):
                tf.import_graph_def(gd, input_map={"v:0": tf.constant(1.0)})

    def test_device_and_control_dependency_scopes(self, gd):
        with tf.Graph().as_default() as h:
            anchor = tf.no_op(name="anchor")
            with h.device("/job:ps"):
                k, a = tf.import_graph_def(gd, return_elements=["k", "a"], name="dv")
            assert (k.device, a.device) == ("/job:ps/device:CPU:0", "/job:ps")
            with h.control_dependencies([anchor]):
                k, a = tf.import_graph_def(gd, return_elements=["k", "a"], name="cd")
            assert k.control_inputs == [anchor] and a.control_inputs == [anchor]

    def test_round_trip_runs_the_same(self):
        g = tf.Graph()
        with g.as_default():
            v = state_ops.variable_op_v2([2], tf.float32, name="v")
            init = state_ops.assign(v, np.array([1.5, 2.5], np.float32), name="init")
            p = tf.placeholder(tf.float32, [2], name="p")
            out = tf.identity(tf.placeholder_with_default(v, [2]), name="out")
            tf.identity(p, name="pid")
        with tf.Graph().as_default():
            tf.import_graph_def(g.as_graph_def(), name="")
            with tf.Session() as sess:
                sess.run("init")
                np.testing.assert_array_equal(sess.run("out:0"), [1.5, 2.5])
                np.testing.assert_array_equal(sess.run("pid:0", {"p:0": [3, 4]}), [3, 4])
                assert init.name == "init:0" and out.name == "out:0"

    def test_finalized_graph(self, gd):
        g = tf.Graph()
        g.finalize()
        with g.as_default():
            with pytest.raises(RuntimeError, match="Graph is finalized"):
                tf.import_graph_def(gd)
