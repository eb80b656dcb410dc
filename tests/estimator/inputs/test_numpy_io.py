"""numpy_input_fn (ported from tensorflow_estimator 1.15's inputs/numpy_io_test.py) and
pandas_input_fn's behaviour without pandas."""
import sys

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow.estimator.inputs import numpy_input_fn, pandas_input_fn


def _batches(input_fn):
    """Every batch the input_fn yields until its queue runs out."""
    out = []
    with tf.Graph().as_default():
        result = input_fn()
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord=coord)
            try:
                while True:
                    out.append(sess.run(result))
            except tf.errors.OutOfRangeError:
                pass
            coord.request_stop()
            coord.join(threads)
    return out


def _xy():
    return {"a": np.arange(4) * 1.0, "b": np.arange(32, 36)}, np.arange(-32, -28)


def test_numpy_input_fn():
    x, y = _xy()
    batches = _batches(numpy_input_fn(x, y, batch_size=2, shuffle=False, num_epochs=1))
    assert len(batches) == 2
    features, target = batches[0]
    assert features["a"].tolist() == [0, 1] and features["b"].tolist() == [32, 33]
    assert target.tolist() == [-32, -31]
    assert batches[1][0]["a"].tolist() == [2, 3] and batches[1][1].tolist() == [-30, -29]


@pytest.mark.parametrize("batch_size, num_epochs, sizes", [
    (1000, 3, [12]),            # very large batch, several epochs
    (3, 1, [3, 1]),            # batch size not dividing the data
    (3, 3, [3, 3, 3, 3]),      # ... over several epochs
    (5, 1, [4]),               # batch larger than the data
    (2, 0, []),                # zero epochs
])
def test_batch_sizes_and_epochs(batch_size, num_epochs, sizes):
    x, y = _xy()
    batches = _batches(numpy_input_fn(x, y, batch_size=batch_size, shuffle=False,
                                      num_epochs=num_epochs))
    assert [len(t) for _, t in batches] == sizes
    if sizes:
        got = np.concatenate([f["b"] for f, _ in batches])
        assert got.tolist() == list(np.resize(np.arange(32, 36), len(got)))


def test_shuffle_keeps_rows_together():
    x = {"a": np.arange(20), "b": np.arange(20) * 10}
    batches = _batches(numpy_input_fn(x, None, batch_size=4, shuffle=True, num_epochs=1))
    a = np.concatenate([f["a"] for f in batches])
    b = np.concatenate([f["b"] for f in batches])
    assert sorted(a.tolist()) == list(range(20))
    assert (b == a * 10).all()


def test_different_dimensions_of_features():
    x = {"a": np.array([[1, 2], [3, 4]]), "b": np.array([5, 6])}
    ((features, target),) = _batches(numpy_input_fn(x, np.array([7, 8]), batch_size=2,
                                                    shuffle=False, num_epochs=1))
    assert features["a"].tolist() == [[1, 2], [3, 4]] and target.tolist() == [7, 8]


def test_y_is_none():
    x, _ = _xy()
    (features,) = _batches(numpy_input_fn(x, batch_size=4, shuffle=False, num_epochs=1))
    assert set(features) == {"a", "b"}


def test_y_as_dict():
    x, _ = _xy()
    y = {"y1": np.arange(-32, -28), "y2": np.arange(32, 28, -1)}
    ((_, target),) = _batches(numpy_input_fn(x, y, batch_size=4, shuffle=False,
                                             num_epochs=1))
    assert target["y1"].tolist() == [-32, -31, -30, -29]
    assert target["y2"].tolist() == [32, 31, 30, 29]


def test_target_key_already_in_x():
    x = {"__target_key__": np.arange(4), "a": np.arange(4)}
    ((features, target),) = _batches(numpy_input_fn(x, np.arange(4) + 10, batch_size=4,
                                                    shuffle=False, num_epochs=1))
    assert features["__target_key__"].tolist() == [0, 1, 2, 3]
    assert target.tolist() == [10, 11, 12, 13]


def test_x_is_array_and_ndarray():
    x = np.arange(8).reshape(4, 2)
    ((features, target),) = _batches(numpy_input_fn(x, np.arange(4), batch_size=4,
                                                    shuffle=False, num_epochs=1))
    assert features.tolist() == x.tolist() and target.tolist() == [0, 1, 2, 3]
    ((features, target),) = _batches(numpy_input_fn(x, {"y": np.arange(4)}, batch_size=4,
                                                    shuffle=False, num_epochs=1))
    assert target["y"].tolist() == [0, 1, 2, 3]


def test_array_and_dict_give_same_output():
    a = np.arange(12).reshape(4, 3)
    from_array = _batches(numpy_input_fn(a, batch_size=4, shuffle=False, num_epochs=1))
    from_dict = _batches(numpy_input_fn({"a": a}, batch_size=4, shuffle=False, num_epochs=1))
    assert from_array[0].tolist() == from_dict[0]["a"].tolist()


def test_num_epochs_none_repeats():
    x, y = _xy()
    with tf.Graph().as_default():
        features, _ = numpy_input_fn(x, y, batch_size=3, shuffle=False, num_epochs=None)()
        with tf.train.MonitoredSession() as sess:
            values = [sess.run(features)["b"].tolist() for _ in range(3)]
    assert values == [[32, 33, 34], [35, 32, 33], [34, 35, 32]]


@pytest.mark.parametrize("kwargs, message", [
    ({"x": {}, "y": None}, "x cannot be an empty dict"),
    ({"x": np.array([]), "y": None}, "x cannot be an empty array"),
    ({"x": [1, 2], "y": None}, "x must be a dict or array; got list"),
    ({"x": {"a": np.arange(4)}, "y": {}}, "y cannot be empty dict"),
    ({"x": {"a": np.arange(4)}, "y": {"a": np.arange(4)}},
     "1 duplicate keys are found in both x and y"),
    ({"x": {"a": np.arange(4)}, "y": np.arange(3)}, "Length of tensors in x and y is mismatched"),
])
def test_invalid_inputs(kwargs, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=message):
            numpy_input_fn(batch_size=2, shuffle=False, num_epochs=1, **kwargs)()


def test_shuffle_must_be_a_bool():
    with pytest.raises(ValueError, match="shuffle must be provided and explicitly set"):
        numpy_input_fn({"a": np.arange(4)})


def test_pandas_input_fn_without_pandas(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # an import of pandas fails
    with pytest.raises(ImportError, match="without pandas installed"):
        pandas_input_fn(x=None, shuffle=False)


def test_estimator_trains_on_numpy_input_fn(tmp_path):
    x = np.random.RandomState(0).randn(40, 2).astype(np.float32)
    y = (x[:, :1] * 3.0).astype(np.float32)

    def model_fn(features, labels, mode):
        pred = tf.layers.dense(features["x"], 1)
        loss = tf.losses.mean_squared_error(labels, pred)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=tf.train.AdamOptimizer(
            0.1).minimize(loss, global_step=tf.train.get_global_step()))
    est = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    est.train(numpy_input_fn({"x": x}, y, batch_size=8, shuffle=True, num_epochs=20))
    assert est.get_variable_value("global_step") == 100
    loss = est.evaluate(numpy_input_fn({"x": x}, y, batch_size=40, shuffle=False))["loss"]
    assert loss < 0.05
