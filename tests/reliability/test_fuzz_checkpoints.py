"""Property-based fuzzing of checkpoint reading (NewCheckpointReader, V2 `.index`/`.data` and
V1 tables) with mutated files, read by fuzz_worker under a memory cap and a timeout.

Mutations reach every layer: one entry's fields set to edge values (dtype incl. reference
enums, shape, shard id, offset, size, checksum, slices), one entry's or key's bytes mutated
(non-UTF-8 keys, huge and negative length fields), the header, the raw index with and
without its block checksums recomputed, and the data file with and without the entries'
checksums recomputed. Allowed per tensor: a value of the dtype and shape the index gives
(the original value where the mutation cannot have touched it), or a tf.errors class naming
the file. See test_fuzz_readers.py for the knobs of longer campaigns."""
import os
import shutil

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fuzz_mutations as fm
from trainflow._src.formats import checkpoint_v1
from trainflow._src.formats import crc32c
from trainflow._src.formats import leveldb_table
from trainflow._src.formats import tensor_bundle
from trainflow._src.protos import saved_tensor_slice_pb2
from trainflow._src.protos import tensor_bundle_pb2

TALLY = fm.Tally()
ERROR_CLASSES = {"DataLossError", "NotFoundError", "InvalidArgumentError",
                 "UnimplementedError", "FailedPreconditionError", "OutOfRangeError",
                 "InternalError"}  # TF: a V1 file without its SavedTensorSlices meta


def _tensors():
    rng = np.random.default_rng(1)
    return {
        "f32_mat": rng.standard_normal((3, 4)).astype(np.float32),
        "i64_vec": np.arange(-2, 3, dtype=np.int64) * 2 ** 40,
        "str_vec": np.array([b"a", b"", b"\xff" * 10], dtype=object),
        "scalar": np.float64(2.5),
        "bools": np.array([[True, False], [False, True]]),
        "f16": np.array([1.5, -2, 0.1], dtype=np.float16),
    }


PART = np.arange(12, dtype=np.float32).reshape(4, 3)
PART_KEYS = ("part", b"part\xff")  # a partitioned tensor, also under a non-UTF-8 name


@pytest.fixture(scope="module")
def worker():
    w = fm.Worker()
    yield w
    w.close()
    print("\nfuzz counts (checkpoints):\n" + TALLY.report())


@pytest.fixture(scope="module")
def originals(tmp_path_factory):
    """The valid files' bytes and each tensor's digest as the worker reads them."""
    d = str(tmp_path_factory.mktemp("ckpt_base"))
    prefix = os.path.join(d, "model.ckpt")
    with tensor_bundle.BundleWriter(prefix) as w:
        for name, value in sorted(_tensors().items()):
            w.add(name, value)
        for key in PART_KEYS:
            w.add_slice(key, (4, 3), "0,2:-", PART[:2])
            w.add_slice(key, (4, 3), "2,2:-", PART[2:])
    v1 = os.path.join(d, "model.ckpt-v1")
    writer = checkpoint_v1.V1CheckpointWriter(v1)
    for name, value in sorted(_tensors().items()):
        writer.add(name, value)
    writer.add_slice("part", (4, 3), "0,2:-", PART[:2])
    writer.add_slice("part", (4, 3), "2,2:-", PART[2:])
    writer.finish()

    def read(path):
        with open(path, "rb") as f:
            return f.read()
    return {"index": read(prefix + ".index"),
            "data": read(tensor_bundle.data_filename(prefix, 0, 1)),
            "v1": read(v1)}


def _items(table_bytes, tmp):
    path = os.path.join(tmp, "items.table")
    with open(path, "wb") as f:
        f.write(table_bytes)
    return list(leveldb_table.TableReader(path).items())


def _table(items):
    """A valid table (checksums computed) of (key, value) pairs, sorted, keys deduplicated."""
    import io
    out = io.BytesIO()
    w = leveldb_table.TableWriter(out)
    for k, v in sorted(dict(items).items()):
        w.add(k, v)
    w.finish()
    return out.getvalue()


def _check(fmt, got, baseline, untouched):
    """`baseline`: {key: [dtype, shape, digest]} of the valid file; `untouched`: keys whose
    values the mutation cannot have changed (they must come back exactly)."""
    fm_kind = got["kind"]
    assert fm_kind in ("value", "tf_error"), got
    if fm_kind == "tf_error":
        assert got["class"] in ERROR_CLASSES and "model.ckpt" in got["message"], got
        TALLY.add(fmt, f"refused at open: {got['class']}")
        return
    errors_seen = set()
    for key, res in got["value"].items():
        if res[0] in ERROR_CLASSES:
            assert "model.ckpt" in res[1], (key, res)
            errors_seen.add(res[0])
            TALLY.add(fmt, f"  tensors: {res[0]}", tried=False)
            continue
        assert res[0] != "Inconsistent", (key, res)
        if key in untouched and key in baseline:
            assert res == baseline[key], (key, res, baseline[key])
        TALLY.add(fmt, "  tensors: the original value" if res == baseline.get(key) else
                  "  tensors: another value of the dtype and shape the index gives",
                  tried=False)
    TALLY.add(fmt, "opened, every tensor read" if not errors_seen else
              "opened, some tensors: " + "/".join(sorted(errors_seen)))


# ----------------------------------------------------------------------------- V2
ENTRY_FIELDS = ["dtype", "dim", "add_dim", "drop_dim", "unknown_rank", "shard_id", "offset",
                "size", "crc32c", "slice_start", "slice_length", "slice_add", "slice_rank"]


def _clamp(v, bits, signed=True):
    if signed:
        return max(min(v, 2 ** (bits - 1) - 1), -(2 ** (bits - 1)))
    return v & ((1 << bits) - 1)


def _set_entry_field(entry, field, value, seed):
    dims = entry.shape.dim
    if field == "dtype":
        entry.dtype = _clamp(value, 32) if value < 2 ** 31 else 101 + seed % 23
    elif field == "dim" and dims:
        dims[seed % len(dims)].size = _clamp(value, 64)
    elif field == "add_dim":
        entry.shape.dim.add().size = _clamp(value, 64)
    elif field == "drop_dim" and dims:
        del dims[seed % len(dims)]
    elif field == "unknown_rank":
        entry.shape.unknown_rank = True
    elif field == "shard_id":
        entry.shard_id = _clamp(value, 32)
    elif field in ("offset", "size"):
        setattr(entry, field, _clamp(value, 64))
    elif field == "crc32c":
        entry.crc32c = _clamp(value, 32, signed=False)
    elif field.startswith("slice"):
        if field == "slice_add" or not entry.slices:
            ext = entry.slices.add().extent
            for _ in range(max(len(dims), 1)):
                ext.add()
        sl = entry.slices[seed % len(entry.slices)]
        if field == "slice_rank":
            sl.extent.add().length = _clamp(value, 64)
        elif sl.extent:
            e = sl.extent[seed % len(sl.extent)]
            if field == "slice_start":
                e.start = _clamp(value, 64)
            else:
                e.length = _clamp(value, 64)


def _related(key, all_keys):
    """Keys whose values depend on `key`: itself, and a partitioned tensor with its slices."""
    text = key.decode("utf-8", "surrogateescape")
    out = {text}
    for name in PART_KEYS:
        nk = tensor_bundle.as_key(name)
        if key == nk or key.startswith(b"\x00"):
            out.add(tensor_bundle.key_str(nk))
    return out


_BASELINE = {}


def _baseline(worker, originals, tmp):
    """What the worker reads from the valid files (computed once)."""
    cache = _BASELINE
    if "v2" not in cache:
        cache["v2"] = worker.read("checkpoint", _write_v2(tmp, originals["index"],
                                                          originals["data"]))["value"]
        cache["v1"] = worker.read("checkpoint", _write_v1(tmp, originals["v1"]))["value"]
    return cache


def _write_v2(tmp, index, data):
    d = os.path.join(tmp, "v2")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    prefix = os.path.join(d, "model.ckpt")
    with open(prefix + ".index", "wb") as f:
        f.write(index)
    with open(tensor_bundle.data_filename(prefix, 0, 1), "wb") as f:
        f.write(data)
    return prefix


def _write_v1(tmp, table):
    path = os.path.join(tmp, "model.ckpt-v1")
    with open(path, "wb") as f:
        f.write(table)
    return path


def _data_with_fixed_crcs(items, data):
    """The index items with each numeric entry's checksum recomputed over `data`."""
    out = []
    for k, v in items:
        if k:
            e = tensor_bundle_pb2.BundleEntryProto.FromString(v)
            if e.dtype != 7 and not e.slices and e.offset + e.size <= len(data):
                e.crc32c = crc32c.mask(crc32c.crc32c(data[e.offset:e.offset + e.size]))
                v = e.SerializeToString()
        out.append((k, v))
    return out


V2_LAYERS = ["entry-field", "entry-bytes", "key", "header", "index-raw", "index-raw-fixed",
             "data-raw", "data-raw-crc-fixed"]


@fm.FUZZ_SETTINGS
@given(layer=st.sampled_from(V2_LAYERS), which=st.integers(0, 1000),
       field=st.sampled_from(ENTRY_FIELDS), value=st.sampled_from(fm.INTS),
       mutations=fm.MUTATIONS)
def test_v2_checkpoints(worker, originals, tmp_path_factory, layer, which, field, value,
                        mutations):
    tmp = str(tmp_path_factory.getbasetemp())
    base = _baseline(worker, originals, tmp)["v2"]
    items = _items(originals["index"], tmp)
    entries = items[1:]
    k, v = entries[which % len(entries)]
    index, data = originals["index"], originals["data"]
    untouched = set(base)
    if layer == "entry-field":
        entry = tensor_bundle_pb2.BundleEntryProto.FromString(v)
        _set_entry_field(entry, field, value, which)
        index = _table(items[:1] + [(kk, entry.SerializeToString() if kk == k else vv)
                                    for kk, vv in entries])
        untouched -= _related(k, base)
    elif layer == "entry-bytes":
        index = _table(items[:1] + [(kk, fm.mutate(vv, mutations) if kk == k else vv)
                                    for kk, vv in entries])
        untouched -= _related(k, base)
    elif layer == "key":
        new = fm.mutate(k, [m for m in mutations if m[0] != "length"])
        if not new:
            return
        index = _table(items[:1] + [(new if kk == k else kk, vv) for kk, vv in entries])
        untouched -= _related(k, base) | _related(new, base)
    elif layer == "header":
        index = _table([(b"", fm.mutate(items[0][1], mutations))] + entries)
        untouched = set()
    elif layer.startswith("index-raw"):
        index = fm.mutate(index, [m for m in mutations if m[0] != "length"])
        if layer == "index-raw-fixed":
            index = fm.fix_table_checksums(index, fm.table_blocks(originals["index"]))
        untouched = set()
    else:
        data = fm.mutate(data, [m for m in mutations if m[0] != "length"])
        if layer == "data-raw-crc-fixed":
            index = _table(_data_with_fixed_crcs(items, data))
            untouched = set()
    prefix = _write_v2(tmp, index, data)
    got = worker.read("checkpoint", prefix)
    if layer == "data-raw" and got["kind"] == "value":
        # Without checksums fixed, a changed byte can only be DataLossError.
        for key, res in got["value"].items():
            assert res == base[key] or res[0] == "DataLossError", (key, res)
    _check("checkpoint-v2", got, base, untouched)


# ----------------------------------------------------------------------------- V1
META_FIELDS = ["type", "dim", "add_dim", "slice_start", "slice_length", "add_slice",
               "drop_slice"]
SLICE_FIELDS = ["dtype", "dim", "add_dim", "drop_values", "add_values", "content",
                "slice_start", "slice_length"]


def _mutate_meta(sts, field, value, seed):
    metas = sts.meta.tensor
    meta = metas[seed % len(metas)]
    dims = meta.shape.dim
    if field == "type":
        meta.type = _clamp(value, 32) if value < 2 ** 31 else 101 + seed % 23
    elif field == "dim" and dims:
        dims[seed % len(dims)].size = _clamp(value, 64)
    elif field == "add_dim":
        dims.add().size = _clamp(value, 64)
    elif field == "add_slice" or (field.startswith("slice") and not meta.slice):
        ext = meta.slice.add().extent
        for _ in range(len(dims)):
            ext.add().length = _clamp(value, 64)
    elif field == "drop_slice" and meta.slice:
        del meta.slice[seed % len(meta.slice)]
    elif meta.slice and meta.slice[seed % len(meta.slice)].extent:
        ext = meta.slice[seed % len(meta.slice)].extent
        e = ext[seed % len(ext)]
        setattr(e, "start" if field == "slice_start" else "length", _clamp(value, 64))


def _mutate_slice(sts, field, value, seed):
    t = sts.data.data
    dims = t.tensor_shape.dim
    if field == "dtype":
        t.dtype = _clamp(value, 32) if value < 2 ** 31 else 101 + seed % 23
    elif field == "dim" and dims:
        dims[seed % len(dims)].size = _clamp(value, 64)
    elif field == "add_dim":
        dims.add().size = _clamp(value, 64)
    elif field in ("drop_values", "add_values", "content"):
        for name in ("float_val", "double_val", "int_val", "int64_val", "bool_val",
                     "string_val", "half_val"):
            vals = getattr(t, name)
            if len(vals):
                if field == "drop_values":
                    del vals[-1]
                elif field == "add_values":
                    vals.append(vals[0])
                else:
                    t.ClearField(name)
                    t.tensor_content = bytes(range(seed % 40))
    elif sts.data.slice.extent:
        e = sts.data.slice.extent[seed % len(sts.data.slice.extent)]
        setattr(e, "start" if field == "slice_start" else "length", _clamp(value, 64))


V1_LAYERS = ["meta-field", "meta-bytes", "slice-field", "slice-bytes", "key", "file-raw",
             "file-raw-fixed"]


@fm.FUZZ_SETTINGS
@given(layer=st.sampled_from(V1_LAYERS), which=st.integers(0, 1000),
       meta_field=st.sampled_from(META_FIELDS), slice_field=st.sampled_from(SLICE_FIELDS),
       value=st.sampled_from(fm.INTS), mutations=fm.MUTATIONS)
def test_v1_checkpoints(worker, originals, tmp_path_factory, layer, which, meta_field,
                        slice_field, value, mutations):
    tmp = str(tmp_path_factory.getbasetemp())
    base = _baseline(worker, originals, tmp)["v1"]
    items = _items(originals["v1"], tmp)
    k, v = items[1:][which % (len(items) - 1)]
    table = originals["v1"]
    untouched = set()
    STS = saved_tensor_slice_pb2.SavedTensorSlices
    if layer == "meta-field":
        sts = STS.FromString(items[0][1])
        _mutate_meta(sts, meta_field, value, which)
        table = _table([(b"", sts.SerializeToString())] + items[1:])
    elif layer == "meta-bytes":
        table = _table([(b"", fm.mutate(items[0][1], mutations))] + items[1:])
    elif layer in ("slice-field", "slice-bytes"):
        if layer == "slice-field":
            sts = STS.FromString(v)
            _mutate_slice(sts, slice_field, value, which)
            nv = sts.SerializeToString()
        else:
            nv = fm.mutate(v, mutations)
        table = _table([(kk, nv if kk == k else vv) for kk, vv in items])
        name = STS.FromString(v).data.name
        untouched = set(base) - {name}
    elif layer == "key":
        new = fm.mutate(k, [m for m in mutations if m[0] != "length"])
        if not new:
            return
        table = _table([(new if kk == k else kk, vv) for kk, vv in items])
    else:
        table = fm.mutate(table, [m for m in mutations if m[0] != "length"])
        if layer == "file-raw-fixed":
            table = fm.fix_table_checksums(table, fm.table_blocks(originals["v1"]))
    got = worker.read("checkpoint", _write_v1(tmp, table))
    _check("checkpoint-v1", got, base, untouched)
