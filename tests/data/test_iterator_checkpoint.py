"""Iterator state in checkpoints: SerializeIterator / DeserializeIterator round trips for
every dataset kind, bad state bytes, `make_saveable_from_iterator` with tf.train.Saver,
and CheckpointInputPipelineHook (TF 1.15's behaviour, as its iterator_ops_test and the
`*_serialization_test`s state it)."""
import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework.op_builder import apply_op

D = tf.data.Dataset


def _pair_slices():
    return D.from_tensor_slices((np.arange(6, dtype=np.float32),
                                 np.array([b"a", b"b", b"c", b"d", b"e", b"f"])))


# (name, pipeline builder): every element position of each is saved and restored. A new
# dataset kind adds a row here.
ROUNDTRIP_CASES = [
    ("from_tensors", lambda: D.from_tensors((np.array([1, 2]), np.float64(3.5)))),
    ("slices_dict_strings", lambda: D.from_tensor_slices(
        {"s": np.array([b"x", b"yy", b"zzz"]), "v": np.eye(3, dtype=np.float32)})),
    ("range", lambda: D.range(2, 9, 2)),
    ("map", lambda: D.range(5).map(lambda x: (x, tf.cast(x, tf.float32) / 2))),
    ("map_captures", lambda: D.range(4).map(lambda x: x + tf.constant(7, tf.int64))),
    ("filter", lambda: D.range(10).filter(lambda x: tf.equal(x % 3, 1))),
    ("flat_map", lambda: D.range(4).flat_map(lambda i: D.range(i))),
    ("batch", lambda: D.range(7).batch(3)),
    ("batch_drop_remainder", lambda: D.range(7).batch(2, drop_remainder=True)),
    ("repeat", lambda: D.range(3).repeat(3)),
    ("take", lambda: D.range(10).take(4)),
    ("skip", lambda: D.range(6).skip(2)),
    ("zip", lambda: D.zip((D.range(4), _pair_slices()))),
    ("concatenate", lambda: D.range(3).concatenate(D.range(10, 12))),
    ("prefetch", lambda: D.range(8).prefetch(3)),
    ("prefetch_map_batch", lambda: D.range(9).map(lambda x: x * x).batch(2).prefetch(2)),
    ("nested", lambda: D.range(3).repeat(2).flat_map(
        lambda i: D.from_tensors(i).repeat(2)).skip(1).take(8).batch(3)),
]


def _equal(got, want):
    if isinstance(want, dict):
        return sorted(got) == sorted(want) and all(_equal(got[k], want[k]) for k in want)
    if isinstance(want, (tuple, list)):
        return len(got) == len(want) and all(_equal(g, w) for g, w in zip(got, want))
    return np.array_equal(np.asarray(got), np.asarray(want))


class _Pipeline:
    """An initializable iterator over `build()` with its state as a string tensor and an
    op that restores a fed state."""

    def __init__(self, build):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.iterator = build().make_initializable_iterator()
            self.next = self.iterator.get_next()
            saveable = tf.data.experimental.make_saveable_from_iterator(self.iterator)
            self.state = saveable.specs[0].tensor
            self.fed_state = tf.placeholder(tf.string, [])
            self.restore = saveable.restore([self.fed_state], None)

    def session(self):
        sess = tf.Session(graph=self.graph)
        sess.run(self.iterator.initializer)
        return sess

    def rest(self, sess):
        out = []
        while True:
            try:
                out.append(sess.run(self.next))
            except tf.errors.OutOfRangeError:
                return out


@pytest.mark.parametrize("name,build", ROUNDTRIP_CASES, ids=[c[0] for c in ROUNDTRIP_CASES])
def test_state_round_trips_at_every_position(name, build):
    pipe = _Pipeline(build)
    with pipe.session() as sess:
        everything = pipe.rest(sess)
    assert everything, name
    for k in range(len(everything) + 1):
        with pipe.session() as sess:
            for _ in range(k):
                sess.run(pipe.next)
            state = sess.run(pipe.state)
        with pipe.session() as sess:  # another session: nothing but the bytes carries over
            sess.run(pipe.restore, {pipe.fed_state: state})
            rest = pipe.rest(sess)
        assert _equal(rest, everything[k:]), (name, k, rest, everything[k:])


def test_restore_goes_back_in_the_same_session():
    pipe = _Pipeline(lambda: D.range(5).map(lambda x: x * 10).prefetch(2))
    with pipe.session() as sess:
        assert sess.run(pipe.next) == 0
        state = sess.run(pipe.state)
        assert [sess.run(pipe.next) for _ in range(3)] == [10, 20, 30]
        sess.run(pipe.restore, {pipe.fed_state: state})
        assert pipe.rest(sess) == [10, 20, 30, 40]


def test_state_of_an_exhausted_iterator_restores_exhausted():
    pipe = _Pipeline(lambda: D.range(2))
    with pipe.session() as sess:
        pipe.rest(sess)
        state = sess.run(pipe.state)
    with pipe.session() as sess:
        sess.run(pipe.restore, {pipe.fed_state: state})
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(pipe.next)


def test_error_waiting_in_a_prefetch_buffer_is_saved_in_order():
    build = lambda: D.from_tensor_slices([1.0, 0.0, 2.0]).map(  # noqa: E731
        lambda x: tf.check_numerics(1.0 / x, "inverse")).prefetch(3)
    pipe = _Pipeline(build)
    with pipe.session() as sess:
        assert sess.run(pipe.next) == 1.0
        state = sess.run(pipe.state)
    with pipe.session() as sess:
        sess.run(pipe.restore, {pipe.fed_state: state})
        with pytest.raises(tf.errors.InvalidArgumentError, match="inverse"):
            sess.run(pipe.next)
        assert sess.run(pipe.next) == 0.5


def _state_bytes(build, reads=1):
    pipe = _Pipeline(build)
    with pipe.session() as sess:
        for _ in range(reads):
            sess.run(pipe.next)
        return sess.run(pipe.state)


def _inner_state(serialized_tensor):
    """The iterator-state bytes inside a serialized variant TensorProto."""
    from trainflow._src.protos import tensor_pb2
    proto = tensor_pb2.TensorProto()
    proto.ParseFromString(serialized_tensor)
    return proto, proto.variant_val[0].metadata


def _with_inner(proto, data):
    proto.variant_val[0].metadata = data
    return proto.SerializeToString()


# (name, how the good state is spoiled, error class)
BAD_STATES = [
    ("not_a_tensor_proto", lambda p, b: b"\xff\xff garbage", tf.errors.InvalidArgumentError),
    ("empty_state", lambda p, b: _with_inner(p, b""), tf.errors.DataLossError),
    ("wrong_magic", lambda p, b: _with_inner(p, b"X" + b[1:]), tf.errors.DataLossError),
    ("flipped_byte", lambda p, b: _with_inner(p, b[:-3] + bytes([b[-3] ^ 1]) + b[-2:]),
     tf.errors.DataLossError),
    ("truncated", lambda p, b: _with_inner(p, b[:len(b) // 2]), tf.errors.DataLossError),
    ("unknown_variant_type", lambda p, b: _set_type(p, "tensorflow::Other"),
     tf.errors.InvalidArgumentError),
]


def _set_type(proto, name):
    proto.variant_val[0].type_name = name
    return proto.SerializeToString()


@pytest.mark.parametrize("name,spoil,error", BAD_STATES, ids=[c[0] for c in BAD_STATES])
def test_bad_state_bytes_are_rejected_clearly(name, spoil, error):
    build = lambda: D.range(10).map(lambda x: x + 1)  # noqa: E731
    good = _state_bytes(build, reads=3)
    proto, inner = _inner_state(good)
    pipe = _Pipeline(build)
    with pipe.session() as sess:
        with pytest.raises(error):
            sess.run(pipe.restore, {pipe.fed_state: spoil(proto, inner)})
        assert sess.run(pipe.next) == 1  # the iterator is where it was


def test_well_formed_state_of_the_wrong_shape_is_invalid_argument():
    from trainflow._src.ops.dataset import state_codec
    build = lambda: D.range(10)  # noqa: E731
    proto, inner = _inner_state(_state_bytes(build))
    saved = state_codec.decode(inner)
    saved["position"] = {"index": "three"}
    pipe = _Pipeline(build)
    with pipe.session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid iterator state"):
            sess.run(pipe.restore,
                     {pipe.fed_state: _with_inner(proto, state_codec.encode(saved))})


# (name, pipeline saved, pipeline restored into)
INCOMPATIBLE = [
    ("other_types", lambda: D.range(5), lambda: D.range(5).map(lambda x: tf.cast(x, tf.int32))),
    ("other_shapes", lambda: D.range(5).batch(2, drop_remainder=True),
     lambda: D.range(5).batch(3, drop_remainder=True)),
    ("other_kinds", lambda: D.range(5).skip(1), lambda: D.range(5).take(4)),
]


@pytest.mark.parametrize("name,saved,restored", INCOMPATIBLE, ids=[c[0] for c in INCOMPATIBLE])
def test_state_of_another_pipeline_is_invalid_argument(name, saved, restored):
    state = _state_bytes(saved)
    pipe = _Pipeline(restored)
    with pipe.session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(pipe.restore, {pipe.fed_state: state})


def test_serialize_before_initializing_is_failed_precondition():
    pipe = _Pipeline(lambda: D.range(3))
    with tf.Session(graph=pipe.graph) as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="not been initialized"):
            sess.run(pipe.state)


def test_incorrect_iterator_restore_through_files(tmp_path):
    """TF's testIncorrectIteratorRestore: a state written with WriteFile and read back
    into an iterator of other element types is InvalidArgumentError."""
    path = str(tmp_path / "iterator")

    def graph(build):
        it = build().make_initializable_iterator()
        state = apply_op("SerializeIterator", resource_handle=it._iterator_resource).outputs[0]
        save = tf.write_file(path, tf.io.serialize_tensor(state))
        parsed = tf.io.parse_tensor(tf.read_file(path), tf.variant)
        restore = apply_op("DeserializeIterator", resource_handle=it._iterator_resource,
                           serialized=parsed)
        return it, save, restore

    with tf.Graph().as_default():
        it, save, _ = graph(lambda: D.range(1, 10))
        with tf.Session() as sess:
            sess.run(it.initializer)
            sess.run(save)
    with tf.Graph().as_default():
        it, _, restore = graph(lambda: D.from_tensors(tf.constant("x")))
        with tf.Session() as sess:
            sess.run(it.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError):
                sess.run(restore)


def test_saver_with_saveable_objects_collection(tmp_path):
    """TF's make_saveable_from_iterator example: the SAVEABLE_OBJECTS collection, saved
    as a string tensor beside the variables."""
    with tf.Graph().as_default():
        it = D.range(10).map(lambda x: x * x).batch(2).make_one_shot_iterator()
        nxt = it.get_next()
        v = tf.Variable(3.0, name="v")
        tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS,
                             tf.data.experimental.make_saveable_from_iterator(it))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(nxt).tolist() == [0, 1]
            path = saver.save(sess, str(tmp_path / "model"))
            assert sess.run(nxt).tolist() == [4, 9]
        reader = tf.train.NewCheckpointReader(path)
        key = it._iterator_resource.name + "-state"
        assert reader.get_variable_to_dtype_map()[key] == tf.string
        assert sorted(reader.get_variable_to_shape_map()) == sorted([key, "v"])
        with tf.Session() as sess:
            saver.restore(sess, path)
            assert sess.run(nxt).tolist() == [4, 9]
            assert sess.run(v) == 3.0


class _Config:
    save_checkpoints_steps = 2
    save_checkpoints_secs = None
    num_worker_replicas = 1
    task_type = "worker"
    task_id = 0


class _Estimator:
    def __init__(self, model_dir):
        self.model_dir = model_dir
        self._config = _Config()


def _train(model_dir, steps, hook_config=None):
    """Steps of a MonitoredTrainingSession reading range(100) with the input hook; the
    elements each step read."""
    with tf.Graph().as_default():
        gs = tf.train.get_or_create_global_step()
        nxt = D.range(100).make_one_shot_iterator().get_next()
        train = tf.group(tf.assign_add(gs, 1), nxt)
        est = _Estimator(model_dir)
        if hook_config is not None:
            est._config = hook_config
        hook = tf.data.experimental.CheckpointInputPipelineHook(est)
        seen = []
        with tf.train.MonitoredTrainingSession(hooks=[hook]) as sess:
            for _ in range(steps):
                seen.append(int(sess.run([train, nxt])[1]))
        return seen


def test_checkpoint_input_pipeline_hook_resumes(tmp_path):
    model_dir = str(tmp_path)
    first = _train(model_dir, 5)
    assert first == [0, 1, 2, 3, 4]
    files = sorted(p.name for p in tmp_path.iterdir())
    assert "checkpoint_input" in files and "checkpoint" not in files
    assert any(f.startswith("input.ckpt-") and f.endswith(".index") for f in files)
    # The global step is not restored (the hook saves only iterators): the input restarts
    # from the last input checkpoint, saved at the end of the run.
    assert _train(model_dir, 3) == [5, 6, 7]


def test_checkpoint_input_pipeline_hook_names_distributed_files(tmp_path):
    cfg = _Config()
    cfg.num_worker_replicas, cfg.task_type, cfg.task_id = 2, "worker", 1
    _train(str(tmp_path), 1, cfg)
    assert (tmp_path / "checkpoint_input_worker_1").exists()


@pytest.mark.parametrize("name,build", ROUNDTRIP_CASES, ids=[c[0] for c in ROUNDTRIP_CASES])
def test_multiple_breaks_then_reset(name, build):
    """dataset_serialization_test_base's verify_multiple_breaks and
    verify_reset_restored_iterator: a state carried through several sessions reads on
    exactly, and re-initializing a restored iterator starts from the first element."""
    pipe = _Pipeline(build)
    with pipe.session() as sess:
        everything = pipe.rest(sess)
    got, state = [], None
    for _ in range(len(everything) + 1):
        with pipe.session() as sess:
            if state is not None:
                sess.run(pipe.restore, {pipe.fed_state: state})
            try:
                got.append(sess.run(pipe.next))
            except tf.errors.OutOfRangeError:
                pass
            state = sess.run(pipe.state)
    assert _equal(got, everything), name
    with pipe.session() as sess:
        sess.run(pipe.restore, {pipe.fed_state: state})
        sess.run(pipe.iterator.initializer)
        assert _equal(pipe.rest(sess), everything), name


# -- object-based checkpoints (TF's IteratorCheckpointingTest, graph mode) ------------------
def _squares_in_pairs(values):
    return D.from_tensor_slices(values).map(tf.square).batch(2)


def test_checkpoint_save_restore_one_shot_iterator(tmp_path):
    with tf.Graph().as_default():
        it = _squares_in_pairs([1, 2, 3, 4, 5, 6]).make_one_shot_iterator()
        nxt = it.get_next()
        checkpoint = tf.train.Checkpoint(iterator=it)
        with tf.Session() as sess:
            assert sess.run(nxt).tolist() == [1, 4]
            path = checkpoint.save(str(tmp_path / "ckpt"), session=sess)
            assert sess.run(nxt).tolist() == [9, 16]
            assert sess.run(nxt).tolist() == [25, 36]
            checkpoint.restore(path).run_restore_ops(sess)
            assert sess.run(nxt).tolist() == [9, 16]
            assert sess.run(nxt).tolist() == [25, 36]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)
    reader = tf.train.NewCheckpointReader(path)
    assert reader.get_variable_to_dtype_map()["iterator/.ATTRIBUTES/ITERATOR_STATE"] == \
        tf.string
    graph = reader.get_object_graph()  # TF's attribute: ITERATOR, key without _STATE
    attrs = [a for n in graph.nodes for a in n.attributes if a.name == "ITERATOR"]
    assert [a.checkpoint_key for a in attrs] == ["iterator/.ATTRIBUTES/ITERATOR"]


def test_checkpoint_save_restore_multiple_iterators(tmp_path):
    with tf.Graph().as_default():
        ds = _squares_in_pairs([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
        it1, it2 = ds.make_one_shot_iterator(), ds.make_one_shot_iterator()
        it3 = D.range(10).make_one_shot_iterator()
        n1, n2, n3 = it1.get_next(), it2.get_next(), it3.get_next()
        checkpoint = tf.train.Checkpoint(iterator_1=it1, iterator_2=it2, iterator_3=it3)
        with tf.Session() as sess:
            assert sess.run(n1).tolist() == [1, 4]
            assert [sess.run(n3) for _ in range(3)] == [0, 1, 2]
            path = checkpoint.save(str(tmp_path / "ckpt"), session=sess)
            assert sess.run(n2).tolist() == [1, 4]
            assert sess.run(n2).tolist() == [9, 16]
            assert sess.run(n3) == 3
            checkpoint.restore(path).run_restore_ops(sess)
            assert sess.run(n1).tolist() == [9, 16]
            assert sess.run(n2).tolist() == [1, 4]
            assert sess.run(n3) == 3


def test_checkpoint_restore_exhausted_iterator(tmp_path):
    with tf.Graph().as_default():
        it = D.range(3).make_one_shot_iterator()
        nxt = it.get_next()
        checkpoint = tf.train.Checkpoint(iterator=it)
        with tf.Session() as sess:
            assert [sess.run(nxt), sess.run(nxt)] == [0, 1]
            path = checkpoint.save(str(tmp_path / "ckpt"), session=sess)
            assert sess.run(nxt) == 2
            checkpoint.restore(path).run_restore_ops(sess)
            assert sess.run(nxt) == 2
            path = checkpoint.save(str(tmp_path / "ckpt"), session=sess)
            checkpoint.restore(path).run_restore_ops(sess)
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(nxt)


def test_checkpoint_restore_in_reconstructed_initializable_iterator(tmp_path):
    directory = str(tmp_path)
    with tf.Graph().as_default():
        it = D.range(10).make_initializable_iterator()
        nxt = it.get_next()
        checkpoint = tf.train.Checkpoint(iterator=it)
        for i in range(5):
            with tf.Session() as sess:  # a new session each time: only the file carries over
                checkpoint.restore(tf.train.latest_checkpoint(directory)) \
                    .initialize_or_restore(sess)
                assert [sess.run(nxt) for _ in range(2)] == [i * 2, i * 2 + 1]
                checkpoint.save(file_prefix=str(tmp_path / "ckpt"), session=sess)


def test_saver_restores_into_an_iterator_not_initialized_yet(tmp_path):
    """TF's state holds the dataset, so its restore needs no initializer; here a restore
    runs the iterator's initializer first when that needs no feed."""
    def build(n=None):
        stop = tf.placeholder_with_default(np.int64(8), []) if n is None else \
            tf.placeholder(tf.int64, [], name="stop")
        it = D.range(stop).make_initializable_iterator()
        saver = tf.train.Saver([tf.data.experimental.make_saveable_from_iterator(it)])
        return it, it.get_next(), saver, stop

    path = str(tmp_path / "model")
    with tf.Graph().as_default():
        it, nxt, saver, _ = build()
        with tf.Session() as sess:
            sess.run(it.initializer)
            assert [sess.run(nxt) for _ in range(3)] == [0, 1, 2]
            saver.save(sess, path)
    with tf.Graph().as_default():  # a placeholder_with_default is no feed: restores as is
        it, nxt, saver, _ = build()
        with tf.Session() as sess:
            saver.restore(sess, path)
            assert sess.run(nxt) == 3
    with tf.Graph().as_default():  # a fed initializer: initialize, then restore
        it, nxt, saver, stop = build(n=8)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="initializer first"):
                saver.restore(sess, path)
            sess.run(it.initializer, {stop: 8})
            saver.restore(sess, path)
            assert sess.run(nxt) == 3
