"""Tensor slices: string/proto forms, TF's OrderedCode slice keys, assembling slices."""
import random

import numpy as np
import pytest

from trainflow._src.formats import tensor_bundle_slices as ts
from trainflow._src.formats.tensor_bundle_slices import TensorSlice
from trainflow._src.framework import errors


def test_parse_and_format():
    sl = TensorSlice.parse("0,4:-")
    assert sl.extents == ((0, 4), (0, -1)) and str(sl) == "0,4:-" and sl.rank == 2
    assert TensorSlice.parse(b"-:-").is_full()
    assert TensorSlice.parse("") == TensorSlice(()) and str(TensorSlice(())) == ""
    assert TensorSlice.full(3) == TensorSlice.parse("-:-:-")
    assert repr(TensorSlice.parse("1,2")) == "TensorSlice('1,2')"
    assert hash(TensorSlice.parse("1,2")) == hash(TensorSlice([(1, 2)]))
    for bad in ("1", "a,b", "1,2,3", "-1,2", "0,4:"):
        with pytest.raises(ValueError, match="bad tensor slice spec"):
            TensorSlice.parse(bad)
    with pytest.raises(ValueError, match="non-negative"):
        TensorSlice([(0, -2)])


def test_shapes_covers_and_intersections():
    full = (10, 3)
    sl = TensorSlice.parse("4,3:-")
    assert sl.shape(full) == (3, 3)
    assert sl.index(full) == (slice(4, 7), slice(0, 3))
    assert not sl.covers(full)
    assert TensorSlice.parse("0,10:0,3").covers(full) and TensorSlice.full(2).covers(full)
    assert sl.intersect(TensorSlice.parse("6,4:1,1"), full) == TensorSlice.parse("6,1:1,1")
    assert sl.intersect(TensorSlice.parse("0,4:-"), full) is None
    with pytest.raises(ValueError, match="runs past"):
        TensorSlice.parse("8,3:-").shape(full)
    with pytest.raises(ValueError, match="rank"):
        sl.shape((10,))


def test_proto_round_trip_matches_tf_bytes():
    # The fixture's `part` entry lists slices as {length: 4} {length: 3} (start 0 omitted).
    proto = TensorSlice.parse("0,4:0,3").to_proto()
    assert proto.SerializeToString().hex() == "0a0210040a021003"
    assert TensorSlice.parse("4,3:0,3").to_proto().SerializeToString().hex() == \
        "0a04080410030a021003"
    full = TensorSlice.parse("-:2,1").to_proto()
    assert not full.extent[0].HasField("length")
    assert TensorSlice.from_proto(full) == TensorSlice.parse("-:2,1")


def test_parse_shape_and_slice():
    assert ts.parse_shape_and_slice("10 3 0,4:-") == ((10, 3), TensorSlice.parse("0,4:-"))
    assert ts.parse_shape_and_slice("") == (None, None)
    with pytest.raises(ValueError, match="at least two"):
        ts.parse_shape_and_slice("10")
    with pytest.raises(ValueError, match="non-numerical"):
        ts.parse_shape_and_slice("x 0,1")
    with pytest.raises(ValueError, match="runs past"):
        ts.parse_shape_and_slice("3 2,2")


@pytest.mark.parametrize("name,spec,key_hex", [
    ("part", "0,4:0,3", "00706172740001010280848083"),
    ("part", "7,3:0,3", "00706172740001010287838083"),
    ("part_col", "0,2:5,2", "00706172745f636f6c0001010280828582"),
    ("f32", "-:-", "006633320001010280" "7f807f"),
    ("scalar", "", "007363616c6172000100"),
])
def test_slice_keys_are_tfs_ordered_code(name, spec, key_hex):
    key = ts.encode_tensor_name_slice(name, TensorSlice.parse(spec))
    assert key.hex() == key_hex
    assert ts.decode_tensor_name_slice(key) == (name, TensorSlice.parse(spec))
    assert ts.is_slice_key(key) and not ts.is_slice_key(name.encode())


def test_names_with_escaped_bytes_round_trip():
    key = ts.encode_tensor_name_slice(b"a\x00b\xffc", TensorSlice.parse("1,2"))
    assert key.startswith(b"\x00a\x00\xffb\xff\x00c\x00\x01")
    assert ts.decode_tensor_name_slice(key)[0].encode("utf-8", "surrogateescape") == \
        b"a\x00b\xffc"


def test_signed_numbers_match_tf_examples_and_keep_order():
    def enc(v):
        out = bytearray()
        ts._write_signed_num_increasing(out, v)
        return bytes(out)
    assert enc(0x424242).hex() == "f0424242"  # examples from TF's ordered_code.cc
    assert enc(-0x800).hex() == "3800"
    rng = random.Random(1)
    values = [0, 1, -1, 63, 64, -64, -65, 2**55, -2**55, 2**63 - 1, -2**63]
    values += [rng.randint(-2**63, 2**63 - 1) >> rng.randint(0, 63) for _ in range(2000)]
    encoded = [(v, enc(v)) for v in set(values)]
    for v, e in encoded:
        assert ts._read_signed_num_increasing(e + b"\x00", 0) == (v, len(e))
    assert sorted(encoded) == sorted(encoded, key=lambda t: t[1])


def test_bad_slice_keys():
    for bad in (b"", b"\x01\x05", b"\x00abc", b"\x00a\x00\x01\x01\x02\x80",
                b"\x00a\x00\x02\x01\x01\x80\x7f", b"\x00a\x00\x01\x01\x01\x80\x7f\x00"):
        with pytest.raises(ValueError, match="not a tensor slice key"):
            ts.decode_tensor_name_slice(bad)


def test_assemble_from_pieces_and_missing_coverage():
    full = np.arange(30, dtype=np.float32).reshape(10, 3)
    stored = [TensorSlice.parse(s) for s in ("0,4:-", "4,3:-", "7,3:-")]
    calls = []

    def loader(sl):
        def load():
            calls.append(str(sl))
            return full[sl.index(full.shape)]
        return load
    pieces = [(sl, loader(sl)) for sl in stored]
    np.testing.assert_array_equal(ts.assemble(full.shape, np.float32, pieces), full)
    calls.clear()
    part = ts.assemble(full.shape, np.float32, pieces, wanted=TensorSlice.parse("5,2:1,2"))
    np.testing.assert_array_equal(part, full[5:7, 1:3])
    assert calls == ["4,3:-"]  # slices that do not overlap are never read
    with pytest.raises(errors.InvalidArgumentError, match="sufficient slices for partitioned "
                                                          "tensor w"):
        ts.assemble(full.shape, np.float32, pieces[:2], name="w")
    empty = ts.assemble((0, 3), np.float32, [])
    assert empty.shape == (0, 3)
