"""V1 (SavedTensorSlices) checkpoints: files written by TF read back, and written identically."""
import json
import os

import numpy as np
import pytest

from trainflow._src.formats import checkpoint_v1 as v1
from trainflow._src.formats import leveldb_table
from trainflow._src.formats.tensor_bundle_slices import TensorSlice
from trainflow._src.framework import dtypes, errors

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
with open(os.path.join(DATA, "expected.json")) as _f:
    EXPECTED = json.load(_f)


def _expected_value(t):
    if t["dtype"] == "string":
        out = np.empty(len(t["hex"]), dtype=object)
        out[:] = [bytes.fromhex(h) for h in t["hex"]]
        return out.reshape(t["shape"])
    if t["dtype"].startswith("complex"):
        pairs = np.array(t["value"], np.float64)
        return (pairs[:, 0] + 1j * pairs[:, 1]).astype(t["dtype"]).reshape(t["shape"])
    return np.array(t["value"], dtype=t["dtype"]).reshape(t["shape"])


@pytest.mark.parametrize("sub", ["v1", "v1_sharded"])
def test_reads_tf_written_v1_checkpoints(sub):
    pattern = os.path.join(DATA, sub, EXPECTED[sub]["path"])
    r = v1.V1CheckpointReader(pattern)
    assert len(r.files) == (2 if sub == "v1_sharded" else 1)
    tf_reader = EXPECTED[sub]["reader"]
    assert {k: list(r.shape(k)) for k in r.keys()} == tf_reader["shape_map"]
    assert {k: r.dtype(k).name for k in r.keys()} == tf_reader["dtype_map"]
    for name, t in EXPECTED["values"].items():
        got, want = r.get_tensor(name), _expected_value(t)
        assert got.dtype == want.dtype and got.shape == want.shape, name
        assert got.tolist() == want.tolist(), name
    # TF lists tensors in hash order; the lines themselves agree.
    assert sorted(r.debug_string().decode().splitlines()) == \
        sorted(tf_reader["debug_string"].splitlines())
    assert [str(s) for s in r.slices("part")] == ["0,3:0,2", "3,2:0,2"]
    np.testing.assert_array_equal(r.get_slice("part", "2,2:1,1"), [[0.5], [2.5]])
    assert r.has_tensor("f32") and not r.has_tensor("missing")


def test_missing_tensor_message_matches_tf():
    r = v1.V1CheckpointReader(os.path.join(DATA, "v1", "model.ckpt"))
    name, message = EXPECTED["v1"]["reader"]["missing_tensor"]
    with pytest.raises(errors.NotFoundError) as e:
        r.get_tensor("missing")
    assert type(e.value).__name__ == name and str(e.value) == message


def test_writer_reproduces_tfs_file(tmp_path):
    src = os.path.join(DATA, "v1", "model.ckpt")
    r = v1.V1CheckpointReader(src)
    out = str(tmp_path / "model.ckpt")
    w = v1.V1CheckpointWriter(out)
    from trainflow._src.protos import saved_tensor_slice_pb2
    meta = saved_tensor_slice_pb2.SavedTensorSlices.FromString(
        leveldb_table.TableReader(src).get(b"")).meta
    for m in meta.tensor:  # in TF's order of first appearance
        for sp in m.slice:
            sl = TensorSlice.from_proto(sp)
            if sl.is_full():
                w.add(m.name, r.get_tensor(m.name))
            else:
                w.add_slice(m.name, r.shape(m.name), sl, r.get_slice(m.name, sl))
    assert w.finish() == out
    with open(out, "rb") as a, open(src, "rb") as b:
        assert a.read() == b.read()
    assert os.listdir(tmp_path) == ["model.ckpt"]


def test_writer_dtypes_round_trip(tmp_path):
    import ml_dtypes
    values = {"bf16": np.array([1.5, -2], ml_dtypes.bfloat16), "u16": np.array([65535], "u2"),
              "u32": np.array([2**32 - 1], "u4"), "u64": np.array([2**64 - 1], "u8"),
              "q": np.array([(5,)], dtypes.qint32.as_numpy_dtype), "s": np.array(b"x", object)}
    path = str(tmp_path / "c")
    w = v1.V1CheckpointWriter(path)
    for k, v in values.items():
        w.add(k, v)
    w.finish()
    r = v1.V1CheckpointReader(path)
    for k, v in values.items():
        got = r.get_tensor(k)
        assert got.dtype == np.asarray(v).dtype and got.tobytes() == np.asarray(v).tobytes() \
            if got.dtype != object else got.tolist() == np.asarray(v).tolist(), k


def test_writer_rejects_bad_slices(tmp_path):
    w = v1.V1CheckpointWriter(str(tmp_path / "c"))
    w.add_slice("p", (4,), "0,2", np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="already added"):
        w.add_slice("p", (4,), "0,2", np.zeros(2, np.float32))
    with pytest.raises(ValueError, match="needs shape"):
        w.add_slice("p", (4,), "2,2", np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="earlier slices"):
        w.add_slice("p", (4,), "2,2", np.zeros(2, np.int32))
    with pytest.raises(TypeError, match="cannot save a variant"):
        w.add("r", np.zeros(1), dtype=dtypes.variant)
    w.finish()
    r = v1.V1CheckpointReader(str(tmp_path / "c"))
    with pytest.raises(errors.InvalidArgumentError, match="sufficient slices"):
        r.get_tensor("p")
    np.testing.assert_array_equal(r.get_slice("p", "0,1"), [0])


def test_reader_errors(tmp_path):
    with pytest.raises(errors.NotFoundError, match="Unsuccessful TensorSliceReader constructor: "
                                                   "Failed to find any matching files for"):
        v1.V1CheckpointReader(str(tmp_path / "nothing-*"))
    with pytest.raises(errors.DataLossError, match="Unable to open table file .*Is a directory"):
        v1.V1CheckpointReader(str(tmp_path))
    (tmp_path / "junk").write_bytes(b"not a table" * 10)
    with pytest.raises(errors.DataLossError, match="Unable to open table file .*junk"):
        v1.V1CheckpointReader(str(tmp_path / "junk"))
    leveldb_table.write_table(tmp_path / "nometa", [(b"a", b"b")])
    with pytest.raises(errors.InternalError, match="Failed to find the saved tensor slices"):
        v1.V1CheckpointReader(str(tmp_path / "nometa"))
