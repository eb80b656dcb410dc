"""tf.Variable (ops/variables.py) and the collection helpers (ops/variable_helpers.py)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors
from trainflow._src.framework.dtypes import float32_ref
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.state import variables


def test_structure_and_names():
    with tf.Graph().as_default() as g:
        v = tf.Variable([1.0, 2.0], name="v")
        assert [(op.name, op.type) for op in g.get_operations()] == [
            ("v/initial_value", "Const"), ("v", "VariableV2"), ("v/Assign", "Assign"),
            ("v/read", "Identity")]
        assert v.name == "v:0" and v.op.name == "v" and v.op.type == "VariableV2"
        assert v.dtype == float32_ref and v.shape.as_list() == [2]
        assert v.get_shape().as_list() == [2]
        assert v.initializer.name == "v/Assign"
        assert v.initial_value.name == "v/initial_value:0"
        assert v.value().name == "v/read:0" and v.value().dtype == tf.float32
        assert v._ref().dtype == float32_ref
        assert v.graph is g and v.device == ""
        assert repr(v) == "<tf.Variable 'v:0' shape=(2,) dtype=float32_ref>"
        assert v.read_value().name == "read:0"
        assert tf.Variable(0).name == "Variable:0"
        assert tf.Variable(0, name="v").name == "v_1:0"
        from trainflow._src.ops.state import variable_scope
        power = variable_scope.variable(0.9, name="beta1_power", trainable=False)
        assert power.name == "beta1_power:0" and power not in tf.trainable_variables()


def test_callable_initial_value_goes_under_initializer_scope():
    with tf.Graph().as_default() as g:
        v = tf.Variable(lambda: tf.zeros([3]), name="lam")
        names = [op.name for op in g.get_operations()]
        assert names[0] == "lam/Initializer/zeros"
        assert names[1:] == ["lam", "lam/Assign", "lam/read"]
        assert g.get_operation_by_name("lam/Initializer/zeros")._attrs["_class"] == \
            [b"loc:@lam"]
        assert v.initial_value.name == "lam/Initializer/zeros:0"
        w = tf.Variable(lambda: [1, 2], dtype=tf.float32, name="w")
        assert w.initial_value.name == "w/Initializer/initial_value:0"
        assert w.dtype == float32_ref


def test_collections_and_trainable():
    with tf.Graph().as_default():
        a = tf.Variable(1.0)
        b = tf.Variable(1.0, trainable=False)
        c = tf.Variable(1.0, collections=[tf.GraphKeys.LOCAL_VARIABLES])
        d = tf.Variable(1.0, collections=["mine"], trainable=False)
        assert tf.global_variables() == [a, b] == tf.all_variables()
        assert tf.trainable_variables() == [a, c]
        assert tf.local_variables() == [c]
        assert tf.get_collection("mine") == [d]
        assert a.trainable and not b.trainable
        with pytest.raises(ValueError, match="must be a list, tuple, or set"):
            tf.Variable(1.0, collections="variables")
        with pytest.raises(ValueError, match="`constraint` argument must be a callable"):
            tf.Variable(1.0, constraint=3)
        assert {a: 1, b: 2}[a] == 1  # hashing by identity


def test_run_eval_load_and_uninitialized_error():
    with tf.Graph().as_default():
        v = tf.Variable([[1, 2], [3, 4]], name="m")
        with tf.Session() as sess:
            with pytest.raises(errors.FailedPreconditionError,
                               match="Attempting to use uninitialized value m"):
                sess.run(v)
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(v), [[1, 2], [3, 4]])
            np.testing.assert_array_equal(v.eval(), [[1, 2], [3, 4]])
            v.load([[5, 6], [7, 8]], sess)
            np.testing.assert_array_equal(sess.run(v.value()), [[5, 6], [7, 8]])
            assert sess.run(v, {v: [[0, 0], [0, 9]]})[1, 1] == 9
        with pytest.raises(ValueError, match="Either session argument should be provided"):
            v.load([[0, 0], [0, 0]])


def test_errors_for_bad_initial_values():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="initial_value must be specified"):
            tf.Variable(None)
        with pytest.raises(ValueError, match="initial_value must have a shape specified"):
            tf.Variable(tf.placeholder(tf.float32))
        unknown = tf.Variable(tf.placeholder(tf.float32), validate_shape=False)
        assert unknown.shape.rank is None
        with pytest.raises(ValueError, match="mutually exclusive"):
            tf.Variable(1.0, variable_def=unknown.to_proto())


def test_operators_and_conversion():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        assert convert_to_tensor(v) is v.value()
        assert convert_to_tensor(v, as_ref=True) is v._ref()
        with pytest.raises(ValueError, match="Incompatible type conversion requested to type "
                                             "'int32' for variable of type 'float32_ref'"):
            convert_to_tensor(v, dtype=tf.int32)
        exprs = [v + 1.0, 1.0 + v, v * 2.0, -v, v - v, v / 2.0, v[1], v ** 2.0, v > 1.5]
        with tf.Session() as sess:
            sess.run(v.initializer)
            out = sess.run(exprs)
        expected = [[2, 3], [2, 3], [2, 4], [-1, -2], [0, 0], [0.5, 1], 2, [1, 4],
                    [False, True]]
        for got, want in zip(out, expected):
            np.testing.assert_array_equal(got, want)
        with pytest.raises(TypeError, match="not iterable"):
            iter(v)


def test_assign_methods():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0, 3.0])
        ops_ = [v.assign([3.0, 2.0, 1.0]), v.assign_add([1.0, 1.0, 1.0]),
                v.assign_sub([0.5, 0.5, 0.5])]
        scatter = v.scatter_sub(tf.IndexedSlices(tf.constant([1.0, 1.0]), tf.constant([0, 0])))
        op_only = v.assign([0.0, 0.0, 0.0], read_value=False)
        assert ops_[0].op.type == "Assign" and isinstance(op_only, tf.Operation)
        with tf.Session() as sess:
            sess.run(v.initializer)
            results = [sess.run(o) for o in ops_]
            np.testing.assert_array_equal(results[-1], [3.5, 2.5, 1.5])
            np.testing.assert_array_equal(sess.run(scatter), [1.5, 2.5, 1.5])
            sess.run(op_only)
            np.testing.assert_array_equal(sess.run(v), [0.0, 0.0, 0.0])
        c = tf.Variable(0, name="c")
        up = c.count_up_to(1)
        with tf.Session() as sess:
            sess.run(c.initializer)
            assert sess.run(up) == 0
            with pytest.raises(errors.OutOfRangeError):
                sess.run(up)


def test_initialized_value_reads_other_variable():
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        w2 = tf.Variable(w.initialized_value() * 2.0, name="w2")
        with tf.Session() as sess:
            sess.run(w2.initializer)  # w is not initialized: its initial value is used
            np.testing.assert_array_equal(sess.run(w2), [2.0, 4.0])


def test_to_proto_matches_tensorflow_bytes():
    with tf.Graph().as_default():
        plain = tf.Variable([1.0, 2.0], name="plain")
        proto = plain.to_proto()
        # The VariableDef TF 2.21 wrote for the same variable (checkpoints/c_partitioned).
        assert proto.SerializeToString() == (b"\n\x07plain:0\x12\x0cplain/Assign\x1a\x0cplain/"
                                             b"read:02\x15plain/initial_value:08\x01")
        again = tf.Variable.from_proto(proto)
        assert again.op is plain.op and again.value() is plain.value()
        assert again.initializer is plain.initializer and again.trainable
        with tf.name_scope("outer"):
            inner = tf.Variable(1.0, name="x")
        exported = inner.to_proto(export_scope="outer")
        assert exported.variable_name == "x:0" and exported.snapshot_name == "x/read:0"
        assert plain.to_proto(export_scope="outer") is None
        back = variables.Variable.from_proto(exported, import_scope="outer")
        assert back.op is inner.op


def test_save_slice_info():
    info = tf.Variable.SaveSliceInfo("part", [10, 3], [4, 0], [3, 3])
    assert info.spec == "10 3 4,3:0,3"
    proto = info.to_proto()
    again = tf.Variable.SaveSliceInfo(save_slice_info_def=proto, import_scope="s")
    assert (again.full_name, again.full_shape, again.var_offset, again.var_shape) == \
        ("s/part", [10, 3], [4, 0], [3, 3])


def test_variable_creator_scope():
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs["name"])
        kwargs["trainable"] = False
        return next_creator(**kwargs)

    with tf.Graph().as_default():
        with tf.variable_creator_scope(creator):
            v = tf.Variable(1.0, name="made")
            w = tf.get_variable("got", [2])
        u = tf.Variable(1.0, name="after")
    assert seen == ["made", "got"]
    assert not v.trainable and not w.trainable and u.trainable


def test_initializer_ops_and_reporting():
    with tf.Graph().as_default():
        a = tf.Variable(1.0, name="a")
        tf.get_local_variable("b", [2])
        init = tf.global_variables_initializer()
        local_init = tf.local_variables_initializer()
        assert init.name == "init" and init.type == "NoOp"
        assert local_init.name == "init_1"
        assert set(init.control_inputs) == {a.initializer}
        assert tf.variables_initializer([], name="nothing").type == "NoOp"
        report = tf.report_uninitialized_variables()
        check = tf.assert_variables_initialized()
        with tf.Session() as sess:
            assert list(sess.run(report)) == [b"a", b"b"]
            with pytest.raises(errors.FailedPreconditionError):
                sess.run(check)
            sess.run(init)
            assert list(sess.run(report)) == [b"b"]
            sess.run(local_init)
            assert sess.run(report).shape == (0,)
            sess.run(check)
            assert sess.run(tf.is_variable_initialized(a))
    with tf.Graph().as_default():
        empty = tf.report_uninitialized_variables()
        assert empty.dtype == tf.string and tf.assert_variables_initialized() is None
