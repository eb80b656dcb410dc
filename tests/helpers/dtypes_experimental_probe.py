"""What the interop test asks of both TensorFlow and trainflow about the 8-, 4- and 2-bit
dtypes: `probe(tf, ckpt_dir)` returns plain values (JSON) and saves a checkpoint. The
interop test runs this file's text under TensorFlow's python and imports it here."""

NAMES = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e4m3b11fnuz",
         "float8_e5m2fnuz", "float4_e2m1fn", "int4", "uint4", "int2", "uint2"]
# The fnuz float8s: TF has no CPU variable kernels for them, so they stay out of the
# checkpoint (trainflow saves them too; TF cannot).
CKPT_NAMES = ["float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int4", "uint4", "int2",
              "uint2"]
# The casts TF's CPU kernel has (TF raises UnimplementedError for the others).
CAST_FROM = ["float16", "float32", "float64", "bfloat16", "float8_e4m3fn", "float8_e5m2"]
CAST_TO = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "int8", "bool",
           "complex64", "float8_e4m3fn", "float8_e5m2"]
FLOATS = [0.3, -1.7, 2.5, 1000.0, -0.01, 7.0, float("nan"), 1e-3, 448.0, 464.0, -57344.0,
          61440.0, 0.0, -0.0, float("inf"), float("-inf"), 3.1415, 0.0625, 1e-9]
SMALL = [1.0, -2.5, 3.75, 0.0, 6.0, -1.5, 0.5, 12.0, -96.0]


def _outcome(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the class name is the answer
        return type(e).__name__


def _plain(values):
    return [repr(float(v)) if isinstance(v, float) else v for v in values]


def _properties(tf, np, d, name):
    return {
        "enum": d.as_datatype_enum, "repr": repr(d), "str": str(d), "size": d.size,
        "min": _outcome(lambda: repr(float(d.min))),
        "max": _outcome(lambda: repr(float(d.max))),
        "flags": [d.is_floating, d.is_integer, d.is_unsigned, d.is_quantized, d.is_bool,
                  d.is_complex, d.is_numpy_compatible],
        "numpy": d.as_numpy_dtype.__name__, "limits": _outcome(lambda: d.limits),
        "round_trips": [tf.as_dtype(d.as_datatype_enum) == d, tf.as_dtype(name) == d,
                        tf.as_dtype(np.dtype(d.as_numpy_dtype)) == d,
                        tf.as_dtype(d.as_numpy_dtype) == d,
                        tf.as_dtype(name + "_ref").base_dtype == d,
                        tf.as_dtype(name + "_ref").name, d.is_compatible_with(tf.float32),
                        d == np.dtype(d.as_numpy_dtype), d.real_dtype == d],
    }


def _protos(tf, np, d):
    base = np.array([1.0, -1.0, 0.5, 1.5, 6.0, -3.0], np.float32)
    if d.is_integer:
        base = np.array([1, 0, -1, 1, 3, -2]) if not d.is_unsigned else \
            np.array([1, 0, 3, 1, 2, 0])
    array = base.astype(d.as_numpy_dtype)
    cases = [lambda: array, lambda: array[:1], lambda: array[:1].reshape(()),
             lambda: array.reshape(2, 3), lambda: array[:0]]
    out = []
    for case in cases:
        out.append(_outcome(lambda: tf.make_tensor_proto(case()).SerializeToString().hex()))
    out.append(_outcome(lambda: tf.make_tensor_proto(1, dtype=d, shape=[3])
                        .SerializeToString().hex()))
    out.append(_outcome(lambda: tf.make_tensor_proto([1, 0, 1], dtype=d)
                        .SerializeToString().hex()))
    back = []
    for hexed in out:
        if hexed.endswith("Error"):
            continue
        proto = tf.make_tensor_proto(np.zeros(1, np.float32))
        proto.ParseFromString(bytes.fromhex(hexed))
        back.append(_plain(tf.make_ndarray(proto).ravel().tolist()))
    return out, back


def _graph_values(tf, np, d):
    """Constants, casts and their GraphDef bytes, run in one session."""
    with tf.Graph().as_default() as g:
        fetches = {}
        vals = [1.5, 2.0, -0.5] if d.is_floating else [1, 0, 1]
        consts = {"list": lambda: tf.constant(vals, d), "scalar": lambda: tf.constant(1, d),
                  "fill": lambda: tf.constant(1, d, shape=[2, 2]),
                  "zeros": lambda: tf.zeros([3], d)}
        errors = {}
        for key, make in consts.items():
            try:
                fetches[key] = make()
            except Exception as e:  # noqa: BLE001
                errors[key] = type(e).__name__
        made = {t.op.name for t in fetches.values()}  # a failed constant may leave nodes
        nodes = {n.name: n.attr["value"].tensor.SerializeToString().hex()
                 for n in g.as_graph_def().node if n.op == "Const" and n.name in made}
        with tf.Session() as sess:
            got = sess.run(fetches)
        return ({k: _plain(np.asarray(v).ravel().tolist()) for k, v in got.items()},
                errors, nodes)


def _casts(tf, np):
    out = {}
    with tf.Graph().as_default():
        fetches = {}
        for src in CAST_FROM:
            x = tf.constant(FLOATS, tf.float32)
            x = tf.cast(x, getattr(tf.dtypes.experimental, src, None) or tf.as_dtype(src))
            for dst in CAST_TO:
                if src == dst or ("float8" not in src and "float8" not in dst):
                    continue
                dst_t = getattr(tf.dtypes.experimental, dst, None) or tf.as_dtype(dst)
                source = x if tf.as_dtype(dst_t).is_floating or dst == "complex64" else \
                    tf.cast(tf.constant(SMALL, tf.float32), x.dtype)
                fetches[f"{src}->{dst}"] = tf.cast(source, dst_t)
        with tf.Session() as sess:
            got = sess.run(fetches)
        for key, value in got.items():
            value = np.asarray(value).ravel()
            if value.dtype.kind == "c":
                value = np.stack([value.real, value.imag], -1).ravel()
            out[key] = _plain(value.astype(np.float64).tolist())
    return out


# Array ops on a value `a` of dtype `D`. TF's CPU has kernels for some of them only (the
# others raise there and work in trainflow): the tests compare where TF gives a value.
OPS = ["tf.identity(a)", "tf.reshape(a, [2, 2])", "tf.concat([a, a], 0)",
       "tf.gather(a, [3, 0])", "tf.transpose(tf.reshape(a, [2, 2]))", "tf.zeros_like(a)",
       "tf.ones_like(a)", "tf.saturate_cast(tf.constant([1000., -1000., 1.3]), D)",
       "tf.bitcast(a, tf.uint8)", "tf.bitcast(tf.constant([56, 184, 1, 255], tf.uint8), D)",
       "tf.stack([a, a])", "tf.expand_dims(a, 0)", "tf.slice(a, [1], [2])",
       "tf.strided_slice(a, [1], [3])", "tf.tile(a, [2])", "tf.pad(a, [[1, 0]])",
       "tf.reverse(a, [0])", "tf.squeeze(tf.reshape(a, [1, 4]))", "tf.split(a, 2)[1]",
       "tf.shape(a)", "tf.size(a)", "tf.rank(a)"]
OPS_DTYPES = ["float8_e4m3fn", "float8_e5m2", "int4"]


def _ops(tf, np):
    out = {}
    for name in OPS_DTYPES:
        D = getattr(tf.dtypes.experimental, name)  # noqa: N806, F841 - used by OPS
        for expr in OPS:
            with tf.Graph().as_default():
                a = tf.constant([1, -2, 0, 3], D) if D.is_integer else \
                    tf.cast(tf.constant([1.5, -2.0, 0.5, 3.0]), D)  # noqa: F841 - used by OPS
                try:
                    with tf.Session() as sess:
                        value = np.asarray(sess.run(eval(expr)))
                except Exception as e:  # noqa: BLE001 - the class name is the answer
                    out[f"{name} {expr}"] = type(e).__name__
                    continue
            out[f"{name} {expr}"] = [str(value.dtype),
                                     _plain(value.astype(np.float64).ravel().tolist())]
    return out


def _checkpoint(tf, np, ckpt_dir):
    import os
    with tf.Graph().as_default():
        variables = []
        for i, name in enumerate(CKPT_NAMES):
            d = getattr(tf.dtypes.experimental, name)
            start = [1, 0, 2, 1, 0, 1] if d.is_unsigned else [1, -1, 0, 1, -2, 1]
            if d.is_floating:
                start = [1.5, -0.5, 6.0, 0.0, 4.0, -2.0][:4 + i % 3]
            variables.append(tf.Variable(np.array(start).astype(d.as_numpy_dtype), name=name))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, os.path.join(ckpt_dir, "model"))
    with open(prefix + ".data-00000-of-00001", "rb") as f:
        return f.read().hex()


def read_checkpoint(tf, np, prefix):
    """The variables of a checkpoint restored into a fresh graph, as plain values."""
    with tf.Graph().as_default():
        variables = {}
        reader = tf.train.NewCheckpointReader(prefix)
        dtypes = reader.get_variable_to_dtype_map()
        for name in CKPT_NAMES:
            shape = reader.get_variable_to_shape_map()[name]
            variables[name] = tf.Variable(np.zeros(shape, dtypes[name].as_numpy_dtype),
                                          name=name)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            got = sess.run(variables)
        return {k: [dtypes[k].name, _plain(np.asarray(v).astype(np.float64).tolist())]
                for k, v in got.items()}


def probe(tf, ckpt_dir):
    """Every answer, as a dict of plain values."""
    import numpy as np
    result = {}
    for name in NAMES:
        d = getattr(tf.dtypes.experimental, name)
        protos, back = _protos(tf, np, d)
        result[name] = {"properties": _properties(tf, np, d, name), "protos": protos,
                        "proto_values": back, "graph": _graph_values(tf, np, d)}
    result["casts"] = _casts(tf, np)
    result["ops"] = _ops(tf, np)
    result["checkpoint_data"] = _checkpoint(tf, np, ckpt_dir)
    result["checkpoint_values"] = read_checkpoint(tf, np, ckpt_dir + "/model")
    return result
