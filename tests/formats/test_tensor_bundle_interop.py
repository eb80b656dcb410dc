"""TensorFlow reads the checkpoints we write (and we rewrite TF's multi-block index exactly).

Runs TF in a subprocess through the python named by TRAINFLOW_TF_PYTHON; skipped without it.
"""
import ml_dtypes
import numpy as np

from trainflow._src.formats import tensor_bundle as tb
from trainflow._src.formats.checkpoint_v1 import V1CheckpointWriter
from trainflow._src.formats.tensor_bundle_reader import BundleReader
from trainflow._src.formats.tensor_bundle_slices import TensorSlice

from tf_interop import needs_tf, run_json

pytestmark = needs_tf

VALUES = {
    "f16": np.array([1, -0.5, 65504], np.float16),
    "bf16": np.array([1, -2.5, 3e38], ml_dtypes.bfloat16),
    "f32": np.array([[0.0, -0.0, np.inf], [-np.inf, np.nan, 1e-45]], np.float32),
    "f64": np.array([1e-300, -1e300]), "c64": np.array([1 + 2j, -3j], np.complex64),
    "c128": np.array([[0.5 - 1j]]), "i8": np.array([-128, 127], np.int8),
    "u8": np.array([0, 255], np.uint8), "i16": np.array([-32768], np.int16),
    "u16": np.array([65535], np.uint16), "i32": np.array([-2**31], np.int32),
    "u32": np.array([2**32 - 1], np.uint32), "i64": np.array([-2**63, 2**63 - 1]),
    "u64": np.array([2**64 - 1], np.uint64), "flag": np.array([True, False]),
    "scalar": np.array(2.5, np.float32), "empty": np.zeros((2, 0), np.float32),
    "scope/w": np.arange(6, dtype=np.float32).reshape(2, 3),
    "words": np.array([b"", b"\x00\xff", "h\u00e9".encode(), b"x" * 200], object),
    "word": np.array(b"one", object),
}
PART = np.arange(30, dtype=np.float32).reshape(10, 3) / 7

TF_SCRIPT = r"""
import json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import numpy as np
import tensorflow as tf
tf1 = tf.compat.v1
cfg = json.load(sys.stdin)

def dump(v):
    v = np.asarray(v, dtype=object if isinstance(v, bytes) else None)
    if v.dtype == object:
        return {"strings": [bytes(x).hex() for x in v.reshape(-1)], "shape": list(v.shape)}
    return {"hex": v.tobytes().hex(), "dtype": str(v.dtype), "shape": list(v.shape)}

out = {}
if cfg["job"] == "read":
    r = tf1.train.NewCheckpointReader(cfg["prefix"])
    out["shapes"] = {k: list(v) for k, v in r.get_variable_to_shape_map().items()}
    out["dtypes"] = {k: v.name for k, v in r.get_variable_to_dtype_map().items()}
    out["values"] = {k: dump(r.get_tensor(k)) for k in out["shapes"]}
elif cfg["job"] == "restore":
    tf1.disable_v2_behavior()
    with tf1.Graph().as_default(), tf1.Session() as sess:
        made = {}
        for name, (dtype, shape) in cfg["vars"].items():
            init = tf.zeros(shape, dtype) if dtype != "string" else tf.fill(shape, "")
            made[name] = tf1.Variable(init, name=name, use_resource=False)
        part = tf1.get_variable("part", [10, 3], tf.float32,
                                initializer=tf1.zeros_initializer(),
                                partitioner=tf1.fixed_size_partitioner(3), use_resource=False)
        sess.run(tf1.global_variables_initializer())
        tf1.train.Saver().restore(sess, cfg["prefix"])
        out["values"] = {k: dump(sess.run(v)) for k, v in made.items()}
        out["values"]["part"] = dump(sess.run(tf.concat(list(part), 0)))
elif cfg["job"] == "write_many":
    names = ["%05d/%s" % (i, "n" * 180) for i in range(cfg["count"])]
    values = [tf.constant(np.full([2], i, np.float32)) for i in range(cfg["count"])]
    tf.raw_ops.SaveV2(prefix=cfg["prefix"], tensor_names=names,
                      shape_and_slices=[""] * len(names), tensors=values)
print(json.dumps(out))
"""


def _tf(cfg):
    return run_json(TF_SCRIPT, spec=cfg)


def _check(got, name, want):
    want = np.asarray(want)
    if want.dtype == object:
        assert got["strings"] == [bytes(x).hex() for x in want.reshape(-1)], name
    else:
        assert got["hex"] == want.tobytes().hex(), name
    assert got["shape"] == list(want.shape), name


def _write_v2(prefix):
    with tb.BundleWriter(prefix) as w:
        for name in sorted(VALUES):
            if name == "part":
                continue
            w.add(name, VALUES[name])
        # Two slices that do not line up with TF's 3 partitions (rows 4/3/3).
        for spec in ("0,5:-", "5,5:-"):
            sl = TensorSlice.parse(spec)
            w.add_slice("part", PART.shape, sl, PART[sl.index(PART.shape)])


def _tf_dtype(value):
    from trainflow._src.framework import dtypes
    return dtypes.as_dtype(np.asarray(value).dtype).name


def test_tf_reads_what_we_write(tmp_path):
    prefix = str(tmp_path / "ours.ckpt")
    _write_v2(prefix)
    got = _tf({"job": "read", "prefix": prefix})
    assert got["shapes"]["part"] == [10, 3]
    for name, value in VALUES.items():
        _check(got["values"][name], name, value)
        assert got["dtypes"][name] == _tf_dtype(value), name
    _check(got["values"]["part"], "part", PART)


def test_tf_saver_restores_what_we_write(tmp_path):
    prefix = str(tmp_path / "ours.ckpt")
    _write_v2(prefix)
    cfg = {"job": "restore", "prefix": prefix,
           "vars": {k: (_tf_dtype(v), list(np.shape(v))) for k, v in VALUES.items()}}
    got = _tf(cfg)
    for name, value in VALUES.items():
        _check(got["values"][name], name, value)
    _check(got["values"]["part"], "part", PART)


def test_tf_reads_and_restores_our_v1_files(tmp_path):
    path = str(tmp_path / "v1.ckpt")
    w = V1CheckpointWriter(path)
    simple = {k: v for k, v in VALUES.items() if k not in ("bf16", "u16", "u32", "u64")}
    for name, value in simple.items():
        w.add(name, value)
    for spec in ("0,5:-", "5,5:-"):
        sl = TensorSlice.parse(spec)
        w.add_slice("part", PART.shape, sl, PART[sl.index(PART.shape)])
    w.finish()
    cfg = {"job": "restore", "prefix": path,
           "vars": {k: (_tf_dtype(v), list(np.shape(v))) for k, v in simple.items()}}
    got = _tf(cfg)
    for name, value in simple.items():
        _check(got["values"][name], name, value)
    _check(got["values"]["part"], "part", PART)


def test_multi_block_index_written_by_tf_is_reproduced(tmp_path):
    tf_prefix = str(tmp_path / "tf.ckpt")
    _tf({"job": "write_many", "prefix": tf_prefix, "count": 2000})
    ours = str(tmp_path / "ours.ckpt")
    with BundleReader(tf_prefix) as r:
        assert r._table.num_blocks >= 2
        keys = r.keys()
        assert len(keys) == 2000
        with tb.BundleWriter(ours) as w:
            for e in sorted(r.entries(), key=lambda e: e.offset):
                w.add(e.key, r.lookup(e.key))
    for name in (tb.index_filename, lambda p: tb.data_filename(p, 0, 1)):
        with open(name(ours), "rb") as a, open(name(tf_prefix), "rb") as b:
            assert a.read() == b.read()
