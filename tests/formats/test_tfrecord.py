"""TFRecord framing, compression and corruption handling against TF-written files."""
import json
import os
import zlib

import pytest

from trainflow import io as tf_io
from trainflow import python_io
from trainflow._src.formats.crc32c import masked_crc32c
from trainflow._src.formats.tfrecord import (TFRecordCompressionType, TFRecordOptions,
                                        TFRecordWriter, tf_record_iterator)
from trainflow._src.framework import errors

from fixture_paths import FIXTURES

RECORDS = os.path.join(FIXTURES, "records")


def _json(name):
    with open(os.path.join(RECORDS, name)) as f:
        return json.load(f)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


@pytest.fixture(scope="module")
def tf_records():
    return list(tf_record_iterator(os.path.join(RECORDS, "examples.tfrecord")))


def test_reads_tf_file_and_framing(tf_records):
    info = _json("records.json")
    assert len(tf_records) == 20
    framing = info["framing_of_examples.tfrecord"]
    for record, frame in zip(tf_records, framing):
        assert len(record) == frame["length"]
        assert masked_crc32c(record) == frame["data_masked_crc32c"]
    for record, hex_bytes in zip(tf_records, info["serialized_hex_first3"]):
        assert record == bytes.fromhex(hex_bytes)


@pytest.mark.parametrize("options, suffix", [
    (None, ""), ("", ""), (TFRecordCompressionType.NONE, ""),
    ("GZIP", ".gz"), (TFRecordCompressionType.GZIP, ".gz"), (TFRecordOptions("GZIP"), ".gz"),
    ("ZLIB", ".zlib"), (TFRecordOptions(TFRecordCompressionType.ZLIB), ".zlib"),
])
def test_writes_tf_bytes_exactly(tmp_path, tf_records, options, suffix):
    path = tmp_path / ("out.tfrecord" + suffix)
    with TFRecordWriter(str(path), options) as writer:
        for record in tf_records:
            writer.write(record)
    # Same zlib parameters as TF, so even the compressed bytes agree on this zlib.
    assert _read(path) == _read(os.path.join(RECORDS, "examples.tfrecord" + suffix))
    assert list(tf_record_iterator(path, options)) == tf_records


def test_compressed_fixtures_decompress_to_plain_file():
    plain = _read(os.path.join(RECORDS, "examples.tfrecord"))
    assert zlib.decompress(_read(os.path.join(RECORDS, "examples.tfrecord.zlib"))) == plain
    assert zlib.decompress(_read(os.path.join(RECORDS, "examples.tfrecord.gz")), 31) == plain


@pytest.mark.parametrize("case", _json("corrupt/errors.json")["cases"] if os.path.isdir(RECORDS)
                         else [], ids=lambda c: c["file"])
def test_corrupt_files_fail_as_tf(case):
    expected = case["tf_record_iterator"]
    options = "" if case["compression"] == "NONE" else case["compression"]
    path = os.path.join(RECORDS, case["file"])
    got = []
    if expected["error"] is None:
        got.extend(tf_record_iterator(path, options))
    else:
        with pytest.raises(errors.DataLossError) as info:
            for record in tf_record_iterator(path, options):
                got.append(record)
        assert expected["error"]["message"] in str(info.value)
        assert path in str(info.value)
        assert info.value.error_code == expected["error"]["error_code"]
    assert len(got) == expected["records_before_error"]


def test_empty_and_large_records_roundtrip(tmp_path):
    records = [b"", b"x", bytes(range(256)) * 1000, b"\x00" * (3 << 20), b"tail"]
    for kind in ("", "ZLIB", "GZIP"):
        path = tmp_path / f"r{kind}"
        with TFRecordWriter(path, kind) as writer:
            for record in records:
                writer.write(record)
        assert list(tf_record_iterator(path, kind)) == records


def test_str_records_are_utf8_and_bad_types_fail(tmp_path):
    path = str(tmp_path / "s")
    with TFRecordWriter(path) as writer:
        writer.write("héllo")
        writer.write(bytearray(b"ab"))
        with pytest.raises(TypeError, match="int"):
            writer.write(5)
    assert list(tf_record_iterator(path)) == ["héllo".encode(), b"ab"]


def test_closed_writer_refuses_writes(tmp_path):
    writer = TFRecordWriter(str(tmp_path / "c"))
    writer.write(b"a")
    writer.close()
    writer.close()
    with pytest.raises(errors.FailedPreconditionError, match="Writer is closed."):
        writer.write(b"b")
    with pytest.raises(errors.FailedPreconditionError):
        writer.flush()


def test_flush_makes_records_visible(tmp_path):
    path = str(tmp_path / "f")
    writer = TFRecordWriter(path)
    writer.write(b"one")
    writer.flush()
    assert list(tf_record_iterator(path)) == [b"one"]
    writer.close()


def test_missing_files_raise_not_found_at_call(tmp_path):
    missing = str(tmp_path / "nope")
    with pytest.raises(errors.NotFoundError, match="No such file or directory"):
        tf_record_iterator(missing)
    with pytest.raises(errors.NotFoundError):
        TFRecordWriter(str(tmp_path / "no_dir" / "x"))


def test_options_validation():
    assert TFRecordOptions.get_compression_type_string(None) == ""
    assert TFRecordOptions.get_compression_type_string(TFRecordCompressionType.GZIP) == "GZIP"
    assert TFRecordOptions.get_compression_type_string(TFRecordOptions("ZLIB")) == "ZLIB"
    with pytest.raises(ValueError, match='Not a valid compression_type: "BAD"'):
        TFRecordOptions("BAD")
    with pytest.raises(ValueError):
        TFRecordWriter("/tmp/never-created", options="gzip")


def test_compression_level_changes_header(tmp_path):
    path = str(tmp_path / "l9")
    with TFRecordWriter(path, TFRecordOptions("GZIP", compression_level=9)) as writer:
        writer.write(b"abc" * 100)
    assert _read(path)[:10] == bytes.fromhex("1f8b0800000000000203")
    assert list(tf_record_iterator(path, "GZIP")) == [b"abc" * 100]


def _write_plain(path, records):
    with TFRecordWriter(path) as writer:
        for record in records:
            writer.write(record)
    return _read(path)


def test_every_truncation_ends_or_raises_data_loss(tmp_path):
    data = _write_plain(str(tmp_path / "full"), [b"a" * 10, b"b" * 20])
    cut_path = str(tmp_path / "cut")
    first_end = 12 + 10 + 4
    for cut in range(len(data)):
        with open(cut_path, "wb") as f:
            f.write(data[:cut])
        got = []
        try:
            for record in tf_record_iterator(cut_path):
                got.append(record)
        except errors.DataLossError as e:
            assert "truncated record at" in str(e)
            in_header = cut < 12 or first_end <= cut < first_end + 12
            assert not in_header
        assert len(got) == (0 if cut < first_end else 1)


def test_garbage_length_with_valid_crc_does_not_hang(tmp_path):
    length = (1 << 62).to_bytes(8, "little")
    path = str(tmp_path / "huge")
    with open(path, "wb") as f:
        f.write(length + masked_crc32c(length).to_bytes(4, "little") + b"xyz")
    with pytest.raises(errors.DataLossError, match="truncated record at 0"):
        list(tf_record_iterator(path))


def test_corrupt_compressed_stream_is_data_loss(tmp_path):
    path = str(tmp_path / "bad.gz")
    with open(path, "wb") as f:
        f.write(bytes.fromhex("1f8b0800000000000003") + b"\xff" * 50)
    with pytest.raises(errors.DataLossError, match="bad.gz"):
        list(tf_record_iterator(path, "GZIP"))


def test_iterator_close_and_reopen_follow_a_growing_file(tmp_path):
    path = str(tmp_path / "grow")
    writer = TFRecordWriter(path)
    writer.write(b"1")
    writer.flush()
    it = tf_record_iterator(path)
    assert next(it) == b"1"
    with pytest.raises(StopIteration):
        next(it)
    writer.write(b"2")
    writer.close()
    it.close()
    it.reopen()
    assert list(it) == [b"2"]
    with pytest.raises(errors.FailedPreconditionError):
        it2 = tf_record_iterator(path)
        it2.reopen()


def test_namespaces_export_tfrecord_api():
    for module in (tf_io, python_io):
        assert module.TFRecordWriter is TFRecordWriter
        assert module.tf_record_iterator is tf_record_iterator
        assert module.TFRecordOptions is TFRecordOptions
        assert module.TFRecordCompressionType.GZIP == 2
