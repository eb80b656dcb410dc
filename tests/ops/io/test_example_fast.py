"""parse_example's fast column path gives exactly what the per-record path gives, and
steps aside for every form it does not handle."""
import numpy as np
import pytest

from trainflow._src.ops.io import example_fast, example_parser
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


def _unpacked_float_example(key, values):
    """An Example whose FloatList is written element by element on the wire (legal,
    though not what TF writes)."""
    import struct

    def field(tag, payload):
        return bytes([tag, len(payload)]) + payload
    floats = b"".join(b"\x0d" + struct.pack("<f", v) for v in values)
    feature = field(0x12, floats)
    entry = field(0x0A, key.encode()) + field(0x12, feature)
    return field(0x0A, field(0x0A, entry))


def _parse(records, specs):
    arr = np.empty(len(records), dtype=object)
    arr[:] = records
    keys = list(specs)
    return example_parser.parse_example(
        arr, np.empty(0, object), [], [], keys, [specs[k][0] for k in keys],
        [specs[k][1] for k in keys], [False] * len(keys),
        [np.asarray(specs[k][2], dtype=specs[k][0]) for k in keys])[3]


CASES = [
    ("floats", [_example(x=_f([1.5, -2.0])), _example(x=_f([0.25, 3.0]))],
     {"x": (np.float32, (2,), [])}, True),
    ("many floats", [_example(x=_f(list(np.linspace(0, 1, 40)))) for _ in range(3)],
     {"x": (np.float32, (40,), [])}, True),
    ("ints", [_example(i=_i([1, -5, 2 ** 62])), _example(i=_i([0, 127, 128]))],
     {"i": (np.int64, (3,), [])}, True),
    ("strings", [_example(s=_b([b"a"])), _example(s=_b([b"bc" * 20]))],
     {"s": (object, (), [])}, True),
    ("long string", [_example(s=_b([b"x" * 300]))], {"s": (object, (), [])}, False),
    ("unpacked floats", [_unpacked_float_example("x", [1.0, 2.0])],
     {"x": (np.float32, (2,), [])}, False),
    ("missing with default", [_example(x=_f([1.0])), _example()],
     {"x": (np.float32, (1,), [7.0])}, False),
    ("several features", [_example(x=_f([1.0]), i=_i([3]), s=_b([b"q"]))] * 4,
     {"i": (np.int64, (), []), "s": (object, (), []), "x": (np.float32, (1,), [])}, True),
]


@pytest.mark.parametrize("name,records,specs,fast", CASES, ids=[c[0] for c in CASES])
def test_fast_path_matches_exact_path(monkeypatch, name, records, specs, fast):
    got = _parse(records, specs)
    maps = example_fast.raw_maps(records)
    used_fast = all(example_fast.dense_column(maps, k, specs[k][0], specs[k][1]) is not None
                    for k in specs)
    assert used_fast == fast
    monkeypatch.setattr(example_fast, "raw_maps", lambda records: None)
    want = _parse(records, specs)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tolist() == w.tolist()


def test_wrong_counts_fall_back_to_the_exact_error():
    records = [_example(i=_i([1, 2])), _example(i=_i([1, 2, 3]))]
    with pytest.raises(Exception, match="Number of int64 values != expected"):
        _parse(records, {"i": (np.int64, (2,), [])})
    records = [_example(x=_f([1.0, 2.0])), _example(x=_f([1.0]))]
    with pytest.raises(Exception, match="Index: 1.  Number of float values"):
        _parse(records, {"x": (np.float32, (2,), [])})
