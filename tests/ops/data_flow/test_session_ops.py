"""tf.get_session_handle / get_session_tensor / delete_session_tensor and TensorHandle:
the cases of TensorFlow's session_ops_test.py, and the handles, names and errors TF 2.21
gives (recorded from it)."""
import gc

import numpy as np
import pytest

import trainflow.compat.v1 as tf
from trainflow._src.framework import errors

DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


@pytest.fixture
def sess():
    with tf.Graph().as_default() as g, tf.Session(graph=g) as s:
        yield s


def _product_handle(sess, dtype=tf.int32):
    c = tf.multiply(tf.constant(10, dtype), tf.constant(5, dtype))
    return sess.run(tf.get_session_handle(c))


def test_handle_basic(sess):
    h = _product_handle(sess)
    f, x = tf.get_session_tensor(h.handle, tf.int32)
    assert sess.run(tf.multiply(x, 10), feed_dict={f: h.handle}) == 500


def test_handle_eval_and_value(sess):
    a, b = tf.constant(10), tf.constant(5)
    c = tf.multiply(a, b)
    h, v = sess.run([tf.get_session_handle(c), tf.multiply(a, c)])
    assert h.eval() == 50 and v == 500


def test_handle_cond(sess):
    a, b = tf.constant(10), tf.constant(5)
    p, h = sess.run([tf.less(a, b), tf.get_session_handle(tf.multiply(a, b))])
    f, x = tf.get_session_tensor(h.handle, tf.int32)
    y = tf.multiply(x, 10) if p else tf.multiply(x, 100)
    assert sess.run(y, feed_dict={f: h.handle}) == 5000


def test_handle_for_loop_collects_garbage(sess):
    h = sess.run(tf.get_session_handle(tf.constant(0)))
    f, x = tf.get_session_tensor(h.handle, tf.int32)
    h_x = tf.get_session_handle(tf.add(x, 1))
    for _ in range(100):
        h = sess.run(h_x, feed_dict={f: h.handle})
    assert h.eval() == 100
    gc.collect()
    store = sess._resources.lookup("SessionTensorStore", "")
    assert len(store.tensors) < 15  # the dead handles were deleted ten at a time


def test_handle_while_loop(sess):
    h = sess.run(tf.get_session_handle(tf.constant(0)))
    f, x = tf.get_session_tensor(h.handle, tf.int32)
    p = tf.less(x, tf.constant(100))
    h_x = tf.get_session_handle(tf.add(x, 1))
    while True:
        rp, h = sess.run([p, h_x], feed_dict={f: h.handle})
        if not rp:
            break
    assert h.eval() == 101


def test_handle_mover_and_multi_devices(sess):
    h = _product_handle(sess)
    f, x = tf.get_session_tensor(h.handle, tf.int32)
    y = tf.multiply(x, 10)
    with tf.device(tf.test.gpu_device_name()):
        h2 = sess.run(tf.get_session_handle(tf.constant(10)))
        assert sess.run(y, feed_dict={f: h2.handle}) == 100
    with tf.device("/cpu:0"):
        b_handle = sess.run(tf.get_session_handle(tf.constant(2.0)))
    a_handle = sess.run(tf.get_session_handle(tf.constant(1.0)))
    a_p, a_t = tf.get_session_tensor(a_handle.handle, tf.float32)
    b_p, b_t = tf.get_session_tensor(b_handle.handle, tf.float32)
    c_handle = sess.run(tf.get_session_handle(tf.add(a_t, b_t)),
                        feed_dict={a_p: a_handle.handle, b_p: b_handle.handle})
    assert c_handle.eval() == 3.0


def test_handle_delete_and_delete_raw(sess):
    h = tf.get_session_handle(tf.multiply(tf.constant(10), tf.constant(5)))
    sess.run(h).delete()
    raw = sess.run(h).get_raw_handle()
    f, x = tf.delete_session_tensor(raw)
    sess.run(x, feed_dict={f: raw})
    with pytest.raises(errors.InvalidArgumentError,
                       match="The tensor with handle '.*' is not in the session store."):
        sess.run(x, feed_dict={f: raw})


def test_handle_gc_loop(sess):
    with tf.device("/cpu:0"):
        one = tf.constant(1, dtype=tf.float32)
        one_handle = sess.run(tf.get_session_handle(one))
        x_handle = sess.run(tf.get_session_handle(one))
    add_h1, add_t1 = tf.get_session_tensor(one_handle.handle, tf.float32)
    add_h2, add_t2 = tf.get_session_tensor(x_handle.handle, tf.float32)
    add_output = tf.get_session_handle(tf.add(add_t1, add_t2))
    for _ in range(20):
        x_handle = sess.run(add_output, feed_dict={add_h1: one_handle.handle,
                                                   add_h2: x_handle.handle})
    assert x_handle.eval() == 21.0


def test_feed_handles_directly(sess):
    a, b = tf.constant(10.0), tf.constant(5.0)
    c = tf.multiply(a, b)
    d = tf.div(a, b)
    e = tf.subtract(c, d)
    h_c = sess.run(tf.get_session_handle(c))
    h_d = sess.run(tf.get_session_handle(d))
    assert sess.run(tf.multiply(c, c), feed_dict={c: h_c}) == pytest.approx(2500.0)
    assert sess.run(e, feed_dict={c: h_c, d: h_d}) == pytest.approx(48.0)
    assert sess.run(e, feed_dict={c: h_d, d: h_c}) == pytest.approx(-48.0)
    ident = tf.identity(c)
    for feeds, want in [({c: h_c}, (50.0, 50.0)), ({c: h_c, ident: 60.0}, (50.0, 60.0)),
                        ({c: 60.0, ident: h_c}, (60.0, 50.0)),
                        ({c: h_c, ident: h_c}, (50.0, 50.0))]:
        np.testing.assert_allclose(sess.run([c, ident], feed_dict=feeds), want)


def test_feed_handle_to_variable_directly(sess):
    a = tf.Variable(12.0)
    inc_a = tf.assign_add(a, 2.0)
    b = tf.add(a, 5.0)
    sess.run(a.initializer)
    h_a_read = sess.run(tf.get_session_handle(a.read_value()))
    assert sess.run(a) == 12.0
    assert sess.run(b, feed_dict={a: h_a_read}) == 17.0
    sess.run(inc_a)
    assert sess.run(b, feed_dict={a: h_a_read}) == 19.0
    assert h_a_read.eval() == 14.0  # the kept tensor is the variable's buffer, as in TF


def test_what_tensorflow_shows(sess):
    # Recorded from TF 2.21: op types, names, handle strings, dtypes and messages.
    c = tf.multiply(tf.constant(10.0), tf.constant(5.0))
    h = tf.get_session_handle(c)
    assert (h.op.type, h.name, h.dtype, h.shape.as_list()) == (
        "GetSessionHandle", "GetSessionHandle:0", tf.string, [])
    hv, hv2 = sess.run(h), sess.run(h)
    assert hv.handle == str(hv) == "GetSessionHandle;0;" + DEVICE
    assert hv2.handle == "GetSessionHandle;1;" + DEVICE
    p, x = tf.get_session_tensor(hv.handle, tf.float32)
    assert (p.op.type, p.dtype, x.op.type, x.dtype, x.shape.rank) == (
        "Placeholder", tf.string, "GetSessionTensor", tf.float32, None)
    hp, d = tf.delete_session_tensor(hv.handle)
    assert (hp.op.type, d.type, d.name) == ("Placeholder", "DeleteSessionTensor",
                                             "DeleteSessionTensor")
    with tf.device("/cpu:0"):
        h3 = sess.run(tf.get_session_handle(tf.constant([1, 2]), name="hh"))
    assert h3.handle == "hh;2;" + DEVICE
    np.testing.assert_array_equal(h3.eval(), [1, 2])
    h3.delete()
    with pytest.raises(TypeError, match="Persistent tensor hh;2;.* may have already been "
                                        "deleted."):
        h3.eval()
    with pytest.raises(TypeError, match="`data` must be of type Tensor."):
        tf.get_session_handle(3.0)
    first, second = sess.run([h, h])
    assert first.handle == second.handle
