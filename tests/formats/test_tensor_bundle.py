"""Tensor bundle writer: TF's bytes for the fixtures, every dtype, slices, atomic saves, merging."""
import glob
import json
import os

import ml_dtypes
import numpy as np
import pytest

from trainflow._src.formats import tensor_bundle as tb
from trainflow._src.formats.tensor_bundle_reader import BundleReader
from trainflow._src.formats.tensor_bundle_slices import (
    TensorSlice, decode_tensor_name_slice, is_slice_key)
from trainflow._src.framework import dtypes, errors

from fixture_paths import FIXTURES

HERE = os.path.dirname(os.path.abspath(__file__))
CKPTS = os.path.join(FIXTURES, "checkpoints")
PREFIXES = sorted(p[:-len(".index")] for p in glob.glob(os.path.join(CKPTS, "*", "*.index")))
DATA = os.path.join(HERE, "data")


def _read(path, mode="rb"):
    with open(path, mode) as f:
        return f.read()


def _rewrite(reader, prefix):
    """Writes every stored tensor of `reader` again, in the data file's order."""
    entries = sorted((e for e in reader.entries() if not e.slices), key=lambda e: (e.shard_id,
                                                                                  e.offset))
    with tb.BundleWriter(prefix) as w:
        for e in entries:
            raw = tb.as_key(e.key)
            value = reader.lookup(raw)
            if is_slice_key(raw):
                name, sl = decode_tensor_name_slice(raw)
                w.add_slice(name, reader.entry(name).shape, sl, value)
            else:
                w.add(e.key, value)


@pytest.mark.parametrize("prefix", PREFIXES, ids=lambda p: os.path.relpath(p, CKPTS))
def test_writing_the_fixture_tensors_gives_tfs_bytes(prefix, tmp_path):
    out = str(tmp_path / "ckpt")
    with BundleReader(prefix) as reader:
        _rewrite(reader, out)
    assert _read(tb.index_filename(out)) == _read(tb.index_filename(prefix))
    assert _read(tb.data_filename(out, 0, 1)) == _read(tb.data_filename(prefix, 0, 1))
    assert sorted(os.listdir(tmp_path)) == ["ckpt.data-00000-of-00001", "ckpt.index"]


def test_every_dtype_round_trips(tmp_path):
    values = {
        "f16": np.array([1, -0.5, 65504, 6e-8], np.float16),
        "bf16": np.array([1, -2.5, 3e38], ml_dtypes.bfloat16),
        "f32": np.array([[0.0, -0.0, np.inf], [-np.inf, np.nan, 1e-45]], np.float32),
        "f64": np.array([1e-300, -1e300]), "c64": np.array([1 + 2j, -3j], np.complex64),
        "c128": np.array([[0.5 - 1j]]), "i8": np.array([-128, 127], np.int8),
        "u8": np.array([0, 255], np.uint8), "i16": np.array([-32768], np.int16),
        "u16": np.array([65535], np.uint16), "i32": np.array([-2**31], np.int32),
        "u32": np.array([2**32 - 1], np.uint32), "i64": np.array([-2**63, 2**63 - 1]),
        "u64": np.array([2**64 - 1], np.uint64), "bool": np.array([True, False]),
        "scalar": np.float32(2.5), "empty": np.zeros((2, 0), np.float32),
        "str": np.array([b"", b"\x00\xff", "h\u00e9".encode()], object),
        "str_scalar": np.array(b"x" * 300, object), "str_empty": np.empty((0, 2), object),
        "unicode": np.array(["a", "\u00e9"]),
        "qint8": np.array([(-3,)], dtypes.qint8.as_numpy_dtype),
    }
    prefix = str(tmp_path / "all")
    assert tb.save(prefix, values, sync=False) == prefix
    with BundleReader(prefix) as r:
        assert r.keys() == sorted(values)
        for name, value in values.items():
            got = r.lookup(name)
            expected = np.asarray(value)
            if name == "unicode":
                expected = np.array([b"a", "\u00e9".encode()], object)
            assert got.shape == expected.shape and got.dtype == expected.dtype, name
            if expected.dtype.names:
                assert got.tobytes() == expected.tobytes()
            else:
                np.testing.assert_array_equal(got, expected, err_msg=name)
        assert r.entry("qint8").dtype == dtypes.qint8
        assert r.entry("empty").size == 0 and r.entry("empty").crc32c == 0xA282EAD8
        assert r.entry("str_empty").size == 4  # just the lengths checksum
        assert r.entry("str_scalar").dtype == dtypes.string


def test_large_tensors_are_copied_in_chunks(tmp_path):
    from trainflow._src.formats import crc32c
    big = np.random.default_rng(0).standard_normal(2_500_001).astype(np.float32)  # 10 MB
    prefix = str(tmp_path / "big")
    tb.save(prefix, {"big": big, "small": np.ones(3)}, sync=False)
    with BundleReader(prefix) as r:
        np.testing.assert_array_equal(r.lookup("big"), big)
        assert r.entry("big").crc32c == crc32c.mask(crc32c.crc32c(big.tobytes()))
        assert r.entry("small").offset == big.nbytes


def test_a_dropped_writer_cleans_up(tmp_path):
    w = tb.BundleWriter(str(tmp_path / "x"), sync=False)
    w.add("a", [1.0])
    del w
    import gc
    gc.collect()
    assert os.listdir(tmp_path) == []


def test_explicit_dtype_and_unsupported_values(tmp_path):
    with tb.BundleWriter(str(tmp_path / "x"), sync=False) as w:
        w.add("as_f16", [1.5, 2], dtype=dtypes.float16)
        w.add("as_str", ["a", b"b"], dtype="string")
        with pytest.raises(TypeError):
            w.add("resource", np.zeros(1), dtype=dtypes.resource)
        with pytest.raises(TypeError, match="DT_STRING"):
            w.add("bad", np.zeros(2), dtype=dtypes.string)
        with pytest.raises(errors.InvalidArgumentError, match="Adding duplicate key: as_f16"):
            w.add("as_f16", [1.0])
        with pytest.raises(ValueError, match="reserved"):
            w.add("", [1.0])
    with BundleReader(str(tmp_path / "x")) as r:
        assert r.lookup("as_f16").dtype == np.float16
        assert list(r.lookup("as_str")) == [b"a", b"b"]


def test_add_slice_builds_the_partitioned_entry(tmp_path):
    full = np.arange(30, dtype=np.float32).reshape(10, 3)
    prefix = str(tmp_path / "p")
    with tb.BundleWriter(prefix, sync=False) as w:
        for spec in ("0,4:-", "4,3:0,3", "7,3:-"):
            sl = TensorSlice.parse(spec)
            w.add_slice("part", full.shape, sl, full[sl.index(full.shape)])
        w.add_slice("whole", (2,), "-", np.ones(2))  # a full slice is a plain entry
        with pytest.raises(ValueError, match="has shape"):
            w.add_slice("part", full.shape, "0,1:-", np.zeros((2, 3), np.float32))
        with pytest.raises(TypeError, match="dtype"):
            w.add_slice("part", full.shape, "9,1:-", np.zeros((1, 3)))
        with pytest.raises(ValueError, match="full shape"):
            w.add_slice("part", (11, 3), "9,1:-", np.zeros((1, 3), np.float32))
        with pytest.raises(errors.InvalidArgumentError, match="duplicate"):
            w.add_slice("whole", (4,), "0,2", np.ones(2))
    with BundleReader(prefix) as r:
        assert r.keys() == ["part", "whole"]
        assert [str(s) for s in r.slices("part")] == ["0,4:-", "4,3:0,3", "7,3:-"]
        np.testing.assert_array_equal(r.lookup("part"), full)
        assert r.entry("whole").slices == ()


def test_data_alignment_pads_each_tensor(tmp_path):
    prefix = str(tmp_path / "a")
    with tb.BundleWriter(prefix, data_alignment=8, sync=False) as w:
        w.add("a", np.ones(3, np.uint8))
        w.add("b", np.ones(1, np.float32))
    with BundleReader(prefix) as r:
        assert (r.entry("a").offset, r.entry("b").offset) == (0, 8)
        np.testing.assert_array_equal(r.lookup("b"), [1])
    assert os.path.getsize(tb.data_filename(prefix, 0, 1)) == 16


def test_an_interrupted_save_leaves_the_existing_checkpoint_intact(tmp_path):
    prefix = str(tmp_path / "model.ckpt")
    tb.save(prefix, {"w": np.arange(4.0)})
    before = {n: _read(tmp_path / n) for n in os.listdir(tmp_path)}

    class Interrupted(Exception):
        pass
    with pytest.raises(Interrupted):
        with tb.BundleWriter(prefix) as w:
            w.add("w", np.zeros(4))
            w.add("v", np.zeros(1000))
            raise Interrupted()
    assert {n: _read(tmp_path / n) for n in os.listdir(tmp_path)} == before

    # A writer that dies without finishing leaves only temporary files beside the checkpoint.
    w = tb.BundleWriter(prefix)
    w.add("w", np.zeros(4))
    w._out.flush()
    assert any(".tempstate" in n for n in os.listdir(tmp_path))
    with BundleReader(prefix) as r:
        np.testing.assert_array_equal(r.lookup("w"), np.arange(4.0))
    w.abort()
    assert {n: _read(tmp_path / n) for n in os.listdir(tmp_path)} == before


def test_a_failing_write_removes_temporaries(tmp_path, monkeypatch):
    prefix = str(tmp_path / "model.ckpt")
    w = tb.BundleWriter(prefix, sync=False)

    def fail(*args):
        raise OSError("disk full")
    monkeypatch.setattr(w._out, "write", fail)
    with pytest.raises(OSError, match="disk full"):
        w.add("x", np.zeros(10))
    assert os.listdir(tmp_path) == []
    with pytest.raises(ValueError, match="already finished"):
        w.add("y", np.zeros(1))


def test_writer_makes_the_directory_and_refuses_reuse(tmp_path):
    prefix = str(tmp_path / "a" / "b" / "ckpt")
    w = tb.BundleWriter(prefix, sync=False)
    w.add("x", [1])
    assert w.finish() == prefix
    with pytest.raises(ValueError, match="already finished"):
        w.finish()
    assert tb.data_filename(prefix, 3, 10).endswith("ckpt.data-00003-of-00010")


@pytest.mark.skipif(not os.path.isdir(os.path.join(DATA, "v2_sharded")),
                    reason="test data missing")
def test_merging_per_device_bundles_gives_tfs_sharded_checkpoint(tmp_path):
    tf_prefix = os.path.join(DATA, "v2_sharded", "model.ckpt")
    with BundleReader(tf_prefix) as reader:
        assert reader.num_shards == 2
        shards = {}
        for e in reader.entries():
            if not e.slices:
                shards.setdefault(e.shard_id, []).append(e)
        parts = []
        for shard_id in sorted(shards):
            part = str(tmp_path / "model.ckpt_temp" / f"part-{shard_id:05d}-of-00002")
            with tb.BundleWriter(part, sync=False) as w:
                for e in sorted(shards[shard_id], key=lambda e: e.offset):
                    raw = tb.as_key(e.key)
                    if is_slice_key(raw):
                        name, sl = decode_tensor_name_slice(raw)
                        w.add_slice(name, reader.entry(name).shape, sl, reader.lookup(raw))
                    else:
                        w.add(raw, reader.lookup(raw))
            parts.append(part)
    merged = str(tmp_path / "model.ckpt")
    assert tb.merge_bundles(parts, merged, sync=False) == merged
    assert _read(tb.index_filename(merged)) == _read(tb.index_filename(tf_prefix))
    for shard in range(2):
        assert _read(tb.data_filename(merged, shard, 2)) == \
            _read(tb.data_filename(tf_prefix, shard, 2))
    assert sorted(os.listdir(tmp_path / "model.ckpt_temp")) == []


def test_merge_rejects_duplicate_tensors(tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    tb.save(a, {"x": [1.0]}, sync=False)
    tb.save(b, {"x": [2.0]}, sync=False)
    with pytest.raises(errors.InvalidArgumentError, match="Duplicate tensor keyed by x"):
        tb.merge_bundles([a, b], str(tmp_path / "m"))
    with pytest.raises(ValueError, match="at least one"):
        tb.merge_bundles([], str(tmp_path / "m"))


def test_fixture_json_facts_about_the_saved_entries():
    with open(os.path.join(CKPTS, "a_dtypes", "model.ckpt.index.json")) as f:
        decoded = json.load(f)
    with BundleReader(os.path.join(CKPTS, "a_dtypes", "model.ckpt")) as r:
        assert r.header.num_shards == 1 and r.header.version.producer == 1
        for e in decoded["entries"]:
            got = r.entry(bytes.fromhex(e["key_hex"]))
            assert (got.dtype.as_datatype_enum, list(got.shape), got.shard_id, got.offset,
                    got.size, got.crc32c) == (e["dtype_enum"], e["shape"], e["shard_id"],
                                              e["offset"], e["size"], e["crc32c_stored"])
