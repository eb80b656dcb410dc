"""The vectorized map scan gives each record's Feature bytes exactly as protobuf does, and
steps aside (None) for every form it does not handle; parse_example on batches large
enough for the column path equals the record-by-record path."""
import numpy as np
import pytest

from trainflow._src.ops.io import example_columns, example_fast, example_parser
from trainflow._src.protos.example_pb2 import Example
from trainflow._src.protos.feature_pb2 import Feature


def _example(**feats):
    ex = Example()
    for k, f in feats.items():
        ex.features.feature[k].CopyFrom(f)
    return ex.SerializeToString()


def _f(values):
    return Feature(float_list={"value": values})


def _i(values):
    return Feature(int64_list={"value": values})


def _b(values):
    return Feature(bytes_list={"value": values})


def _mixed(n):
    return [_example(x=_f([i * 0.5, -1.0]), id=_i([i * 1000003]), s=_b([b"r" * (i % 300)]),
                     extra=_b([b"e" * (i * 37 % 20000)])) for i in range(n)]


# (name, records, keys, scannable)
CASES = [
    ("mixed", _mixed(40), ["x", "id", "s"], True),
    ("long values", _mixed(300), ["s", "extra"], True),
    ("one record", _mixed(1), ["x"], True),
    ("missing key", _mixed(5) + [_example(x=_f([1.0, 2.0]))], ["id"], False),
    ("unknown key", _mixed(5), ["nope"], False),
    ("other field", [_example(x=_f([1.0])) + b"\x10\x01"] * 3, ["x"], False),
    ("empty example", [b""] * 3, ["x"], False),
    ("huge value", [_example(x=_b([b"z" * (1 << 21)]))], ["x"], False),
]


@pytest.mark.parametrize("name,records,keys,scannable", CASES, ids=[c[0] for c in CASES])
def test_feature_parts_match_protobuf(name, records, keys, scannable):
    arr = np.empty(len(records), dtype=object)
    arr[:] = records
    got = example_columns.feature_parts(arr, keys)
    if not scannable:
        assert got is None
        return
    maps = example_fast.raw_maps(records)
    for key in keys:
        assert got[key] == [m[key] for m in maps]


def _parse(records, specs):
    arr = np.empty(len(records), dtype=object)
    arr[:] = records
    keys = list(specs)
    return example_parser.parse_example(
        arr, np.empty(0, object), [], [], keys, [specs[k][0] for k in keys],
        [specs[k][1] for k in keys], [False] * len(keys),
        [np.asarray(specs[k][2], dtype=specs[k][0]) for k in keys])[3]


@pytest.mark.parametrize("records,specs", [
    (_mixed(64), {"x": (np.float32, (2,), []), "id": (np.int64, (), []),
                  "s": (object, (), [])}),
    (_mixed(20) + [_example(x=_f([3.0, 4.0]))] * 3, {"x": (np.float32, (2,), [])}),
    ([_example(x=_f([1.0]))] * 10 + [_example()] * 10, {"x": (np.float32, (1,), [7.0])}),
])
def test_batched_parse_matches_exact_path(monkeypatch, records, specs):
    got = _parse(records, specs)
    monkeypatch.setattr(example_columns, "feature_parts", lambda records, keys: None)
    monkeypatch.setattr(example_fast, "raw_maps", lambda records: None)
    want = _parse(records, specs)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tolist() == w.tolist()


@pytest.mark.parametrize("record,specs", [
    (_mixed(3)[2], {"x": (np.float32, (2,), []), "id": (np.int64, (), []),
                    "s": (object, (), [])}),
    (_example(x=_f([1.0, 2.0, 3.0, 4.0])), {"x": (np.float32, (2, 2), [])}),
    (_example(s=_b([b"a", b"b"])), {"s": (object, (2,), [])}),
    (_example(), {"x": (np.float32, (1,), [7.0])}),
    (_example(x=_i([1])), {"x": (np.int64, (), [5])}),
])
def test_single_record_matches_exact_path(monkeypatch, record, specs):
    got = _parse([record], specs)
    monkeypatch.setattr(example_parser, "_single_dense", lambda *args: None)
    want = _parse([record], specs)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tolist() == w.tolist()


@pytest.mark.parametrize("ints", [[0, 1, 127, 128, -1, -2 ** 63, 2 ** 63 - 1, 2 ** 62, 300]])
def test_int64_scalar_column_decodes_every_varint_width(monkeypatch, ints):
    records = [_example(i=_i([v]), x=_f([float(v), 1.0, 2.0])) for v in ints] * 3
    specs = {"i": (np.int64, (), []), "x": (np.float32, (3,), [])}
    got = _parse(records, specs)
    assert got[0].tolist() == ints * 3
    monkeypatch.setattr(example_columns, "fast_column", lambda *args: None)
    want = _parse(records, specs)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.tolist() == w.tolist()


def test_fast_column_steps_aside_for_other_forms():
    records = [_example(i=_i([1, 2]), f=_f([])), _example(i=_i([3, 4]), f=_f([]))] * 10
    arr = np.empty(len(records), dtype=object)
    arr[:] = records
    columns = example_columns.feature_columns(arr, ["i", "f"])
    assert example_columns.fast_column(columns, "i", np.int64, ()) is None
    assert example_columns.fast_column(columns, "f", np.float32, (1,)) is None
    assert example_columns.fast_column(columns, "i", np.int64, (2,)) is None


@pytest.mark.parametrize("value", [0, 5, -1, 2 ** 40])
def test_int64_feature_last_in_the_batch(value):
    # the varint gather reads past the last record's end: the padding must cover it
    records = [_example(i=_i([value]))] * 20
    assert _parse(records, {"i": (np.int64, (), [])})[0].tolist() == [value] * 20
