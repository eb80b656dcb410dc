"""Object-based checkpoints written by trainflow restore in TensorFlow 2.21 (through
TRAINFLOW_TF_PYTHON; skipped when unset): same object graph, assert_consumed passes, same
values, optimizer slots included."""
import numpy as np

import trainflow.compat.v1 as tf

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

TF_RESTORE = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
spec = json.loads(sys.stdin.read())
with tf.Graph().as_default():
    model = tf.Module()
    model.dense = tf.Module()
    model.dense.kernel = tf.Variable(tf.zeros([2, 2]), name="kernel")
    model.dense.bias = tf.Variable(tf.zeros([2]), name="bias")
    model.scale = tf.Variable(1.0, name="scale")
    step = tf.train.get_or_create_global_step()
    opt = tf.train.AdamOptimizer(0.05)
    loss = tf.reduce_sum(tf.square(model.scale * (tf.matmul([[1.0, 2.0]], model.dense.kernel)
                                                  + model.dense.bias)))
    train = opt.minimize(loss, global_step=step)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=step)
    status = ckpt.restore(spec["path"])
    with tf.Session() as sess:
        status.assert_consumed()
        status.run_restore_ops(sess)
        out = {"kernel": sess.run(model.dense.kernel).tolist(),
               "m": sess.run(opt.get_slot(model.dense.kernel, "m")).tolist(),
               "beta1_power": float(sess.run(opt._get_beta_accumulators()[0])),
               "step": int(sess.run(step)), "save_counter": int(sess.run(ckpt.save_counter))}
print(json.dumps(out))
"""


def test_tensorflow_restores_our_object_checkpoint(tmp_path):
    class Module:
        pass
    with tf.Graph().as_default():
        model = Module()
        model.dense = Module()
        model.dense.kernel = tf.Variable([[1.0, -1.0], [0.5, 2.0]], name="kernel")
        model.dense.bias = tf.Variable([0.1, 0.2], name="bias")
        model.scale = tf.Variable(2.0, name="scale")
        step = tf.train.get_or_create_global_step()
        opt = tf.train.AdamOptimizer(0.05)
        loss = tf.reduce_sum(tf.square(
            model.scale * (tf.matmul([[1.0, 2.0]], model.dense.kernel) + model.dense.bias)))
        train = opt.minimize(loss, global_step=step)
        ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=step)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            sess.run(train)
            path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
            want = {"kernel": sess.run(model.dense.kernel),
                    "m": sess.run(opt.get_slot(model.dense.kernel, "m")),
                    "beta1_power": sess.run(opt._get_non_slot_variable("beta1_power"))}
    got = run_json(TF_RESTORE, spec={"path": path})
    np.testing.assert_array_equal(np.float32(got["kernel"]), want["kernel"])
    np.testing.assert_array_equal(np.float32(got["m"]), want["m"])
    assert np.float32(got["beta1_power"]) == want["beta1_power"]
    assert got["step"] == 2 and got["save_counter"] == 1
