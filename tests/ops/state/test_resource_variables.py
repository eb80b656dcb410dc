"""Resource variables: their graph (TF 2.x compat.v1's node names and op types), reads,
updates, gradients, optimizers on ResourceApply* ops, checkpoints and the switches."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.ops.state import resource_variables as rv


@pytest.fixture
def resource_default():
    tf.enable_resource_variables()
    yield
    tf.disable_resource_variables()


# Node names and op types TF 2.21 builds for this program under enable_resource_variables.
EXPECTED_GRAPH = [
    ("w/Initializer/ones", "Const"), ("w", "VarHandleOp"),
    ("w/IsInitialized/VarIsInitializedOp", "VarIsInitializedOp"),
    ("w/Assign", "AssignVariableOp"), ("w/Read/ReadVariableOp", "ReadVariableOp"),
    ("b/Initializer/initial_value", "Const"), ("b", "VarHandleOp"),
    ("b/IsInitialized/VarIsInitializedOp", "VarIsInitializedOp"),
    ("b/Assign", "AssignVariableOp"), ("b/Read/ReadVariableOp", "ReadVariableOp"),
    ("ones", "Const"), ("MatMul/ReadVariableOp", "ReadVariableOp"), ("MatMul", "MatMul"),
    ("Const", "Const"), ("Sum", "Sum"), ("Const_1", "Const"),
    ("Sum_1/ReadVariableOp", "ReadVariableOp"), ("Sum_1", "Sum"), ("add", "AddV2"),
    ("Gather/indices", "Const"), ("Gather", "ResourceGather"),
    ("zeros", "Const"), ("AssignVariableOp", "AssignVariableOp"),
    ("ReadVariableOp", "ReadVariableOp"), ("Const_2", "Const"),
    ("AssignAddVariableOp", "AssignAddVariableOp"), ("ReadVariableOp_1", "ReadVariableOp"),
    ("init", "NoOp"),
]


def _small_program():
    v = tf.get_variable("w", [2, 3], initializer=tf.ones_initializer())
    b = tf.Variable([1.0, 2.0], name="b")
    y = tf.reduce_sum(tf.matmul(tf.ones([1, 2]), v)) + tf.reduce_sum(b)
    g = tf.gather(v, [1])
    a = v.assign(tf.zeros([2, 3]))
    aa = b.assign_add([1., 1.])
    init = tf.global_variables_initializer()
    return v, b, y, g, a, aa, init


def test_graph_names_and_types_are_tensorflows(resource_default):
    with tf.Graph().as_default() as graph:
        v, b, *_ = _small_program()
    assert [(op.name, op.type) for op in graph.get_operations()] == EXPECTED_GRAPH
    assert isinstance(v, tf.Variable) and isinstance(v, rv.ResourceVariable)
    assert v.dtype == tf.float32 and v.shape.as_list() == [2, 3]
    handle = graph.get_operation_by_name("w")
    assert handle.get_attr("shared_name") in (b"w", "w")
    assert handle.get_attr("dtype") == tf.float32
    assert v.to_proto().is_resource
    assert v.to_proto().snapshot_name == "w/Read/ReadVariableOp:0"
    assert set(graph.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)) == {v, b}


def test_values_updates_and_uninitialized_reads(resource_default):
    with tf.Graph().as_default():
        v, b, y, g, a, aa, init = _small_program()
        scat = tf.scatter_add(v, [0, 0], tf.ones([2, 3]))
        upd = tf.scatter_update(v, [1], [[7., 8., 9.]])
        sub = b.assign_sub([0.5, 0.5])
        with tf.Session() as sess:
            assert not sess.run(v.is_initialized())
            with pytest.raises(tf.errors.FailedPreconditionError, match="Could not find "
                               "variable w. This could mean that the variable has been "
                               "deleted. In TF1, it can also mean the variable is "
                               "uninitialized"):
                sess.run(y)
            assert sess.run(tf.report_uninitialized_variables()).tolist() == [b"w", b"b"]
            sess.run(init)
            assert sess.run(y) == 9.0
            np.testing.assert_array_equal(sess.run(g), [[1, 1, 1]])
            np.testing.assert_array_equal(sess.run(a), np.zeros([2, 3]))
            np.testing.assert_array_equal(sess.run(aa), [2, 3])
            np.testing.assert_array_equal(sess.run(sub), [1.5, 2.5])
            np.testing.assert_array_equal(sess.run(scat), [[2, 2, 2], [0, 0, 0]])
            np.testing.assert_array_equal(sess.run(upd), [[2, 2, 2], [7, 8, 9]])
            np.testing.assert_array_equal(v.eval(), [[2, 2, 2], [7, 8, 9]])


def test_read_is_a_snapshot_before_a_later_update():
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], use_resource=True)
        before = v.value()
        with tf.control_dependencies([before]):
            add = v.assign_add([10.0, 10.0], read_value=False)
        with tf.Session() as sess:
            sess.run(v.initializer)
            got, _ = sess.run([before, add])
            np.testing.assert_array_equal(got, [1, 2])
            np.testing.assert_array_equal(sess.run(v), [11, 12])


def test_gradients_dense_through_reads_and_indexed_slices_through_gather():
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=[[1., 2.], [3., 4.], [5., 6.]], use_resource=True)
        loss = tf.reduce_sum(v * v) + tf.reduce_sum(tf.gather(v, [2, 0, 2]))
        dense, = tf.gradients(tf.reduce_sum(v * v), [v])
        both = tf.gradients(loss, v)[0]
        rows = tf.gradients(tf.reduce_sum(tf.gather(v, [2, 0, 2])), v)[0]
        assert isinstance(rows, tf.IndexedSlices)
        assert rows.dense_shape.op.type == "Const"  # the handle's static shape, as TF
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(dense), 2 * sess.run(v))
            np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(both)),
                                          2 * sess.run(v) + [[1, 1], [0, 0], [2, 2]])
            r = sess.run(rows)
            assert r.indices.tolist() == [2, 0, 2] and r.dense_shape.tolist() == [3, 2]


_OPTIMIZERS = {
    "gd": lambda: tf.train.GradientDescentOptimizer(0.05),
    "momentum": lambda: tf.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True),
    "adam": lambda: tf.train.AdamOptimizer(0.1),
    "adagrad": lambda: tf.train.AdagradOptimizer(0.1),
    "adadelta": lambda: tf.train.AdadeltaOptimizer(1.0),
    "rmsprop": lambda: tf.train.RMSPropOptimizer(0.01, centered=True, momentum=0.5),
    "ftrl": lambda: tf.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01),
    "proximal_adagrad": lambda: tf.train.ProximalAdagradOptimizer(
        0.1, l2_regularization_strength=0.1),
}


def _train(make_opt, use_resource, steps=3):
    with tf.Graph().as_default():
        w = tf.get_variable("w", initializer=[[1., 2.], [3., 4.], [5., 6.]],
                            use_resource=use_resource)
        emb = tf.get_variable("emb", initializer=np.linspace(-1, 1, 8, dtype=np.float32)
                              .reshape(4, 2), use_resource=use_resource)
        loss = tf.reduce_sum(tf.square(tf.matmul([[1., 2., 3.]], w))) + \
            tf.reduce_sum(tf.square(tf.gather(emb, [0, 2, 2])))
        train = make_opt().minimize(loss)
        types = {op.type for op in tf.get_default_graph().get_operations()}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(steps):
                sess.run(train)
            return sess.run([w, emb]), types


@pytest.mark.parametrize("name", sorted(_OPTIMIZERS))
def test_optimizers_on_resource_variables_match_ref_variables(name):
    (ref_w, ref_e), ref_types = _train(_OPTIMIZERS[name], False)
    (res_w, res_e), res_types = _train(_OPTIMIZERS[name], True)
    np.testing.assert_allclose(res_w, ref_w, rtol=1e-6)
    np.testing.assert_allclose(res_e, ref_e, rtol=1e-6)
    applied = sorted(t for t in res_types if "Apply" in t)
    assert applied and all(t.startswith("Resource") for t in applied)
    assert not any(t.startswith("Resource") for t in ref_types if "Apply" in t)


def test_resource_apply_op_signature_is_tensorflows():
    from trainflow._src.framework import registry
    from trainflow._src.ops.state import training_ops
    info = registry.get("ResourceSparseApplyMomentum")
    assert [(a.name, a.type) for a in info.op_def.inputs][:3] == [
        ("var", tf.resource), ("accum", tf.resource), ("lr", None)]
    assert [a.name for a in info.op_def.inputs] == [
        "var", "accum", "lr", "grad", "indices", "momentum"]
    assert not info.op_def.outputs
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], use_resource=True)
        op = training_ops.resource_apply_gradient_descent(v.handle, 0.5, [1.0, 1.0])
        assert op.type == "ResourceApplyGradientDescent" and not op.outputs
        with tf.Session() as sess:
            sess.run(v.initializer)
            sess.run(op)
            np.testing.assert_array_equal(sess.run(v), [0.5, 1.5])
        with pytest.raises(ValueError):
            training_ops.resource_apply_gradient_descent(v.handle, [0.5, 1.0], [1.0, 1.0])


def test_checkpoints_move_between_resource_and_ref_variables(tmp_path):
    prefix = str(tmp_path / "model")
    values = np.arange(6, dtype=np.float32).reshape(3, 2)
    with tf.Graph().as_default():
        v = tf.get_variable("s/v", initializer=values, use_resource=True)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(v.initializer)
            saver.save(sess, prefix)
    assert dict(tf.train.list_variables(prefix)) == {"s/v": [3, 2]}
    for use_resource in (False, True):
        with tf.Graph().as_default():
            v = tf.get_variable("s/v", [3, 2], use_resource=use_resource)
            saver = tf.train.Saver()
            with tf.Session() as sess:
                saver.restore(sess, prefix)
                np.testing.assert_array_equal(sess.run(v), values)


def test_meta_graph_round_trip_keeps_resource_variables(tmp_path):
    with tf.Graph().as_default():
        tf.get_variable("v", initializer=[1.0, 2.0], use_resource=True)
        meta = tf.train.export_meta_graph()
    with tf.Graph().as_default():
        tf.train.import_meta_graph(meta)
        v, = tf.global_variables()
        assert isinstance(v, rv.ResourceVariable) and v.op.type == "VarHandleOp"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(v), [1, 2])


def test_switches_and_defaults():
    assert not tf.resource_variables_enabled()
    with tf.Graph().as_default():
        assert type(tf.Variable(1.0)) is tf.Variable
        assert isinstance(tf.Variable(1.0, use_resource=True), rv.ResourceVariable)
        with tf.variable_scope("s", use_resource=True):
            assert isinstance(tf.get_variable("x", []), rv.ResourceVariable)
        tf.enable_resource_variables()
        try:
            assert tf.resource_variables_enabled()
            assert isinstance(tf.Variable(1.0), rv.ResourceVariable)
            assert isinstance(tf.get_variable("y", []), rv.ResourceVariable)
            assert type(tf.get_variable("z", [], use_resource=False)) is tf.Variable
        finally:
            tf.disable_v2_behavior()  # switches resource variables off, as TF's does
        assert not tf.resource_variables_enabled()
        assert type(tf.get_variable("u", [])) is tf.Variable


def test_partitioned_resource_variables_checkpoint_into_ref_partitions(tmp_path):
    prefix = str(tmp_path / "parts")
    values = np.arange(8, dtype=np.float32).reshape(4, 2)
    with tf.Graph().as_default():
        p = tf.get_variable("p", [4, 2], partitioner=tf.fixed_size_partitioner(2),
                            use_resource=True)
        assert all(isinstance(part, rv.ResourceVariable) for part in p)
        fill = [part.assign(values[2 * i:2 * i + 2]) for i, part in enumerate(p)]
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(fill)
            saver.save(sess, prefix)
    with tf.Graph().as_default():
        p = tf.get_variable("p", [4, 2], partitioner=tf.fixed_size_partitioner(2))
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(p.as_tensor()), values)


def test_moving_average_of_a_resource_variable():
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=[1.0, 2.0], use_resource=True)
        ema = tf.train.ExponentialMovingAverage(0.5)
        update = ema.apply([v])
        avg = ema.average(v)
        assert isinstance(avg, rv.ResourceVariable) and avg.op.name == "v/ExponentialMovingAverage"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(v.assign([3.0, 4.0]))
            sess.run(update)
            np.testing.assert_allclose(sess.run(avg), [2.0, 3.0])


def test_count_up_to_on_a_resource_variable():
    with tf.Graph().as_default():
        v = tf.Variable(0, use_resource=True, name="counter")
        count = tf.count_up_to(v, 2)
        assert count.op.type == "ResourceCountUpTo"
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert [sess.run(count), sess.run(v.count_up_to(2))] == [0, 1]
            with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
                sess.run(count)
