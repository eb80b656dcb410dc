"""LevelDB table reader/writer: TF's `.index` files read and rewritten byte for byte."""
import glob
import io
import json
import os
import shutil

import pytest

from trainflow._src.formats import leveldb_table as lt
from trainflow._src.framework import errors

from fixture_paths import FIXTURES

HERE = os.path.dirname(os.path.abspath(__file__))
CKPTS = os.path.join(FIXTURES, "checkpoints")
INDEX_FILES = sorted(glob.glob(os.path.join(CKPTS, "*", "*.index")))
DECODED = [p for p in INDEX_FILES if os.path.exists(p[:-len(".index")] + ".index.json")]
V1_FILES = sorted(glob.glob(os.path.join(HERE, "data", "v1*", "model.ckpt*")))


def _write(items, **options):
    buf = io.BytesIO()
    w = lt.TableWriter(buf, **options)
    for k, v in items:
        w.add(k, v)
    size = w.finish()
    assert size == len(buf.getvalue())
    return buf.getvalue()


def _table_at(tmp_path, data, name="t.table"):
    path = tmp_path / name
    path.write_bytes(data)
    return lt.TableReader(path)


@pytest.mark.parametrize("path", DECODED, ids=lambda p: os.path.relpath(p, CKPTS))
def test_fixture_index_entries_match_the_independent_decoding(path):
    items = list(lt.TableReader(path).items())
    assert items[0][0] == b""
    with open(path[:-len(".index")] + ".index.json") as f:
        expected = json.load(f)
    assert items[0][1].hex() == expected["header"]["value_hex"]
    assert [(k.hex(), v.hex()) for k, v in items[1:]] == [
        (e["key_hex"], e["entry_proto_hex"]) for e in expected["entries"]]


@pytest.mark.parametrize("path", INDEX_FILES + V1_FILES, ids=os.path.basename)
def test_rewriting_a_tf_table_gives_identical_bytes(path):
    reader = lt.TableReader(path)
    with open(path, "rb") as f:
        assert _write(reader.items()) == f.read()


def test_get_seek_and_contains_across_many_blocks(tmp_path):
    items = [(b"key/%05d/suffix" % i, b"v" * (i % 37)) for i in range(3000)]
    data = _write(items, block_size=512)
    reader = _table_at(tmp_path, data)
    assert reader.num_blocks > 50
    assert list(reader.items()) == items
    for k, v in items[::97]:
        assert reader.get(k) == v and k in reader
    assert reader.get(b"key/00001/suffiw") is None
    assert reader.get(b"zzz", b"default") == b"default"
    assert b"" not in reader
    assert [k for k, _ in reader.seek(b"key/02998")] == [items[2998][0], items[2999][0]]
    assert next(reader.seek(b"key/00100/")) == items[100]
    assert list(reader.seek(b"\xff")) == []


def test_restart_interval_one_and_default_read_back(tmp_path):
    items = [(b"abc%03d" % i, b"%d" % i) for i in range(100)]
    for interval in (1, 2, 16):
        reader = _table_at(tmp_path, _write(items, restart_interval=interval), f"{interval}.t")
        assert list(reader.items()) == items


def test_entry_of_twice_the_block_size_gets_its_own_block(tmp_path):
    items = [(b"a", b"x"), (b"b", b"y" * 2048), (b"c", b"z")]
    reader = _table_at(tmp_path, _write(items, block_size=1024))
    assert reader.num_blocks == 3
    assert list(reader.items()) == items


def test_empty_table_has_no_blocks(tmp_path):
    data = _write([])
    assert len(data) == 2 * (8 + 5) + lt.FOOTER_SIZE  # empty metaindex and index blocks
    reader = _table_at(tmp_path, data)
    assert reader.num_blocks == 0 and list(reader.items()) == [] and reader.get(b"") is None


def test_separator_and_successor_keys_shorten_index_entries(tmp_path):
    items = [(b"the quick brown fox", b"1"), (b"the who", b"2")]
    reader = _table_at(tmp_path, _write(items, block_size=1))
    assert reader._index_keys == [b"the r", b"u"]
    assert list(reader.items()) == items
    assert lt._short_successor(b"\xff\xff") == b"\xff\xff"
    assert lt._shortest_separator(b"abc", b"abcd") == b"abc"


def test_keys_must_increase_and_finish_only_once():
    w = lt.TableWriter(io.BytesIO())
    w.add(b"b", b"")
    with pytest.raises(ValueError, match="strictly increasing"):
        w.add(b"a", b"")
    with pytest.raises(ValueError, match="strictly increasing"):
        w.add(b"b", b"")
    w.finish()
    with pytest.raises(ValueError, match="finished"):
        w.add(b"c", b"")
    with pytest.raises(ValueError, match="unknown table compression"):
        lt.TableWriter(io.BytesIO(), compression=7)


def test_snappy_blocks_round_trip(tmp_path):
    pytest.importorskip("cramjam")
    items = [(b"k%04d" % i, b"a" * 100) for i in range(200)]
    data = _write(items, compression=lt.SNAPPY_COMPRESSION)
    assert len(data) < len(_write(items)) // 4
    reader = _table_at(tmp_path, data)
    off, size = reader._handles[0]
    assert data[off + size] == lt.SNAPPY_COMPRESSION
    assert list(reader.items()) == items


def test_snappy_block_without_a_snappy_package_is_a_clear_error(tmp_path, monkeypatch):
    pytest.importorskip("cramjam")
    data = _write([(b"k", b"a" * 1000)], compression=lt.SNAPPY_COMPRESSION)
    monkeypatch.setattr(lt, "_snappy_module", lambda: None)
    reader = _table_at(tmp_path, data)
    with pytest.raises(errors.UnimplementedError, match="snappy-compressed.*cramjam"):
        list(reader.items())


def test_corrupt_data_block_is_data_loss_naming_file_and_offset(tmp_path):
    data = bytearray(_write([(b"key%d" % i, b"value") for i in range(10)]))
    data[7] ^= 0x01
    reader = _table_at(tmp_path, bytes(data), "bad.index")
    with pytest.raises(errors.DataLossError, match=r"bad\.index, data block at offset 0: block "
                                                   "checksum mismatch"):
        reader.get(b"key1")
    assert lt.TableReader(tmp_path / "bad.index", verify_checksums=False).get(b"key9") == b"value"


def test_corrupt_index_block_fails_on_open(tmp_path):
    data = bytearray(_write([(b"a", b"b")]))
    index_offset = len(data) - lt.FOOTER_SIZE - 5 - 5  # the index block holds one 5-byte entry
    data[index_offset] ^= 0x40
    with pytest.raises(errors.DataLossError, match="index block at offset"):
        _table_at(tmp_path, bytes(data))


def test_not_a_table(tmp_path):
    with pytest.raises(errors.DataLossError, match="too short"):
        _table_at(tmp_path, b"short", "a")
    with pytest.raises(errors.DataLossError, match="bad magic number"):
        _table_at(tmp_path, b"\0" * 100, "b")
    good = _write([(b"a", b"b")])
    with pytest.raises(errors.DataLossError, match="truncated block read"):
        _table_at(tmp_path, good[:3] + good[-lt.FOOTER_SIZE:], "c")
    with pytest.raises(errors.NotFoundError, match="No such file"):
        lt.TableReader(tmp_path / "missing")
    with pytest.raises(errors.FailedPreconditionError, match="Is a directory"):
        lt.TableReader(tmp_path)


def test_corrupt_entry_lengths_are_data_loss(tmp_path):
    # One entry whose value length points past the restart array.
    block = bytes([0, 1, 50]) + b"k" + b"v" + (0).to_bytes(4, "little") + (1).to_bytes(4, "little")
    buf = io.BytesIO()
    w = lt.TableWriter(buf)
    handle = w._write_raw_block(block, lt.NO_COMPRESSION)
    w._pending_handle = handle
    w._last_key = b"k"
    w.finish()
    reader = _table_at(tmp_path, buf.getvalue())
    with pytest.raises(errors.DataLossError, match="bad entry in block"):
        reader.get(b"k")


def test_write_table_helper(tmp_path):
    size = lt.write_table(tmp_path / "x", [(b"a", b"1"), (b"b", b"2")])
    assert size == os.path.getsize(tmp_path / "x")
    assert dict(lt.TableReader(tmp_path / "x").items()) == {b"a": b"1", b"b": b"2"}
    shutil.copy(tmp_path / "x", tmp_path / "y")
    assert lt.TableReader(tmp_path / "y").get(b"b") == b"2"
