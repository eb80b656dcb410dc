"""Graph: unique names, name scopes, lookups, collections, finalize, default graphs.

Expected names and messages were recorded from TensorFlow 2.21 (compat.v1 graph mode).
"""
import threading

import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import graph as graph_mod


def _const(name=None):
    return tf.constant(1.0, name=name) if name is not None else tf.constant(1.0)


class TestUniqueNames:
    def test_repeats_get_suffixes_case_insensitively(self):
        with tf.Graph().as_default():
            names = [_const("x").op.name, _const("x").op.name, _const("X").op.name,
                     _const("x_1").op.name, _const("x_2").op.name]
        assert names == ["x", "x_1", "X_2", "x_1_1", "x_2_1"]

    def test_unique_name_mark_as_used(self):
        g = tf.Graph()
        assert g.unique_name("foo") == "foo"
        assert g.unique_name("foo") == "foo_1"
        assert g.unique_name("foo", mark_as_used=False) == "foo_2"
        assert g.unique_name("Foo") == "Foo_2"

    def test_default_op_name_is_the_type(self):
        with tf.Graph().as_default():
            assert tf.constant(1).op.name == "Const"
            assert tf.constant(1).op.name == "Const_1"

    @pytest.mark.parametrize("name", [".x", "a/b", "a//b", "x>y", "1x"])
    def test_valid_names(self, name):
        with tf.Graph().as_default():
            assert _const(name).op.name == name

    @pytest.mark.parametrize("name", ["bad name", "_x", "-x", "x:0", ""])
    def test_invalid_names(self, name):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match=f"`{name}` is not a valid node name. Accepted "
                               "names conform to Regex"):
                _const(name)

    def test_underscore_is_fine_inside_a_scope(self):
        with tf.Graph().as_default():
            with tf.name_scope("outer"):
                assert _const("_x").op.name == "outer/_x"

    def test_trailing_slash_uses_the_name_as_is(self):
        with tf.Graph().as_default():
            _const("x")
            with pytest.raises(ValueError, match="Duplicate node name in graph: 'x'"):
                _const("x/")
            assert _const("y/").op.name == "y"


class TestNameScopes:
    def test_reentry_and_absolute_scopes(self):
        with tf.Graph().as_default():
            with tf.name_scope("s") as s:
                assert s == "s/"
                assert _const().op.name == "s/Const"
            with tf.name_scope("s") as s:
                assert s == "s_1/"
            with tf.name_scope("S") as s:
                assert s == "S_2/"
            with tf.name_scope("s/") as s:
                assert s == "s/"
                assert _const().op.name == "s/Const_1"

    def test_none_and_empty_reset_to_the_top(self):
        with tf.Graph().as_default() as g:
            with tf.name_scope("s"):
                with tf.name_scope(None) as s2:
                    assert s2 == ""
                    assert _const().op.name == "Const"
                    assert g.get_name_scope() == ""
                with tf.name_scope("") as s2:
                    assert s2 == ""
                with tf.name_scope("s/") as s2:
                    assert s2 == "s/"
                with tf.name_scope("inner") as s2:
                    assert s2 == "s/inner/"
                    assert g.get_name_scope() == "s/inner"

    def test_root_scope_names_are_checked(self):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="'_x' is not a valid root scope name. A root "
                               "scope name has to match the following pattern: "):
                with tf.name_scope("_x"):
                    pass

    def test_nested_scope_names_may_start_with_underscore(self):
        with tf.Graph().as_default():
            with tf.name_scope("outer"):
                with tf.name_scope("_x") as s:
                    assert s == "outer/_x/"
                with pytest.raises(ValueError, match="'bad name' is not a valid scope name. A "
                                   "scope name has to match"):
                    with tf.name_scope("bad name"):
                        pass

    def test_default_name_and_values(self):
        g = tf.Graph()
        with g.as_default():
            c = _const("c")
        with tf.Graph().as_default():
            with tf.name_scope(None, "dflt", [c]) as s:
                assert s == "dflt/"
                assert tf.get_default_graph() is g
        with pytest.raises(TypeError, match="`default_name` type"):
            with tf.name_scope("x", [c]):
                pass

    def test_scope_names_are_per_thread(self):
        g = tf.Graph()
        seen = {}

        def worker():
            seen["scope"] = g.get_name_scope()

        with g.as_default(), tf.name_scope("main"):
            t = threading.Thread(target=worker)
            t.start()
            t.join()
        assert seen["scope"] == ""


class TestLookups:
    @pytest.fixture
    def g(self):
        g = tf.Graph()
        with g.as_default():
            _const("x")
        return g

    def test_found(self, g):
        op = g.get_operation_by_name("x")
        assert op.type == "Const"
        assert g.get_tensor_by_name("x:0") is op.outputs[0]
        assert g.as_graph_element("x") is op
        assert g.as_graph_element(b"x") is op
        assert g.as_graph_element("x:0") is op.outputs[0]

    @pytest.mark.parametrize("call, exc, message", [
        (lambda g: g.get_operation_by_name("nope"), KeyError,
         "The name 'nope' refers to an Operation not in the graph."),
        (lambda g: g.get_operation_by_name("x:0"), ValueError,
         "Name 'x:0' appears to refer to a Tensor, not a Operation."),
        (lambda g: g.get_operation_by_name(3), TypeError,
         "Operation names are strings (or similar), not int."),
        (lambda g: g.get_tensor_by_name("x"), ValueError,
         "The name 'x' refers to an Operation, not a Tensor. Tensor names must be of the "
         "form \"<op_name>:<output_index>\"."),
        (lambda g: g.get_tensor_by_name("nope:0"), KeyError,
         "The name 'nope:0' refers to a Tensor which does not exist. The operation, 'nope', "
         "does not exist in the graph."),
        (lambda g: g.get_tensor_by_name("x:5"), KeyError,
         "The name 'x:5' refers to a Tensor which does not exist. The operation, 'x', exists "
         "but only has 1 outputs."),
        (lambda g: g.get_tensor_by_name("x:a"), ValueError,
         "The name 'x:a' looks a like a Tensor name, but is not a valid one."),
        (lambda g: g.get_tensor_by_name("x:0:1"), ValueError,
         "The name 'x:0:1' looks a like a Tensor name"),
        (lambda g: g.get_tensor_by_name(3), TypeError,
         "Tensor names are strings (or similar), not int."),
        (lambda g: g.as_graph_element(3), TypeError,
         "Can not convert a int into a Tensor or Operation."),
        (lambda g: g.as_graph_element("nope", allow_operation=False), ValueError,
         "The name 'nope' looks like an (invalid) Operation name, not a Tensor."),
        (lambda g: g.as_graph_element("x", allow_tensor=False, allow_operation=False),
         ValueError, "allow_tensor and allow_operation can't both be False."),
        (lambda g: g.as_graph_element(g.get_tensor_by_name("x:0"), allow_tensor=False),
         TypeError, "Can not convert a Tensor into a Operation."),
        (lambda g: g.as_graph_element(g.get_operation_by_name("x"), allow_operation=False),
         TypeError, "Can not convert a Operation into a Tensor."),
    ])
    def test_errors(self, g, call, exc, message):
        with pytest.raises(exc) as info:
            call(g)
        text = info.value.args[0]
        assert text.startswith(message), text

    def test_element_of_another_graph(self, g):
        with tf.Graph().as_default():
            other = _const()
        with pytest.raises(ValueError, match=r'Tensor Tensor\("Const:0", shape=\(\), '
                           r'dtype=float32\) is not an element of this graph.'):
            g.as_graph_element(other)
        with pytest.raises(ValueError, match="is not an element of this graph"):
            g.as_graph_element(other.op)

    def test_objects_with_as_graph_element(self, g):
        class Wrapper:
            def _as_graph_element(self):
                return g.get_tensor_by_name("x:0")
        assert g.as_graph_element(Wrapper()) is g.get_tensor_by_name("x:0")

    def test_get_operations_in_creation_order(self):
        with tf.Graph().as_default() as g:
            ops = [_const().op for _ in range(3)]
        assert g.get_operations() == ops
        assert g.version == 3


class TestCollections:
    def test_scope_filter_is_a_regex_match_on_names(self):
        with tf.Graph().as_default() as g:
            a = _const("a")
            with tf.name_scope("s1"):
                b = _const("b")
            with tf.name_scope("s10"):
                c = _const("c")

            class Named:
                name = "s1/zz"
            n = Named()
            for x in (a, b, c, 5, n):
                g.add_to_collection("k", x)
            assert g.get_collection("k") == [a, b, c, 5, n]
            assert g.get_collection("k", "s1") == [b, c, n]
            assert g.get_collection("k", "s1/") == [b, n]
            assert g.get_collection("k", "s.") == [b, c, n]
            assert g.get_collection("k", "b") == []
            assert tf.get_collection("k", "s1/") == [b, n]
            assert g.get_collection("nope") == [] and g.get_collection("nope", "x") == []

    def test_get_collection_returns_a_copy_and_ref_the_list(self):
        g = tf.Graph()
        ref = g.get_collection_ref("r")
        ref.append(1)
        assert g.get_collection("r") == [1]
        copy = g.get_collection("r")
        copy.append(2)
        assert g.get_collection("r") == [1]
        assert g.get_collection_ref("r") is ref

    def test_add_to_collections_keys_and_clear(self):
        g = tf.Graph()
        g.add_to_collections(["m1", "m2", "m1"], 7)
        g.add_to_collections("m3", 8)
        g.add_to_collections(("m4",), 9)
        assert g.get_collection("m1") == [7] and g.get_collection("m2") == [7]
        assert g.get_collection("m3") == [8] and g.get_collection("m4") == [9]
        g.get_collection_ref("empty")
        g.add_to_collection(("tuple", "key"), 1)
        assert sorted(g.get_all_collection_keys()) == ["empty", "m1", "m2", "m3", "m4"]
        assert g.get_collection(("tuple", "key")) == [1]
        g.clear_collection("m1")
        assert "m1" not in g.get_all_collection_keys()

    def test_graph_keys(self):
        keys = tf.GraphKeys
        assert keys.GLOBAL_VARIABLES == "variables" == keys.VARIABLES
        assert keys.TRAINABLE_VARIABLES == "trainable_variables"
        assert keys.LOCAL_VARIABLES == "local_variables"
        assert keys.UPDATE_OPS == "update_ops"
        assert keys.SUMMARIES == "summaries"
        assert keys.QUEUE_RUNNERS == "queue_runners"
        assert keys.TABLE_INITIALIZERS == "table_initializer"
        assert keys.GLOBAL_STEP == "global_step"
        assert keys.LOSSES == "losses"
        assert keys.REGULARIZATION_LOSSES == "regularization_losses"
        assert keys.SAVEABLE_OBJECTS == "saveable_objects"
        assert keys.COND_CONTEXT == "cond_context"
        assert keys.WHILE_CONTEXT == "while_context"
        assert keys._SUMMARY_COLLECTION == "_SUMMARY_V2"
        assert keys._VARIABLE_COLLECTIONS == [
            "variables", "local_variables", "metric_variables", "model_variables",
            "trainable_variables", "moving_average_variables", "concatenated_variables",
            "trainable_resource_variables"]


class TestFinalizeSeedAndOverrides:
    def test_finalize(self):
        g = tf.Graph()
        with g.as_default():
            _const()
        g.finalize()
        assert g.finalized
        with g.as_default():
            for call in (_const, lambda: g.add_to_collection("x", 1),
                         lambda: g.clear_collection("x")):
                with pytest.raises(RuntimeError, match="Graph is finalized and cannot be "
                                   "modified."):
                    call()
            assert g.get_collection_ref("yy") == []
            with g.name_scope("q") as s:
                assert s == "q/"
        g._unsafe_unfinalize()
        with g.as_default():
            _const()

    def test_seed(self):
        g = tf.Graph()
        assert g.seed is None
        g.seed = 5
        assert g.seed == 5

    def test_gradient_override_map(self):
        with tf.Graph().as_default() as g:
            with g.gradient_override_map({"Identity": "CustomGrad"}):
                x = tf.identity(_const())
                with g.gradient_override_map({"Identity": "Other"}):
                    y = tf.identity(_const())
                z = tf.identity(_const())
            w = tf.identity(_const())
        assert x.op.get_attr("_gradient_op_type") == b"CustomGrad"
        assert y.op.get_attr("_gradient_op_type") == b"Other"
        assert z.op.get_attr("_gradient_op_type") == b"CustomGrad"
        assert x.op.node_def.attr["_gradient_op_type"].s == b"CustomGrad"
        with pytest.raises(ValueError, match="has no attr named '_gradient_op_type'"):
            w.op.get_attr("_gradient_op_type")
        for bad in (["x"], {1: "x"}, {"x": 2}):
            with pytest.raises(TypeError, match="op_type_map must be a dictionary mapping "
                               "strings to strings"):
                with g.gradient_override_map(bad):
                    pass


class TestDefaultGraph:
    def test_nesting(self):
        g1, g2 = tf.Graph(), tf.Graph()
        with g1.as_default() as entered:
            assert entered is g1 and tf.get_default_graph() is g1
            with g2.as_default():
                assert tf.get_default_graph() is g2
            assert tf.get_default_graph() is g1

    def test_out_of_order_exit_is_an_error(self):
        ga, gb = tf.Graph(), tf.Graph()
        before = tf.get_default_graph()
        ca, cb = ga.as_default(), gb.as_default()
        ca.__enter__()
        cb.__enter__()
        with pytest.raises(AssertionError, match="Nesting violated for default stack of "):
            ca.__exit__(None, None, None)
        assert tf.get_default_graph() is gb
        cb.__exit__(None, None, None)
        # ga is still on the stack, as in TF; clear it for the other tests.
        graph_mod._default_graph_stack.stack.remove(ga)
        assert tf.get_default_graph() is before

    def test_each_thread_has_its_own_default_graph(self):
        main_default = tf.get_default_graph()
        g1 = tf.Graph()
        seen = {}

        def worker(key):
            seen[key] = tf.get_default_graph()

        with g1.as_default():
            t = threading.Thread(target=worker, args=("a",))
            t.start()
            t.join()
        t = threading.Thread(target=worker, args=("b",))
        t.start()
        t.join()
        assert seen["a"] is not g1 and seen["a"] is not main_default
        assert seen["b"] is not seen["a"] and seen["b"] is not main_default

    def test_reset_default_graph(self):
        def worker(out):
            before = tf.get_default_graph()
            tf.reset_default_graph()
            out.append(tf.get_default_graph() is not before)
            with tf.Graph().as_default():
                try:
                    tf.reset_default_graph()
                except AssertionError as e:
                    out.append(str(e))
        out = []
        # In a thread, so the main thread's default graph stays as it is.
        t = threading.Thread(target=worker, args=(out,))
        t.start()
        t.join()
        assert out[0] is True
        assert out[1].startswith("Do not use tf.reset_default_graph() to clear nested graphs.")

    def test_repr(self):
        assert repr(tf.Graph()).startswith("<trainflow.Graph object at 0x")


def test_create_op_low_level_api():
    from trainflow._src.protos import attr_value_pb2
    with tf.Graph().as_default() as g:
        a = tf.constant(1.0, name="a")
        op = g.create_op("Identity", [a], name="ident",
                         attrs={"T": attr_value_pb2.AttrValue(type=1)})
        assert op.name == "ident" and op.get_attr("T") is tf.float32
        assert op.outputs[0].dtype is tf.float32 and op.outputs[0].shape.as_list() == []
        op2 = g.create_op("Identity", [a], attrs={"T": tf.float32})
        assert op2.name == "Identity"
    with tf.Session(graph=g) as sess:
        assert sess.run(op.outputs[0]) == 1.0
