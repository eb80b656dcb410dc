"""Writes tf_layers3d_reference.json: what TensorFlow's TF1 3-D and separable layers do
(conv3d, conv3d_transpose, max/average_pooling3d, separable_conv1d/2d).

Run with TensorFlow 2.21 plus tf-keras 2.21 (`pip install --no-deps --target /tmp/tfk
tf-keras==2.21.0`):

    PYTHONPATH=/tmp/tfk python gen_tf_layers3d_reference.py tf_layers3d_reference.json

It records variable names and shapes, node names and types, output shapes, outputs and
the gradients of a weighted sum of the outputs with respect to every variable and input.
TF's CPU kernels have no channels-first depthwise or 3-D convolutions, so every layer
here is channels-last; the tests check the channels-first forms against these.
"""

import json
import os
import sys

os.environ["TF_USE_LEGACY_KERAS"] = "1"
os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
import numpy as np  # noqa: E402 - after the environment variables
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_v2_behavior()
L = tf1.layers


def arr(shape, scale=0.1, shift=0.0):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * 0.37 + shift) * scale * 10).reshape(shape).astype(np.float32)


def build():
    ci = tf1.constant_initializer
    x = tf1.placeholder(tf.float32, [None, 4, 5, 6, 2], name="x")
    x2 = tf1.placeholder(tf.float32, [None, 7, 6, 3], name="x2")
    x1 = tf1.placeholder(tf.float32, [None, 9, 2], name="x1")
    outs = {
        "c1": L.conv3d(x, 3, 3, kernel_initializer=ci(arr([3, 3, 3, 2, 3])),
                       bias_initializer=ci(arr([3], shift=1.0)), activation=tf.nn.relu),
        "c2": L.conv3d(x, 2, (2, 3, 2), strides=(1, 2, 2), padding="same",
                       kernel_initializer=ci(arr([2, 3, 2, 2, 2], shift=0.3))),
        "c3": L.conv3d(x, 2, 2, dilation_rate=(1, 2, 2), padding="same", use_bias=False,
                       kernel_initializer=ci(arr([2, 2, 2, 2, 2], shift=0.7))),
        "t1": L.conv3d_transpose(x, 3, 3, strides=2, padding="same",
                                 kernel_initializer=ci(arr([3, 3, 3, 3, 2], shift=1.1)),
                                 bias_initializer=ci(arr([3], shift=3.0))),
        "t2": L.conv3d_transpose(x, 2, (2, 3, 2), strides=(1, 2, 3), padding="valid",
                                 activation=tf.nn.tanh,
                                 kernel_initializer=ci(arr([2, 3, 2, 2, 2], shift=1.3))),
        "p1": L.max_pooling3d(x, 2, 2),
        "p2": L.max_pooling3d(x, (2, 3, 3), (1, 2, 2), padding="same"),
        "p3": L.average_pooling3d(x, 2, 1, padding="same"),
        "s1": L.separable_conv2d(x2, 4, 3, depth_multiplier=2, activation=tf.nn.relu,
                                 depthwise_initializer=ci(arr([3, 3, 3, 2], shift=0.2)),
                                 pointwise_initializer=ci(arr([1, 1, 6, 4], shift=0.4)),
                                 bias_initializer=ci(arr([4], shift=0.6))),
        "s2": L.separable_conv2d(x2, 3, (2, 3), strides=2, padding="same",
                                 depthwise_initializer=ci(arr([2, 3, 3, 1], shift=0.8)),
                                 pointwise_initializer=ci(arr([1, 1, 3, 3], shift=1.0))),
        "s3": L.separable_conv2d(x2, 2, 3, dilation_rate=2, use_bias=False,
                                 depthwise_initializer=ci(arr([3, 3, 3, 1], shift=1.2)),
                                 pointwise_initializer=ci(arr([1, 1, 3, 2], shift=1.4))),
        "d1": L.separable_conv1d(x1, 3, 3, depth_multiplier=2,
                                 depthwise_initializer=ci(arr([3, 2, 2], shift=2.2)),
                                 pointwise_initializer=ci(arr([1, 4, 3], shift=2.4)),
                                 bias_initializer=ci(arr([3], shift=2.6))),
        "d2": L.separable_conv1d(x1, 2, 2, strides=2, padding="same", activation=tf.nn.tanh,
                                 depthwise_initializer=ci(arr([2, 2, 1], shift=2.8)),
                                 pointwise_initializer=ci(arr([1, 2, 2], shift=3.0))),
        "d3": L.separable_conv1d(x1, 2, 3, dilation_rate=2,
                                 depthwise_initializer=ci(arr([3, 2, 1], shift=3.2)),
                                 pointwise_initializer=ci(arr([1, 2, 2], shift=3.4))),
    }
    return (x, x2, x1), outs


def tolist(o):
    if isinstance(o, dict):
        return {k: tolist(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [tolist(v) for v in o]
    if isinstance(o, np.ndarray):
        return o.tolist()
    return o


def main(path):
    g = tf1.Graph()
    with g.as_default():
        places, outs = build()
        inputs = {p.op.name: arr([2] + p.shape.as_list()[1:], shift=0.5 + i)
                  for i, p in enumerate(places)}
        total = tf.add_n([tf.reduce_sum(v * arr(v.shape.as_list()[1:], shift=0.1))
                          for k, v in sorted(outs.items())])
        variables = tf1.global_variables()
        wrt = [t for t, d in zip(variables + list(places),
                                 tf1.gradients(total, variables + list(places)))
               if d is not None]
        grads = dict(zip([t.op.name for t in wrt], tf1.gradients(total, wrt)))
        nodes = [[n.name, n.op] for n in g.as_graph_def().node]
        with tf1.Session() as s:
            s.run(tf1.global_variables_initializer())
            feed = {p: inputs[p.op.name] for p in places}
            values, grad_values = s.run([outs, grads], feed)
    ref = {
        "variables": [[v.op.name, v.shape.as_list()] for v in variables],
        "nodes": nodes,
        "shapes": {k: v.shape.as_list() for k, v in outs.items()},
        "inputs": tolist(inputs),
        "values": tolist(values),
        "grads": tolist(grad_values),
    }
    with open(path, "w") as f:
        json.dump(ref, f)


if __name__ == "__main__":
    main(sys.argv[1])
