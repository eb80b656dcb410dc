"""tf.data iterators as TF 1.15 has them: one-shot, initializable, reinitializable and
feedable iterators, their static errors, string handles, shared iterators across sessions
of a server, concurrent get_next (ported from TF r1.8-r1.12's iterator_ops_test and
iterator_ops_cluster_test)."""
import contextlib
import threading
import warnings

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from local_cluster import local_cluster
from trainflow._src.data import iterator_ops

D = tf.data.Dataset


def _components():
    return (np.arange(7), np.array([[1, 2, 3]]) * np.arange(7)[:, np.newaxis],
            np.array(37.0) * np.arange(7))


def _squares(x, y, z):
    return tf.square(x), tf.square(y), tf.square(z)


def _check_squares(sess, get_next, epochs, components):
    for _ in range(epochs):
        for i in range(7):
            for c, r in zip(components, sess.run(get_next)):
                np.testing.assert_array_equal(c[i] ** 2, r)
    with pytest.raises(tf.errors.OutOfRangeError):
        sess.run(get_next)


def test_no_gradients():
    with tf.Graph().as_default():
        component, side = tf.constant([1.0]), tf.constant(0.0)
        value = D.from_tensor_slices(component).map(lambda x: x + side) \
            .make_one_shot_iterator().get_next()
        assert tf.gradients(value, component)[0] is None
        assert tf.gradients(value, side)[0] is None
        assert tf.gradients(value, [component, side])[0] is None


def test_capturing_state_in_one_shot_raises():
    with tf.Graph().as_default():
        var = tf.Variable(37.0, name="myvar")
        ds = D.from_tensor_slices([0.0, 1.0, 2.0]).map(lambda x: x + var)
        with pytest.raises(ValueError, match=r"`Dataset.make_one_shot_iterator\(\)` does not "
                                             r"support datasets that capture stateful "
                                             r"objects.+myvar"):
            ds.make_one_shot_iterator()


@pytest.mark.parametrize("by_value", [False, True], ids=["numpy", "tensors"])
def test_one_shot_iterator(by_value):
    components = _components()
    with tf.Graph().as_default():
        given = tuple(tf.convert_to_tensor(c) for c in components) if by_value else components
        get_next = D.from_tensor_slices(given).map(_squares).repeat(14) \
            .make_one_shot_iterator().get_next()
        assert [c.shape[1:] for c in components] == [tuple(t.shape.as_list())
                                                     for t in get_next]
        with tf.Session() as sess:
            _check_squares(sess, get_next, 14, components)


def test_one_shot_iterator_inside_container():
    components = _components()
    server = tf.train.Server.create_local_server()
    for i in range(2):
        with tf.Graph().as_default():
            with tf.Session(server.target) as sess:
                with tf.container(f"iteration{i}"):
                    get_next = D.from_tensor_slices(components).map(_squares).repeat(14) \
                        .make_one_shot_iterator().get_next()
                _check_squares(sess, get_next, 14, components)


def _run_threads(fn, n=8):
    errors = []

    def body():
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=body) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors


def test_one_shot_iterator_non_blocking_and_concurrent():
    with tf.Graph().as_default():
        nxt = D.from_tensors([1, 2, 3]).map(lambda x: x * x).make_one_shot_iterator().get_next()
        config = tf.ConfigProto(inter_op_parallelism_threads=1, use_per_session_threads=True)
        with tf.Session(config=config) as sess:
            assert sess.run(nxt).tolist() == [1, 4, 9]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)
        with tf.Session(config=config) as sess:
            results, lock = [], threading.Lock()

            def consumer():
                try:
                    value = sess.run(nxt).tolist()
                except tf.errors.OutOfRangeError:
                    value = None
                with lock:
                    results.append(value)

            _run_threads(consumer)
            assert sorted(results, key=str) == [None] * 7 + [[1, 4, 9]]


def test_one_shot_iterator_initializer_fails_every_time():
    with tf.Graph().as_default():
        ds = D.from_tensors(tf.check_numerics(tf.constant(1.0) / tf.constant(0.0), "oops"))
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            for _ in range(2):
                with pytest.raises(tf.errors.InvalidArgumentError, match="oops"):
                    sess.run(nxt)
        with tf.Session() as sess:
            def consumer():
                with pytest.raises(tf.errors.InvalidArgumentError, match="oops"):
                    sess.run(nxt)
            _run_threads(consumer)


def test_simple_shared_resource_across_sessions_of_a_server():
    components = (np.array(1, dtype=np.int64), np.array([1, 2, 3], dtype=np.int64),
                  np.array(37.0, dtype=np.float64))
    server = tf.train.Server.create_local_server()
    with tf.Graph().as_default():
        it = D.from_tensors(components).map(lambda x, y, z: (x, y, z)) \
            .make_initializable_iterator(shared_name="shared_iterator")
        get_next = it.get_next()
        with tf.Session(server.target) as sess:
            sess.run(it.initializer)
            for c, r in zip(components, sess.run(get_next)):
                np.testing.assert_array_equal(c, r)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)
            sess.run(it.initializer)  # re-initialized: the next session reads it again
    with tf.Graph().as_default():
        it = tf.data.Iterator.from_structure(
            shared_name="shared_iterator", output_types=(tf.int64, tf.int64, tf.float64),
            output_shapes=([], [3], []))
        get_next = it.get_next()
        with tf.Session(server.target) as sess:
            for c, r in zip(components, sess.run(get_next)):
                np.testing.assert_array_equal(c, r)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_not_initialized_error():
    with tf.Graph().as_default():
        get_next = D.from_tensors((np.array(1), np.array([1, 2, 3]))) \
            .make_initializable_iterator().get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError,
                               match="iterator has not been initialized"):
                sess.run(get_next)


def test_reinitializable_iterator():
    with tf.Graph().as_default():
        d3, d4 = D.from_tensors(tf.constant([1, 2, 3])), D.from_tensors(tf.constant([4, 5, 6, 7]))
        it = tf.data.Iterator.from_structure(d3.output_types, [None])
        init3, init4 = it.make_initializer(d3), it.make_initializer(d4)
        get_next = it.get_next()
        assert d3.output_types == it.output_types == d4.output_types
        assert it.output_shapes.as_list() == [None]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError):
                sess.run(get_next)
            for init, want in ((init3, [1, 2, 3]), (init4, [4, 5, 6, 7]), (init3, [1, 2, 3])):
                sess.run(init)
                assert sess.run(get_next).tolist() == want
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(get_next)


def test_reinitializable_iterator_static_errors():
    with tf.Graph().as_default():
        with pytest.raises(TypeError):
            tf.data.Iterator.from_structure((tf.int64, tf.float64), [None])
        it = tf.data.Iterator.from_structure((tf.int64, tf.float64))
        with pytest.raises(ValueError):
            it.make_initializer(D.from_tensors(((tf.constant([1, 2, 3], tf.int64),),
                                                (tf.constant([4.0, 5.0], tf.float64),))))
        with pytest.raises(TypeError):
            it.make_initializer(D.from_tensors((tf.constant([1, 2, 3], tf.int32),
                                                tf.constant([4.0, 5.0], tf.float32))))
        it = tf.data.Iterator.from_structure((tf.int64, tf.float64), ([None], []))
        with pytest.raises(TypeError):
            it.make_initializer(D.from_tensors((tf.constant([1, 2, 3], tf.int64),
                                                tf.constant([4.0, 5.0], tf.float64))))


def test_make_initializer_name_and_colocation():
    with tf.Graph().as_default():
        it = tf.data.Iterator.from_structure(tf.int64, [])
        assert it.make_initializer(D.range(3)).name == "make_initializer"
        assert it.make_initializer(D.range(3), name="init").name == "init"
        assert it.get_next(name="element").op.name == "element"


@pytest.mark.parametrize("future", [False, True])
def test_iterator_string_handle(future):
    # testIteratorStringHandle, and testIteratorStringHandleFuture (the same under a
    # forward-compatibility horizon past 2018-08-04)
    horizon = tf.compat.forward_compatibility_horizon(2018, 8, 4) if future \
        else contextlib.nullcontext()
    with horizon, tf.Graph().as_default():
        d3, d4 = D.from_tensor_slices([1, 2, 3]), D.from_tensor_slices([10, 20, 30, 40])
        i3, i4 = d3.make_one_shot_iterator(), d4.make_one_shot_iterator()
        handle = tf.placeholder(tf.string, shape=[])
        feedable = tf.data.Iterator.from_string_handle(handle, d3.output_types,
                                                       d3.output_shapes)
        nxt = feedable.get_next()
        assert feedable.output_types == d3.output_types == d4.output_types
        assert feedable.output_shapes == []
        with tf.Session() as sess:
            h3, h4 = sess.run(i3.string_handle()), sess.run(i4.string_handle())
            for h, want in ((h4, 10), (h3, 1), (h4, 20), (h3, 2), (h4, 30), (h3, 3), (h4, 40)):
                assert sess.run(nxt, {handle: h}) == want
            for h in (h3, h4):
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(nxt, {handle: h})


def test_iterator_string_handle_reuses_its_tensor():
    with tf.Graph().as_default():
        ds = D.from_tensor_slices([1, 2, 3])
        iterators = [ds.make_one_shot_iterator(), ds.make_initializable_iterator(),
                     tf.data.Iterator.from_structure(ds.output_types)]
        graph = tf.get_default_graph()
        created = len(graph.get_operations())
        for it in iterators:
            assert it.string_handle() is it.string_handle()
        assert len(graph.get_operations()) == created
        one_shot = iterators[0]
        foo = one_shot.string_handle(name="foo")
        assert foo.op.name == "foo" and foo is not one_shot.string_handle()
        foo_1 = one_shot.string_handle(name="foo")
        assert foo_1.op.name == "foo_1" and foo_1 is not foo


def test_iterator_string_handle_error():
    with tf.Graph().as_default():
        int_scalar = D.from_tensor_slices([1, 2, 3]).repeat()
        float_vector = D.from_tensors([1.0, 2.0, 3.0])
        handle = tf.placeholder(tf.string, shape=[])
        f_scalar = tf.data.Iterator.from_string_handle(handle, tf.int32, [])
        f_vector = tf.data.Iterator.from_string_handle(handle, tf.int32, [None])
        f_any = tf.data.Iterator.from_string_handle(handle, tf.int32)
        with tf.Session() as sess:
            h_scalar = sess.run(int_scalar.make_one_shot_iterator().string_handle())
            h_float = sess.run(float_vector.make_one_shot_iterator().string_handle())
            assert sess.run(f_scalar.get_next(), {handle: h_scalar}) == 1
            assert sess.run(f_any.get_next(), {handle: h_scalar}) == 2
            for h in (h_scalar, h_float):
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(f_vector.get_next(), {handle: h})


def test_string_handle_of_another_session_is_not_found():
    with tf.Graph().as_default():
        it = D.range(3).make_one_shot_iterator()
        handle = tf.placeholder(tf.string, [])
        nxt = tf.data.Iterator.from_string_handle(handle, tf.int64, []).get_next()
        with tf.Session() as sess:
            h = sess.run(it.string_handle())
        with tf.Session() as sess:
            with pytest.raises(tf.errors.NotFoundError):
                sess.run(nxt, {handle: h})
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(nxt, {handle: b"not a handle \xff"})


def test_repeated_get_next_warning():
    with tf.Graph().as_default():
        it = D.range(10).make_one_shot_iterator()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for _ in range(100):
                it.get_next()
        mine = [x for x in w if iterator_ops.GET_NEXT_CALL_WARNING_MESSAGE in str(x.message)]
        assert len(mine) == 100 - iterator_ops.GET_NEXT_CALL_WARNING_THRESHOLD == len(w)


def test_iterators_are_in_the_iterators_collection():
    with tf.Graph().as_default():
        a = D.range(3).make_one_shot_iterator()
        b = D.range(3).make_initializable_iterator()
        c = tf.data.Iterator.from_structure(tf.int64, [])
        assert tf.get_collection("iterators") == [a._iterator_resource, b._iterator_resource,
                                                  c._iterator_resource]


def test_get_output_functions_and_initializer_of_one_shot():
    with tf.Graph().as_default():
        it = D.from_tensor_slices({"a": [1.0], "b": [[1, 2]]}).make_one_shot_iterator()
        assert tf.data.get_output_types(it) == {"a": tf.float32, "b": tf.int32}
        assert tf.data.get_output_shapes(it)["b"].as_list() == [2]
        assert tf.data.get_output_classes(it) == {"a": tf.Tensor, "b": tf.Tensor}
        with pytest.raises(ValueError, match="does not have an initializer"):
            it.initializer  # noqa: B018


def test_reinitializing_mid_epoch_starts_over():
    with tf.Graph().as_default():
        it = D.range(5).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            assert [sess.run(nxt) for _ in range(3)] == [0, 1, 2]
            sess.run(it.initializer)
            assert [sess.run(nxt) for _ in range(5)] == [0, 1, 2, 3, 4]


def test_concurrent_get_next_hands_out_each_element_once():
    with tf.Graph().as_default():
        it = D.range(400).map(lambda x: x * 2).prefetch(4).make_initializable_iterator()
        nxt = it.get_next()
        with tf.Session() as sess:
            sess.run(it.initializer)
            seen, lock = [], threading.Lock()

            def consumer():
                while True:
                    try:
                        value = sess.run(nxt)
                    except tf.errors.OutOfRangeError:
                        return
                    with lock:
                        seen.append(int(value))

            _run_threads(consumer)
        assert sorted(seen) == list(range(0, 800, 2))


def test_shared_iterator_capturing_a_variable_goes_on_in_another_session():
    """TF's testCaptureHashTableInSharedIterator with a variable in place of the table
    (trainflow has no lookup tables): state captured by a shared iterator's map."""
    server = tf.train.Server.create_local_server()
    with tf.Graph().as_default():
        offset = tf.Variable(100, dtype=tf.int32, name="offset")
        it = D.from_tensor_slices(["1 2 3", "4 5"]) \
            .map(lambda x: tf.string_split([x]).values) \
            .map(lambda w: tf.strings.to_number(w, tf.int32) + offset) \
            .make_initializable_iterator(shared_name="shared_iterator")
        get_next = it.get_next()
        with tf.Session(server.target) as sess:
            sess.run(offset.initializer)
            sess.run(it.initializer)
            assert sess.run(get_next).tolist() == [101, 102, 103]
        with tf.Session(server.target) as sess:
            assert sess.run(get_next).tolist() == [104, 105]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(get_next)


def test_implicit_dispose_of_a_prefetching_pipeline_on_a_server():
    components = tuple(np.repeat(c, 143, axis=0)[:1000] for c in _components())
    server = tf.train.Server.create_local_server()
    with tf.Graph().as_default():
        it = D.from_tensor_slices(components).map(_squares).repeat(None).prefetch(10000) \
            .make_initializable_iterator()
        get_next = it.get_next()
        with tf.Session(server.target) as sess:
            sess.run(it.initializer)
            for _ in range(3):
                sess.run(get_next)


def test_remote_iterator_without_remote_call_fails():
    """TF's testRemoteIteratorWithoutRemoteCallFail, with the iterator on another task of
    a cluster (TF puts it on another CPU of the same task): InvalidArgumentError."""
    with local_cluster(ps=0, workers=2) as (_, servers):
        with tf.Graph().as_default():
            with tf.device("/job:worker/replica:0/task:1"):
                it = D.from_tensor_slices([1, 2, 3]).make_one_shot_iterator()
                handle = it.string_handle()
                local_next = it.get_next()
            with tf.device("/job:worker/replica:0/task:0"):
                remote_next = tf.data.Iterator.from_string_handle(
                    handle, it.output_types, it.output_shapes).get_next()
            with tf.Session(servers["worker"][0].target) as sess:
                assert sess.run(local_next) == 1
                with pytest.raises(tf.errors.InvalidArgumentError, match="located in device"):
                    sess.run(remote_next)
                assert sess.run(local_next) == 2


def test_local_sessions_do_not_share_iterators():
    """A shared_name shares an iterator among the sessions of one server; two local
    sessions (TF's DirectSessions) each have their own."""
    with tf.Graph().as_default():
        it = D.range(5).make_initializable_iterator(shared_name="shared_locally")
        nxt = it.get_next()
        with tf.Session() as a, tf.Session() as b:
            a.run(it.initializer)
            assert [a.run(nxt), a.run(nxt)] == [0, 1]
            with pytest.raises(tf.errors.FailedPreconditionError):
                b.run(nxt)
            b.run(it.initializer)
            assert [b.run(nxt), a.run(nxt)] == [0, 2]


def test_iterator_needs_its_whole_structure():
    with tf.Graph().as_default():
        handle = tf.data.Iterator.from_structure(tf.int64, [])._iterator_resource
        with pytest.raises(ValueError, match="output_classes"):
            tf.data.Iterator(handle, None, tf.int64, None, tf.Tensor)
