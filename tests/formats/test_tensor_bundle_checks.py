"""An untrusted `.index`: each bad entry field is a DataLossError naming the file, the key and
the field, raised before anything larger than the data file is allocated."""
import io
import os
import tracemalloc

import numpy as np
import pytest

from trainflow._src.formats import leveldb_table
from trainflow._src.formats import tensor_bundle as tb
from trainflow._src.formats.tensor_bundle_reader import BundleReader
from trainflow._src.framework import errors
from trainflow._src.protos import tensor_bundle_pb2
from trainflow._src.train.checkpoint_reader import NewCheckpointReader


def _bundle(tmp_path):
    prefix = str(tmp_path / "model.ckpt")
    with tb.BundleWriter(prefix) as w:
        w.add("f", np.arange(6, dtype=np.float32).reshape(2, 3))
        w.add("s", np.array([b"ab", b"c"], dtype=object))
        w.add_slice(b"p\xff", (4,), "0,2", np.ones(2, np.float32))
        w.add_slice(b"p\xff", (4,), "2,2", np.zeros(2, np.float32))
    return prefix


def _rewrite(prefix, key, edit):
    table = leveldb_table.TableReader(tb.index_filename(prefix))
    items = []
    for k, v in table.items():
        if k == key:
            e = tensor_bundle_pb2.BundleEntryProto.FromString(v)
            edit(e)
            v = e.SerializeToString()
        items.append((k, v))
    out = io.BytesIO()
    w = leveldb_table.TableWriter(out)
    for k, v in items:
        w.add(k, v)
    w.finish()
    with open(tb.index_filename(prefix), "wb") as f:
        f.write(out.getvalue())


def _set(**fields):
    def edit(e):
        for name, value in fields.items():
            setattr(e, name, value)
    return edit


def _dims(*sizes):
    def edit(e):
        del e.shape.dim[:]
        for d in sizes:
            e.shape.dim.add().size = d
    return edit


def _slice_extent(start, length, extra_dim=False):
    def edit(e):
        ext = e.slices[0].extent
        ext[0].start, ext[0].length = start, length
        if extra_dim:
            ext.add().length = 1
    return edit


# (id, key, edit, key text and field the message must name)
CASES = [
    ("1GiB-size", b"f", _set(size=1 << 30), "field size"),
    ("64GiB-shape", b"f", _dims(1 << 18, 1 << 16), "field size"),
    ("overflowing-shape", b"f", _dims(1 << 40, 1 << 40), "field shape"),
    ("negative-dim", b"f", _dims(-1, 3), "field shape"),
    ("negative-offset", b"f", _set(offset=-8), "field offset"),
    ("offset-past-end", b"f", _set(offset=1 << 40), "fields offset/size"),
    ("negative-size", b"s", _set(size=-5), "field size"),
    ("string-size-too-small", b"s", _set(size=3), "field size"),
    ("huge-string-size", b"s", _set(size=1 << 33), "fields offset/size"),
    ("shard", b"f", _set(shard_id=7), "field shard_id"),
    ("negative-shard", b"f", _set(shard_id=-1), "field shard_id"),
    ("ref-dtype", b"f", _set(dtype=101), "field dtype"),
    ("unknown-dtype", b"f", _set(dtype=99), "field dtype"),
    ("slice-past-shape", b"p\xff", _slice_extent(3, 5), "field slices[0]"),
    ("negative-slice", b"p\xff", _slice_extent(-1, 2), "field slices[0]"),
    ("slice-rank", b"p\xff", _slice_extent(0, 2, extra_dim=True), "field slices[0]"),
]


@pytest.mark.parametrize("key,edit,field", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_entry_fields_are_data_loss_naming_file_key_field(tmp_path, key, edit, field):
    prefix = _bundle(tmp_path)
    _rewrite(prefix, key, edit)
    name = key.decode("utf-8", "surrogateescape")
    tracemalloc.start()
    try:
        with pytest.raises(errors.DataLossError) as info:
            reader = NewCheckpointReader(prefix)
            reader.get_tensor(name)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = info.value.message
    assert "model.ckpt" in message and field in message, message
    assert key.decode("utf-8", "backslashreplace") in message, message
    assert peak < 4 << 20, peak


def test_non_utf8_partitioned_key_reads_back(tmp_path):
    prefix = _bundle(tmp_path)
    reader = NewCheckpointReader(prefix)
    name = b"p\xff".decode("utf-8", "surrogateescape")
    assert reader.get_variable_to_shape_map()[name] == [4]
    np.testing.assert_array_equal(reader.get_tensor(b"p\xff"), [1, 1, 0, 0])
    with BundleReader(prefix) as r:
        np.testing.assert_array_equal(r.lookup_slice(b"p\xff", "1,2"), [1, 0])


def test_missing_slice_entry_and_short_coverage(tmp_path):
    prefix = _bundle(tmp_path)

    def drop_second(e):
        del e.slices[1]
    _rewrite(prefix, b"p\xff", drop_second)
    with pytest.raises(errors.InvalidArgumentError, match=r"sufficient slices.*model\.ckpt"):
        NewCheckpointReader(prefix).get_tensor(b"p\xff")


def test_non_utf8_bytes_paths(tmp_path):
    d = os.fsencode(str(tmp_path)) + b"/d\xff"
    os.makedirs(d)
    tb.save(os.fsdecode(d + b"/m"), {"v": np.arange(3.0)})
    np.testing.assert_array_equal(NewCheckpointReader(d + b"/m").get_tensor("v"),
                                  np.arange(3.0))
    with pytest.raises(errors.NotFoundError):
        NewCheckpointReader(d + b"/missing\xfe")
