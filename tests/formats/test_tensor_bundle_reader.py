"""Tensor bundle reader: the fixtures' values, slices, shards, and corrupt or missing data."""
import json
import os
import shutil
import struct

import ml_dtypes
import numpy as np
import pytest

from trainflow._src.formats import crc32c, leveldb_table
from trainflow._src.formats import tensor_bundle as tb
from trainflow._src.formats.tensor_bundle_reader import BundleReader
from trainflow._src.framework import dtypes, errors

from fixture_paths import FIXTURES

HERE = os.path.dirname(os.path.abspath(__file__))
CKPTS = os.path.join(FIXTURES, "checkpoints")
DATA = os.path.join(HERE, "data")


def from_json(t):
    """An ndarray from the fixtures' JSON tensor form."""
    dtype = dtypes.as_dtype(t.get("dtype_enum", t["dtype"]))
    shape = tuple(t["shape"])
    if dtype == dtypes.string:
        flat = np.array(t["value"], dtype=object).reshape(-1) if shape else [t["value"]]
        out = np.empty(len(flat), dtype=object)
        out[:] = [bytes.fromhex(x) for x in flat]
        return out.reshape(shape)
    if dtype.is_complex:
        pairs = np.array(t["value"], dtype=np.float64).reshape(shape + (2,))
        return (pairs[..., 0] + 1j * pairs[..., 1]).astype(dtype.as_numpy_dtype)
    if dtype.is_integer or dtype == dtypes.bool:
        return np.array(t["value"], dtype=dtype.as_numpy_dtype).reshape(shape)
    return np.array(t["value"], dtype=np.float64).astype(dtype.as_numpy_dtype).reshape(shape)


def assert_same(got, want, name=""):
    assert got.dtype == want.dtype and got.shape == want.shape, name
    if got.dtype == object:
        assert got.tolist() == want.tolist(), name
    else:
        assert got.tobytes() == want.tobytes(), name  # bit-exact, NaN and -0.0 included


def _load(name):
    with open(os.path.join(CKPTS, name)) as f:
        return json.load(f)


def test_a_dtypes_values_are_bit_exact():
    with BundleReader(os.path.join(CKPTS, "a_dtypes", "model.ckpt")) as r:
        variables = _load("a_dtypes/model.ckpt.json")["variables"]
        assert r.keys() == [v["name"] for v in variables]
        for v in variables:
            assert_same(r.lookup(v["name"]), from_json(v), v["name"])
        assert r.lookup("bf16_vec").dtype == ml_dtypes.bfloat16
        assert r.entry("str_vec").dtype == dtypes.string


def test_adam_slots_and_max_to_keep_values():
    with BundleReader(os.path.join(CKPTS, "d_adam_slots", "model.ckpt")) as r:
        for v in _load("d_adam_slots/model.ckpt.json")["variables"]:
            assert_same(r.lookup(v["name"]), from_json(v), v["name"])
        assert {"w/Adam", "w/Adam_1", "beta1_power", "beta2_power"} <= set(r.keys())
    for step in (2, 3):
        with BundleReader(os.path.join(CKPTS, "b_max_to_keep", f"model.ckpt-{step}")) as r:
            np.testing.assert_array_equal(r.lookup("w"), [step, -0.5 * step])
            assert r.lookup("global_step") == step


def test_partitioned_tensors_whole_and_in_slices():
    fixture = _load("c_partitioned/model.ckpt.json")
    with BundleReader(os.path.join(CKPTS, "c_partitioned", "model.ckpt")) as r:
        assert r.keys() == ["part", "part_col", "plain"]
        assert len(r.raw_keys()) == 9
        for name, t in fixture["full_values"].items():
            assert_same(r.lookup(name), from_json(t), name)
        part = from_json(fixture["full_values"]["part"])
        assert [str(s) for s in r.slices("part")] == ["0,4:0,3", "4,3:0,3", "7,3:0,3"]
        np.testing.assert_array_equal(r.lookup_slice("part", "3,5:1,2"), part[3:8, 1:3])
        np.testing.assert_array_equal(r.lookup_slice("plain", "1,1"), [2.0])
        full_entry = r.entry("part")
        assert (full_entry.offset, full_entry.size, full_entry.crc32c) == (0, 0, 0)
        out = np.empty((10, 3), np.float32)
        assert r.lookup("part", out=out) is out
        np.testing.assert_array_equal(out, part)


@pytest.mark.parametrize("name", ["e_object_based", "e2_object_based_eager"])
def test_object_based_checkpoints(name):
    from trainflow._src.protos import trackable_object_graph_pb2
    fixture = _load(f"{name}/ckpt-1.json")
    with BundleReader(os.path.join(CKPTS, name, "ckpt-1")) as r:
        for key, t in fixture["checkpoint_keys"].items():
            assert_same(r.lookup(key), from_json(t), key)
        raw = r.lookup("_CHECKPOINTABLE_OBJECT_GRAPH")
        assert raw.shape == () and raw.item().hex() == fixture["object_graph_serialized_hex"]
        graph = trackable_object_graph_pb2.TrackableObjectGraph.FromString(raw.item())
        assert len(graph.nodes) == len(fixture["object_graph_nodes"])
        keys = {a.checkpoint_key for n in graph.nodes for a in n.attributes}
        assert keys == set(fixture["checkpoint_keys"]) - {"_CHECKPOINTABLE_OBJECT_GRAPH"}


@pytest.mark.skipif(not os.path.isdir(os.path.join(DATA, "v2_sharded")), reason="no test data")
def test_two_shard_checkpoint_written_by_tf():
    with open(os.path.join(DATA, "expected.json")) as f:
        expected = json.load(f)
    with BundleReader(os.path.join(DATA, "v2_sharded", "model.ckpt")) as r:
        assert r.num_shards == 2
        assert {e.shard_id for e in r.entries()} == {0, 1}
        assert sorted(r.keys()) == sorted(expected["values"])
        for name, t in expected["values"].items():
            want = from_json({"dtype": t["dtype"], "shape": t["shape"],
                              "value": t.get("value", t.get("hex"))})
            assert_same(r.lookup(name), want, name)
        assert r.debug_string().decode("latin-1") == \
            expected["v2_sharded"]["reader"]["debug_string"]


def _copy_fixture(tmp_path, name, prefix):
    for f in os.listdir(os.path.join(CKPTS, name)):
        shutil.copy(os.path.join(CKPTS, name, f), tmp_path / f)
        os.chmod(tmp_path / f, 0o644)
    return str(tmp_path / prefix)


def _flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)
        f.seek(offset)
        f.write(bytes([b[0] ^ 0x10]))


def test_a_flipped_data_byte_is_data_loss_naming_tensor_and_file(tmp_path):
    prefix = _copy_fixture(tmp_path, "a_dtypes", "model.ckpt")
    with BundleReader(prefix) as r:
        f32_mat, str_vec = r.entry("f32_mat"), r.entry("str_vec")
    data = tb.data_filename(prefix, 0, 1)
    _flip(data, f32_mat.offset + 5)
    _flip(data, str_vec.offset + str_vec.size - 1)  # a string byte
    with BundleReader(prefix) as r:
        with pytest.raises(errors.DataLossError, match=r"tensor f32_mat in .*model\.ckpt\.data-"
                                                       r"00000-of-00001 \(offset 215, 24 bytes"):
            r.lookup("f32_mat")
        with pytest.raises(errors.DataLossError, match="tensor str_vec"):
            r.lookup("str_vec")
        np.testing.assert_array_equal(r.lookup("f32_vec"), [1.5, -2.25, np.float32(0.1)])
    _flip(data, str_vec.offset)  # a length varint: the lengths checksum fails
    with BundleReader(prefix) as r:
        with pytest.raises(errors.DataLossError, match="length checksum does not match for "
                                                       "string tensor str_vec"):
            r.lookup("str_vec")


def test_truncated_and_missing_data_files(tmp_path):
    prefix = _copy_fixture(tmp_path, "a_dtypes", "model.ckpt")
    data = tb.data_filename(prefix, 0, 1)
    os.truncate(data, 300)
    with BundleReader(prefix) as r:
        r.lookup("f32_scalar")
        with pytest.raises(errors.DataLossError, match=r"Truncated data file .* tensor "
                                                       r"f64_mat needs bytes \[283, 315\)"):
            r.lookup("f64_mat")
        with pytest.raises(errors.DataLossError, match="str_vec"):
            r.lookup("str_vec")
    os.remove(data)
    with BundleReader(prefix) as r:
        with pytest.raises(errors.NotFoundError, match="data-00000-of-00001; No such file"):
            r.lookup("f32_vec")
        assert r.entry("f32_vec").size == 12  # metadata still readable


def test_missing_keys_and_index():
    with BundleReader(os.path.join(CKPTS, "d_adam_slots", "model.ckpt")) as r:
        with pytest.raises(errors.NotFoundError, match="^Key nope not found in checkpoint$"):
            r.lookup("nope")
        with pytest.raises(errors.NotFoundError):
            r.entry("")
        assert "w" in r and "nope" not in r and "" not in r and r.contains(b"b/Adam")
    with pytest.raises(errors.NotFoundError, match=r"nowhere\.index; No such file"):
        BundleReader(os.path.join(CKPTS, "nowhere"))


def _write_index(path, header, entries):
    items = [(b"", header.SerializeToString())]
    items += sorted((k, e.SerializeToString()) for k, e in entries.items())
    leveldb_table.write_table(path, items)


def test_big_endian_bundles_are_byte_swapped(tmp_path):
    from trainflow._src.protos import tensor_bundle_pb2 as pb
    prefix = str(tmp_path / "be")
    values = np.array([1.5, -2.0, 3.25], ">f4")
    strings = [b"ab", b""]
    lengths = b"\x02\x00"
    lcrc = crc32c.extend(0, struct.pack(">II", 2, 0))
    checksum = struct.pack(">I", crc32c.mask(lcrc))
    string_data = lengths + checksum + b"ab"
    with open(tb.data_filename(prefix, 0, 1), "wb") as f:
        f.write(values.tobytes() + string_data)
    header = pb.BundleHeaderProto(num_shards=1, endianness=pb.BundleHeaderProto.BIG)
    header.version.producer = 1
    f32 = pb.BundleEntryProto(dtype=1, offset=0, size=12,
                              crc32c=crc32c.mask(crc32c.crc32c(values.tobytes())))
    f32.shape.dim.add().size = 3
    s = pb.BundleEntryProto(dtype=7, offset=12, size=len(string_data), crc32c=crc32c.mask(
        crc32c.extend(crc32c.extend(lcrc, checksum), b"ab")))
    s.shape.dim.add().size = 2
    _write_index(tb.index_filename(prefix), header, {b"f": f32, b"s": s})
    with BundleReader(prefix) as r:
        got = r.lookup("f")
        assert got.dtype == np.float32 and got.dtype.isnative
        np.testing.assert_array_equal(got, [1.5, -2.0, 3.25])
        assert r.lookup("s").tolist() == strings


def test_bad_index_contents(tmp_path):
    from trainflow._src.protos import tensor_bundle_pb2 as pb
    prefix = str(tmp_path / "x")
    leveldb_table.write_table(tb.index_filename(prefix), [(b"a", b"")])
    with pytest.raises(errors.DataLossError, match="header entry"):
        BundleReader(prefix)
    leveldb_table.write_table(tb.index_filename(prefix), [(b"", b"\xff")])
    with pytest.raises(errors.DataLossError, match="parse the header"):
        BundleReader(prefix)
    header = pb.BundleHeaderProto(num_shards=1)
    header.version.producer = 5
    header.version.min_consumer = 3
    _write_index(tb.index_filename(prefix), header, {})
    with pytest.raises(errors.InvalidArgumentError, match="min consumer version 3"):
        BundleReader(prefix)
    header.version.min_consumer = 0
    bad_shape = pb.BundleEntryProto(dtype=1)
    bad_shape.shape.dim.add().size = -1
    wrong_size = pb.BundleEntryProto(dtype=1, size=7)
    wrong_size.shape.dim.add().size = 2
    far_shard = pb.BundleEntryProto(dtype=1, size=4, shard_id=4)
    far_shard.shape.dim.add().size = 1
    _write_index(tb.index_filename(prefix), header, {
        b"shape": bad_shape, b"size": wrong_size, b"shard": far_shard,
        b"dtype": pb.BundleEntryProto(dtype=99), b"junk": pb.BundleEntryProto()})
    with open(tb.index_filename(prefix), "rb") as f:
        raw = f.read()
    with BundleReader(prefix) as r:
        with pytest.raises(errors.DataLossError, match="Invalid tensor shape: shape"):
            r.lookup("shape")
        with pytest.raises(errors.DataLossError, match="Invalid size in bundle entry: key size; "
                                                       "stored size 7; expected size 8"):
            r.lookup("size")
        with pytest.raises(errors.DataLossError, match="names data shard 4 of 1"):
            r.lookup("shard")
        with pytest.raises(errors.DataLossError, match="unknown dtype enum 99"):
            r.entry("dtype")
    assert raw  # the index itself is a valid table
