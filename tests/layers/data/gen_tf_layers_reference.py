"""Writes tf_layers_reference.json: what TensorFlow's TF1 layers do, for the tests here.

TF 2.21 only offers `tf.compat.v1.layers` through the legacy Keras package, so run it
with TensorFlow 2.21 plus tf-keras 2.21 (for example
`pip install --no-deps --target /tmp/tfk tf-keras==2.21.0`):

    PYTHONPATH=/tmp/tfk python gen_tf_layers_reference.py tf_layers_reference.json

It records graph node names, collections, output values, batch-norm moving averages,
two short training runs and some error messages. Inputs are deterministic (sines).
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


def summary(g):
    return {
        "nodes": [[n.name, n.op] for n in g.as_graph_def().node],
        "global": [v.op.name for v in tf1.global_variables()],
        "trainable": [v.op.name for v in tf1.trainable_variables()],
        "local": [v.op.name for v in tf1.local_variables()],
        "update_ops": [o.name for o in tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)],
        "reg_losses": [t.name for t in tf1.get_collection(tf1.GraphKeys.REGULARIZATION_LOSSES)],
    }


def run(g, fetches, feed=None):
    with tf1.Session(
        graph=g,
        config=tf1.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1),
    ) as s:
        s.run(tf1.global_variables_initializer())
        out = s.run(fetches, feed)
    return tolist(out)


def tolist(o):
    if isinstance(o, dict):
        return {k: tolist(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [tolist(v) for v in o]
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, np.generic):
        return o.item()
    return o


R = {}
ci = tf1.constant_initializer

# --- dense naming / reuse / scopes / regularizers
g = tf1.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 4], name="x")
    h = L.dense(
        x,
        3,
        activation=tf.nn.relu,
        kernel_initializer=ci(arr([4, 3])),
        kernel_regularizer=lambda w: tf.reduce_sum(tf.square(w)),
        bias_regularizer=lambda b: tf.reduce_sum(tf.abs(b)),
        bias_initializer=ci(arr([3], shift=1.0)),
    )
    y = L.dense(
        h,
        2,
        kernel_initializer=ci(arr([3, 2], shift=2.0)),
        activity_regularizer=lambda t: tf.reduce_sum(tf.square(t)),
    )
    z = L.dense(h, 2, name="fc", use_bias=False, trainable=False)
    with tf1.name_scope("foo"):
        z2 = L.dense(h, 2, name="fc", reuse=True, use_bias=False)
        z3 = L.dense(h, 2)
    with tf1.variable_scope("outer"):
        z4 = L.dense(h, 2)
    R["dense_names"] = summary(g)
    xv = arr([5, 4], shift=3.0)
    R["dense_names"]["x"] = xv.tolist()
    R["dense_names"]["values"] = run(
        g, {"h": h, "y": y, "reg": tf1.get_collection(tf1.GraphKeys.REGULARIZATION_LOSSES)}, {x: xv}
    )

# --- dense rank 3 (tensordot)
g = tf1.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 3, 4], name="x")
    y = L.dense(x, 2, kernel_initializer=ci(arr([4, 2])), activation=tf.nn.tanh)
    R["dense_rank3"] = summary(g)
    R["dense_rank3"]["shape"] = y.shape.as_list()
    xv = arr([2, 3, 4], shift=0.5)
    R["dense_rank3"]["x"] = xv.tolist()
    R["dense_rank3"]["y"] = run(g, y, {x: xv})

# --- dense class API
g = tf1.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 4], name="x")
    layer = L.Dense(3, name="my_dense")
    a = layer(x)
    b = layer.apply(x)
    layer2 = L.Dense(3)
    c = layer2(x)
    R["dense_class"] = summary(g)
    R["dense_class"]["attrs"] = {
        "name": layer.name,
        "scope_name": layer.scope_name,
        "kernel": layer.kernel.name,
        "variables": [v.name for v in layer.variables],
        "trainable_variables": [v.name for v in layer.trainable_variables],
        "layer2_name": layer2.name,
        "a": a.name,
        "b": b.name,
        "c": c.name,
    }

# --- conv layers
g = tf1.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 6, 6, 2], name="x")
    c1 = L.conv2d(
        x,
        3,
        3,
        kernel_initializer=ci(arr([3, 3, 2, 3])),
        bias_initializer=ci(arr([3], shift=1.0)),
        activation=tf.nn.relu,
    )
    c2 = L.conv2d(
        x,
        2,
        (2, 3),
        strides=(2, 1),
        padding="same",
        kernel_initializer=ci(arr([2, 3, 2, 2], shift=0.3)),
    )
    c3 = L.conv2d(
        x,
        2,
        3,
        dilation_rate=2,
        padding="same",
        kernel_initializer=ci(arr([3, 3, 2, 2], shift=0.7)),
        use_bias=False,
    )
    xt = tf1.placeholder(tf.float32, [None, 2, 5, 5], name="xt")
    c4 = L.conv2d(
        xt,
        3,
        2,
        data_format="channels_first",
        kernel_initializer=ci(arr([2, 2, 2, 3], shift=0.9)),
        bias_initializer=ci(arr([3], shift=2.0)),
    )
    t1 = L.conv2d_transpose(
        x,
        3,
        3,
        strides=2,
        padding="same",
        kernel_initializer=ci(arr([3, 3, 3, 2], shift=1.1)),
        bias_initializer=ci(arr([3], shift=3.0)),
    )
    t2 = L.conv2d_transpose(
        x,
        2,
        (2, 3),
        strides=(1, 2),
        padding="valid",
        kernel_initializer=ci(arr([2, 3, 2, 2], shift=1.3)),
    )
    t3 = L.conv2d_transpose(
        xt,
        2,
        2,
        strides=2,
        data_format="channels_first",
        kernel_initializer=ci(arr([2, 2, 2, 2], shift=1.7)),
        bias_initializer=ci(arr([2], shift=2.5)),
    )
    x1 = tf1.placeholder(tf.float32, [None, 7, 2], name="x1")
    d1 = L.conv1d(
        x1,
        3,
        3,
        strides=2,
        padding="same",
        kernel_initializer=ci(arr([3, 2, 3], shift=1.5)),
        bias_initializer=ci(arr([3], shift=0.2)),
    )
    d2 = L.conv1d(x1, 2, 2, dilation_rate=2, kernel_initializer=ci(arr([2, 2, 2], shift=1.9)))
    R["conv"] = summary(g)
    xv = arr([2, 6, 6, 2], shift=4.0)
    xtv = arr([2, 2, 5, 5], shift=5.0)
    x1v = arr([2, 7, 2], shift=6.0)
    R["conv"]["inputs"] = {"x": xv.tolist(), "xt": xtv.tolist(), "x1": x1v.tolist()}
    outs = {
        "c1": c1,
        "c2": c2,
        "c3": c3,
        "c4": c4,
        "t1": t1,
        "t2": t2,
        "t3": t3,
        "d1": d1,
        "d2": d2,
    }
    R["conv"]["shapes"] = {k: v.shape.as_list() for k, v in outs.items()}
    for k in ("c4", "t3"):
        del outs[k]  # NCHW convolutions do not run on TF's CPU kernels
    R["conv"]["values"] = run(g, outs, {x: xv, xt: xtv, x1: x1v})

# --- pooling / flatten
g = tf1.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 5, 5, 2], name="x")
    p1 = L.max_pooling2d(x, 2, 2)
    p2 = L.average_pooling2d(x, (3, 2), (1, 2), padding="same")
    xt = tf1.placeholder(tf.float32, [None, 2, 5, 5], name="xt")
    p3 = L.max_pooling2d(xt, 2, 1, data_format="channels_first")
    p4 = L.average_pooling2d(xt, 2, 2, padding="same", data_format="channels_first")
    x1 = tf1.placeholder(tf.float32, [None, 7, 3], name="x1")
    p5 = L.max_pooling1d(x1, 2, 2)
    p6 = L.average_pooling1d(x1, 3, 2, padding="same")
    f1 = L.flatten(x)
    f2 = L.flatten(xt, data_format="channels_first")
    R["pool"] = summary(g)
    xv = arr([2, 5, 5, 2], shift=7.0)
    xtv = arr([2, 2, 5, 5], shift=8.0)
    x1v = arr([2, 7, 3], shift=9.0)
    R["pool"]["inputs"] = {"x": xv.tolist(), "xt": xtv.tolist(), "x1": x1v.tolist()}
    outs = {"p1": p1, "p2": p2, "p3": p3, "p4": p4, "p5": p5, "p6": p6, "f1": f1, "f2": f2}
    R["pool"]["shapes"] = {k: v.shape.as_list() for k, v in outs.items()}
    for k in ("p3", "p4"):
        del outs[k]
    R["pool"]["values"] = run(g, outs, {x: xv, xt: xtv, x1: x1v})

# --- dropout
g = tf1.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [4, 5], name="x")
    a = L.dropout(x, 0.5)
    b = L.dropout(x, 0.5, training=True, seed=3)
    t = tf1.placeholder(tf.bool, [], name="training")
    c = L.dropout(x, 0.3, training=t, noise_shape=[4, 1])
    R["dropout"] = summary(g)
    R["dropout"]["outs"] = [a.name, b.name, c.name]

# --- batch norm
for label, shape, axis, fused in (
    ("bn2d", [6, 3], -1, None),
    ("bn4d", [4, 3, 3, 2], -1, None),
    ("bn4d_nonfused", [4, 3, 3, 2], -1, False),
    ("bn4d_cf", [4, 2, 3, 3], 1, None),
):
    for training in ("false", "true", "tensor"):
        g = tf1.Graph()
        with g.as_default():
            x = tf1.placeholder(tf.float32, shape, name="x")
            tr = {"false": False, "true": True, "tensor": None}[training]
            if tr is None:
                tr = tf1.placeholder(tf.bool, [], name="training")
            c = shape[axis]
            y = L.batch_normalization(
                x,
                axis=axis,
                training=tr,
                fused=fused,
                momentum=0.9,
                gamma_initializer=ci(1 + arr([c], 0.05)),
                beta_initializer=ci(arr([c], 0.05, 1.0)),
                moving_mean_initializer=ci(arr([c], 0.02, 2.0)),
                moving_variance_initializer=ci(1 + arr([c], 0.03, 3.0)),
            )
            info = summary(g)
            xv = arr(shape, 0.3, 10.0)
            info["x"] = xv.tolist()
            upd = tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)
            feed = {x: xv}
            if training == "tensor":
                feed[g.get_tensor_by_name("training:0")] = True
            mm = [v for v in tf1.global_variables() if "moving" in v.op.name]
            with tf1.Session(graph=g) as s:
                s.run(tf1.global_variables_initializer())
                y0 = s.run(y, feed)
                steps = []
                for _ in range(2):
                    s.run([y] + upd, feed)
                    steps.append(tolist(s.run(mm)))
                info["y"] = y0.tolist()
                info["moving_after_steps"] = steps
                if training == "tensor":
                    feed[g.get_tensor_by_name("training:0")] = False
                    info["y_infer_after"] = s.run(y, feed).tolist()
            R[f"{label}_{training}"] = info

# --- tiny model training with GradientDescent
g = tf1.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [None, 4], name="x")
    lbl = tf1.placeholder(tf.int32, [None], name="labels")
    h = L.dense(x, 8, activation=tf.nn.relu, kernel_initializer=ci(arr([4, 8], 0.05)))
    h = L.batch_normalization(h, training=True)
    logits = L.dense(h, 3, kernel_initializer=ci(arr([8, 3], 0.05, 1.0)))
    loss = tf1.losses.sparse_softmax_cross_entropy(lbl, logits)
    with tf1.control_dependencies(tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)):
        train = tf1.train.GradientDescentOptimizer(0.1).minimize(loss)
    xv = arr([8, 4], 0.3, 11.0)
    lv = np.array([0, 1, 2, 0, 1, 2, 1, 0], np.int32)
    losses = []
    with tf1.Session(graph=g) as s:
        s.run(tf1.global_variables_initializer())
        for _ in range(5):
            losses.append(float(s.run(loss, {x: xv, lbl: lv})))
            s.run(train, {x: xv, lbl: lv})
    R["train"] = {"x": xv.tolist(), "labels": lv.tolist(), "losses": losses}


# --- renorm and center/scale off
for label, kwargs, shape in (
    (
        "bn_renorm",
        dict(
            renorm=True,
            renorm_clipping={"rmax": 1.5, "rmin": 0.5, "dmax": 0.3},
            renorm_momentum=0.8,
        ),
        [6, 3],
    ),
    ("bn_noscale_fused", dict(center=False, scale=False), [4, 2, 2, 3]),
    ("bn_axis_list", dict(axis=[1, 2], fused=False), [4, 2, 3]),
):
    g = tf1.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, shape, name="x")
        y = L.batch_normalization(x, training=True, momentum=0.9, **kwargs)
        info = summary(g)
        xv = arr(shape, 0.3, 12.0)
        info["x"] = xv.tolist()
        upd = tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)
        with tf1.Session(graph=g) as s:
            s.run(tf1.global_variables_initializer())
            outs = []
            for _ in range(3):
                outs.append(s.run(y, {x: xv}).tolist())
                s.run(upd, {x: xv})
            info["ys"] = outs
            info["vars_after"] = {v.op.name: s.run(v).tolist() for v in tf1.global_variables()}
        R[label] = info

# --- conv model training (fused batch norm, pooling, flatten, dropout off)
g = tf1.Graph()
with g.as_default():
    x = tf1.placeholder(tf.float32, [4, 6, 6, 2], name="x")
    lbl = tf1.placeholder(tf.int32, [4], name="labels")
    h = L.conv2d(
        x,
        4,
        3,
        padding="same",
        activation=tf.nn.relu,
        kernel_initializer=ci(arr([3, 3, 2, 4], 0.03)),
    )
    h = L.batch_normalization(h, training=True)
    h = L.max_pooling2d(h, 2, 2)
    h = L.flatten(h)
    h = L.dropout(h, 0.5, training=False)
    logits = L.dense(h, 3, kernel_initializer=ci(arr([36, 3], 0.03, 1.0)))
    loss = tf1.losses.sparse_softmax_cross_entropy(lbl, logits)
    with tf1.control_dependencies(tf1.get_collection(tf1.GraphKeys.UPDATE_OPS)):
        train = tf1.train.GradientDescentOptimizer(0.2).minimize(loss)
    xv = arr([4, 6, 6, 2], 0.3, 13.0)
    lv = np.array([0, 1, 2, 1], np.int32)
    losses = []
    with tf1.Session(graph=g) as s:
        s.run(tf1.global_variables_initializer())
        for _ in range(4):
            losses.append(float(s.run(loss, {x: xv, lbl: lv})))
            s.run(train, {x: xv, lbl: lv})
        mv = s.run(g.get_tensor_by_name("batch_normalization/moving_variance:0"))
    R["train_conv"] = {
        "x": xv.tolist(),
        "labels": lv.tolist(),
        "losses": losses,
        "moving_variance": mv.tolist(),
    }

# --- errors
errs = {}


def err(label, fn):
    g = tf1.Graph()
    with g.as_default():
        try:
            fn()
            errs[label] = None
        except Exception as e:
            # Drop TF's "Originally defined at" traceback: it names this machine's files.
            message = str(e).split(" Originally defined at")[0]
            errs[label] = {"exception": type(e).__name__, "message": message}


err("dense_rank1", lambda: L.dense(tf1.placeholder(tf.float32, [3]), 2))
err("dense_none_last", lambda: L.dense(tf1.placeholder(tf.float32, [2, None]), 2))
err("conv_rank3", lambda: L.conv2d(tf1.placeholder(tf.float32, [2, 3, 3]), 2, 2))
err(
    "dense_twice_same_name",
    lambda: (
        L.dense(tf1.placeholder(tf.float32, [2, 3]), 2, name="fc"),
        L.dense(tf1.placeholder(tf.float32, [2, 3]), 2, name="fc"),
    ),
)
err(
    "dense_reuse_missing",
    lambda: L.dense(tf1.placeholder(tf.float32, [2, 3]), 2, name="nope", reuse=True),
)
err(
    "dense_wrong_input_dim",
    lambda: (
        lambda layer: (
            layer(tf1.placeholder(tf.float32, [2, 3])),
            layer(tf1.placeholder(tf.float32, [2, 4])),
        )
    )(L.Dense(2)),
)
err("bn_fused_renorm", lambda: L.BatchNormalization(fused=True, renorm=True))
R["errors"] = errs
with open(sys.argv[1], "w") as f:
    json.dump(R, f)
