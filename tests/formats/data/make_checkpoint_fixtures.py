"""Writes the small TensorFlow checkpoints under tests/formats/data/ (run with TF's python).

Usage: /path/to/tf/python tests/formats/data/make_checkpoint_fixtures.py
Produces:
  v1/model.ckpt                    V1 (SavedTensorSlices) checkpoint, one file
  v1_sharded/model.ckpt-0000K-of-00002   V1 checkpoint sharded over two devices
  v2_sharded/model.ckpt.{index,data-0000K-of-00002}   V2 checkpoint with two data shards
  expected.json                    the saved values and TF's reader messages
"""
import json
import os
import shutil

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1
tf1.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
CONFIG = tf1.ConfigProto(device_count={"CPU": 2}, intra_op_parallelism_threads=1,
                         inter_op_parallelism_threads=1)


def _values():
    return {
        "f32": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
        "f64": np.array([1.5, -2.25], np.float64),
        "i32": np.array([1, -2, 2**31 - 1], np.int32),
        "i64": np.array([-(2**63), 2**63 - 1], np.int64),
        "i8": np.array([-128, 127], np.int8),
        "u8": np.array([0, 255], np.uint8),
        "i16": np.array([-32768, 32767], np.int16),
        "f16": np.array([0.5, -65504], np.float16),
        "c64": np.array([1 + 2j, -3.5j], np.complex64),
        "c128": np.array([1e300 + 1j], np.complex128),
        "flag": np.array([True, False, True]),
        "scalar": np.float32(3.25),
        "words": np.array([b"", b"hello", b"\xff\x00z"], object),
    }


def _build(values, two_devices):
    """Builds one variable per value, and `part` [5, 2] split in two partitions."""
    made = {}
    for i, (name, value) in enumerate(values.items()):
        device = "/cpu:%d" % (i % 2) if two_devices else "/cpu:0"
        with tf1.device(device):
            made[name] = tf1.Variable(value, name=name)
    part_value = _part_value()

    def init(shape, dtype=None, partition_info=None):
        start = partition_info.var_offset[0] if partition_info else 0
        return tf.constant(part_value[start:start + shape[0]])

    with tf1.device("/cpu:1" if two_devices else "/cpu:0"):
        tf1.get_variable("part", [5, 2], tf.float32, initializer=init,
                         partitioner=tf1.fixed_size_partitioner(2))


def _part_value():
    return (np.arange(10).reshape(5, 2) - 4.5).astype(np.float32)


def _to_json(v):
    v = np.asarray(v)
    if v.dtype == object:
        return {"dtype": "string", "shape": list(v.shape), "hex": [x.hex() for x in v.ravel()]}
    if np.iscomplexobj(v):
        return {"dtype": str(v.dtype), "shape": list(v.shape),
                "value": [[float(x.real), float(x.imag)] for x in v.ravel()]}
    return {"dtype": str(v.dtype), "shape": list(v.shape), "value": v.ravel().tolist()}


def _save(subdir, version, sharded):
    out = os.path.join(HERE, subdir)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    with tf1.Graph().as_default(), tf1.Session(config=CONFIG) as sess:
        _build(_values(), two_devices=sharded)
        sess.run(tf1.global_variables_initializer())
        saver = tf1.train.Saver(write_version=version, sharded=sharded, save_relative_paths=True)
        path = saver.save(sess, os.path.join(out, "model.ckpt"), write_meta_graph=False,
                          write_state=False)
    return os.path.basename(path)


def _messages(prefix):
    got = {}
    reader = tf1.train.NewCheckpointReader(prefix)
    got["debug_string"] = reader.debug_string().decode("latin-1")
    got["shape_map"] = {k: list(v) for k, v in sorted(reader.get_variable_to_shape_map().items())}
    got["dtype_map"] = {k: v.name for k, v in sorted(reader.get_variable_to_dtype_map().items())}
    try:
        reader.get_tensor("missing")
    except Exception as e:  # noqa: BLE001 - recording TF's error
        got["missing_tensor"] = [type(e).__name__, str(e)]
    return got


def main():
    record = {"tensorflow": tf.__version__}
    for subdir, version, sharded in [("v1", tf1.train.SaverDef.V1, False),
                                     ("v1_sharded", tf1.train.SaverDef.V1, True),
                                     ("v2_sharded", tf1.train.SaverDef.V2, True)]:
        name = _save(subdir, version, sharded)
        prefix = os.path.join(HERE, subdir, name)
        record[subdir] = {"path": name, "reader": _messages(prefix)}
    values = dict(_values(), part=_part_value())
    record["values"] = {k: _to_json(v) for k, v in values.items()}
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
