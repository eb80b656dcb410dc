"""The reader datasets' host iterators: positions saved and restored mid-file, at a file
boundary, unused and exhausted (the cases of TF r1.8's FixedLengthRecordDataset
save/restore tests, here on the iterator protocol the checkpoint ops use)."""
import numpy as np
import pytest

from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset import reader_ops
from trainflow._src.ops.dataset.batch_ops import BatchValue

HEADER, RECORD, FOOTER, FILES, RECORDS = 5, 3, 2, 2, 7


class _State:
    def check(self):
        pass


@pytest.fixture
def fixed_value(tmp_path):
    names = []
    for i in range(FILES):
        path = tmp_path / f"fixed.{i}"
        path.write_bytes(b"H" * HEADER + b"".join(str(i * 2 + j).encode() * RECORD
                                                  for j in range(RECORDS)) + b"F" * FOOTER)
        names.append(str(path))
    return reader_ops.FilesValue(names, lambda p: reader_ops.fixed_length_records(
        p, "", HEADER, RECORD, FOOTER))


def _drain(iterator):
    out = []
    while (element := iterator.next(_State())) is not dv.END:
        out.append(element[0][()])
    return out


ALL = [str(f * 2 + r).encode() * RECORD for f in range(FILES) for r in range(RECORDS)]


@pytest.mark.parametrize("taken", [0, 3, RECORDS, RECORDS + 3, FILES * RECORDS],
                         ids=["unused", "mid_file", "file_boundary", "second_file",
                              "exhausted"])
def test_save_restore(fixed_value, taken):
    first = fixed_value.iterator()
    got = [first.next(_State())[0][()] for _ in range(taken)]
    saved = first.save()
    first.close()
    second = fixed_value.iterator()
    second.restore(saved)
    assert got + _drain(second) == ALL
    assert second.next(_State()) is dv.END


def test_restore_over_a_used_iterator(fixed_value):
    first = fixed_value.iterator()
    for _ in range(4):
        first.next(_State())
    saved = first.save()
    other = fixed_value.iterator()
    _drain(other)
    other.restore(saved)
    assert _drain(other) == ALL[4:]


def test_close_releases_the_file(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_bytes(b"a\nb\n")
    iterator = reader_ops.FilesValue([str(path)], lambda p: reader_ops.text_lines(p, "")) \
        .iterator()
    assert iterator.next(_State())[0][()] == b"a"
    assert iterator.current is not None
    iterator.close()
    assert iterator.current is None


@pytest.mark.parametrize("value,error", [
    (np.array([["a"]], dtype=object), "must be a scalar or a vector"),
])
def test_filename_list_rank(value, error):
    with pytest.raises(errors.InvalidArgumentError, match=error):
        reader_ops.filename_list(value)


@pytest.mark.parametrize("data,lines", [
    (b"", []), (b"\n", [b""]), (b"a", [b"a"]), (b"a\r\n\r\nb\n", [b"a", b"", b"b"]),
    (b"x" * 300000 + b"\ny", [b"x" * 300000, b"y"]),
])
def test_text_lines(tmp_path, data, lines):
    path = tmp_path / "t"
    path.write_bytes(data)
    assert list(reader_ops.text_lines(str(path), "")) == lines


@pytest.mark.parametrize("first,second", [(3, 20), (RECORDS, 2), (RECORDS + 2, 1)])
def test_next_many_reads_in_bulk_and_keeps_the_position(fixed_value, first, second):
    iterator = fixed_value.iterator()
    got = [e[0][()] for e in iterator.next_many(_State(), first)]
    assert got == ALL[:first]
    restored = fixed_value.iterator()
    restored.restore(iterator.save())
    more = [e[0][()] for e in restored.next_many(_State(), second)]
    assert more == ALL[first:first + second]


@pytest.mark.parametrize("size,drop", [(3, False), (3, True), (RECORDS, False),
                                       (FILES * RECORDS + 1, False), (FILES * RECORDS + 1, True)])
def test_batch_of_records_is_one_vector(fixed_value, size, drop):
    """batch over a reader takes its records as one string vector (next_stacked), with
    the batches, the remainder rule and positions of the per-record path."""
    batches = []
    it = BatchValue(fixed_value, size, drop, None).iterator()
    while (batch := it.next(_State())) is not dv.END:
        assert batch[0].dtype == object and batch[0].ndim == 1
        batches.append(list(batch[0]))
    assert it.next(_State()) is dv.END
    want = [ALL[i:i + size] for i in range(0, len(ALL), size)]
    assert batches == [b for b in want if not drop or len(b) == size]
    resumed = BatchValue(fixed_value, size, drop, None).iterator()
    partial = BatchValue(fixed_value, size, drop, None).iterator()
    first = partial.next(_State())
    resumed.restore(partial.save())
    rest = []
    while (batch := resumed.next(_State())) is not dv.END:
        rest.append(list(batch[0]))
    assert (first is dv.END and not batches) or [list(first[0])] + rest == batches
