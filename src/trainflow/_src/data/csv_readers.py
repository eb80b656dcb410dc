"""`tf.data.experimental.CsvDataset` and `make_csv_dataset` (TF 1.15's V1 API)."""
import collections
import csv
import glob
import gzip
import io
import math
import zlib

from trainflow._src.data import structure as st
from trainflow._src.data.dataset_ops import AUTOTUNE, DatasetV1
from trainflow._src.data.reader_seams import maybe_shuffle_and_repeat, read_files, skip_errors
from trainflow._src.data.readers import optional_param
from trainflow._src.framework import dtypes
from trainflow._src.framework.constant_op import constant
from trainflow._src.framework.dtypes import DType
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.dataset import csv_ops  # noqa: F401 - registers CSVDatasetV2

_ACCEPTABLE_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64,
                         dtypes.string)
_CSV_BUFFER_SIZE_BYTES = 4 * 1024 * 1024
_FLOAT32_MAX = 3.4028234663852886e38


class CsvDatasetV1(DatasetV1):
    """The records of CSV files, each a tuple of scalars (`tf.data.experimental.CsvDataset`).

    Args:
      filenames: a string, list or string tensor of CSV files.
      record_defaults: one per column taken: a dtype (the field is required) or a
        one-element (default) or empty (required) tensor of float32, float64, int32,
        int64 or string.
      compression_type: "" (none), "ZLIB" or "GZIP".
      buffer_size: read buffer bytes (must be positive).
      header: skip each file's first line.
      field_delim: the one-character field separator.
      use_quote_delim: fields may be quoted with '"' (else quotes are plain characters).
      na_value: a field value that means "missing" (takes the default).
      select_cols: the sorted column indices to take (else all).
      exclude_cols: the sorted column indices to leave out.
    """

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None):
        self._filenames = convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
        defaults = [constant([], dtype=d) if isinstance(d, DType) else d
                    for d in record_defaults]
        defaults = [d if isinstance(d, Tensor) else convert_to_tensor(d) for d in defaults]
        for d in defaults:
            if d.dtype.base_dtype not in _ACCEPTABLE_CSV_TYPES:
                raise TypeError(f"record_defaults must be of types {_ACCEPTABLE_CSV_TYPES}, "
                                f"got {d.dtype}")
        structure = st.Structure(tuple(st.Component(d.dtype.base_dtype, TensorShape([]),
                                                    Tensor) for d in defaults))
        op = apply_op(
            "CSVDatasetV2", filenames=self._filenames,
            compression_type=optional_param("compression_type", compression_type, "",
                                            dtypes.string),
            buffer_size=optional_param("buffer_size", buffer_size, _CSV_BUFFER_SIZE_BYTES),
            header=convert_to_tensor(header, dtypes.bool, name="header"),
            field_delim=convert_to_tensor(field_delim, dtypes.string, name="field_delim"),
            use_quote_delim=convert_to_tensor(use_quote_delim, dtypes.bool,
                                              name="use_quote_delim"),
            na_value=convert_to_tensor(na_value, dtypes.string, name="na_value"),
            select_cols=optional_param("select_cols", select_cols, []),
            record_defaults=defaults,
            exclude_cols=optional_param("exclude_cols", exclude_cols, []),
            output_shapes=structure.flat_shapes)
        super().__init__(op.outputs[0], structure)


# -- make_csv_dataset ------------------------------------------------------------------------
def file_names(file_pattern, shuffle):
    """The files matching `file_pattern` (a glob or a list of them), sorted unless
    `shuffle`.

    Raises:
      ValueError: if nothing matches.
    """
    patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else file_pattern
    names = []
    for p in patterns:
        names.extend(glob.glob(p.decode() if isinstance(p, bytes) else p))
    if not names:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return names if shuffle else sorted(names)


def _open_text(name, compression_type):
    if compression_type == "GZIP":
        return gzip.open(name, "rt", newline="")
    if compression_type == "ZLIB":
        with open(name, "rb") as f:
            return io.StringIO(zlib.decompress(f.read()).decode(), newline="")
    return open(name, newline="")


def _infer_column_names(filenames, field_delim, use_quote_delim, compression_type):
    kwargs = {"delimiter": field_delim}
    if not use_quote_delim:
        kwargs["quoting"] = csv.QUOTE_NONE
    names = None
    for name in filenames:
        with _open_text(name, compression_type) as f:
            header = next(csv.reader(f, **kwargs), None)
        if header is None:
            raise ValueError(f"Received no rows in file {name}")
        if names is not None and header != names:
            raise ValueError("Files have different column names in the header row.")
        names = header
    return names


def _infer_type(value, na_value, previous):
    if value in ("", na_value):
        return previous
    order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string]
    start = order.index(previous) if previous in order else 0
    for dtype in order[start:]:
        if dtype == dtypes.string:
            return dtype
        try:
            number = int(value) if dtype.is_integer else float(value)
        except ValueError:
            continue
        if dtype.is_integer and not dtype.min <= number <= dtype.max:
            continue
        if dtype == dtypes.float32 and math.isfinite(number) and \
                abs(number) > _FLOAT32_MAX:
            continue
        return dtype
    return dtypes.string


def _infer_column_defaults(filenames, num_cols, field_delim, use_quote_delim, na_value,
                           header, num_rows_for_inference, select_columns, compression_type):
    kwargs = {"delimiter": field_delim}
    if not use_quote_delim:
        kwargs["quoting"] = csv.QUOTE_NONE
    inferred = [None] * (num_cols if select_columns is None else len(select_columns))
    seen = 0
    for name in filenames:
        with _open_text(name, compression_type) as f:
            rows = csv.reader(f, **kwargs)
            if header:
                next(rows, None)
            for row in rows:
                if seen >= num_rows_for_inference:
                    break
                seen += 1
                if len(row) != num_cols:
                    raise ValueError("Problem inferring types: CSV row has different number "
                                     "of fields than expected.")
                if select_columns is not None:
                    row = [row[c] for c in select_columns if c < len(row)]
                for i, value in enumerate(row[:len(inferred)]):
                    inferred[i] = _infer_type(value, na_value, inferred[i])
    inferred = [dtypes.string if t is None else t for t in inferred]
    # (a missing value of an inferred column reads as 0 or "")
    return [constant(["" if t == dtypes.string else 0], dtype=t) for t in inferred]


def _column_indices(select_columns, column_names):
    """Sorted indices of `select_columns` (names or indices)."""
    if all(isinstance(c, int) for c in select_columns):
        indices = list(select_columns)
    else:
        names = list(column_names)
        try:
            indices = [names.index(c) for c in select_columns]
        except ValueError:
            raise ValueError(f"Column name(s) in `select_columns` {select_columns} not in "
                             f"`column_names` {column_names}.") from None
    if sorted(set(indices)) != sorted(indices):
        raise ValueError("Cannot have duplicate entries in `select_columns`.")
    return sorted(indices)


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False):
    """Batches of (features dict, label) read from CSV files (TF 1.15's make_csv_dataset).

    Raises:
      ValueError: for no matching files, names/defaults/select_columns that disagree, or
        a `label_name` that is no column.
    """
    if num_parallel_reads is None:
        num_parallel_reads = 1
    if prefetch_buffer_size is None:
        prefetch_buffer_size = AUTOTUNE
    filenames = file_names(file_pattern, False)
    kind = compression_type or ""
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` argument.")
        column_names = _infer_column_names(filenames, field_delim, use_quote_delim, kind)
    if len(set(column_names)) != len(column_names):
        raise ValueError("Expected `column_names` to be unique, got "
                         f"{column_names}.")
    if select_columns is not None:
        select_columns = _column_indices(select_columns, column_names)
    if column_defaults is not None:
        column_defaults = [constant([], dtype=d) if isinstance(d, DType) else d
                           for d in column_defaults]
    else:
        column_defaults = _infer_column_defaults(
            filenames, len(column_names), field_delim, use_quote_delim, na_value, header,
            num_rows_for_inference, select_columns, kind)
    if select_columns is not None and len(column_defaults) != len(select_columns):
        raise ValueError("If specified, column_defaults and select_columns must have same "
                         "length.")
    if select_columns is not None and len(column_names) > len(select_columns):
        column_names = [column_names[i] for i in select_columns]
    if label_name is not None and label_name not in column_names:
        raise ValueError("`label_name` provided must be one of the columns: "
                         f"{column_names}. Received: {label_name}.")

    def filename_to_dataset(filename):
        dataset = CsvDatasetV1(filename, record_defaults=column_defaults,
                               field_delim=field_delim, use_quote_delim=use_quote_delim,
                               na_value=na_value, select_cols=select_columns, header=header,
                               compression_type=compression_type)
        return skip_errors(dataset) if ignore_errors else dataset

    def map_fn(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is not None:
            return features, features.pop(label_name)
        return features

    dataset = DatasetV1.from_tensor_slices(filenames)
    if shuffle and hasattr(dataset, "shuffle"):
        dataset = dataset.shuffle(len(filenames), shuffle_seed)
    dataset = read_files(dataset, filename_to_dataset, num_parallel_reads, sloppy)
    dataset = maybe_shuffle_and_repeat(dataset, num_epochs, shuffle, shuffle_buffer_size,
                                       shuffle_seed)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)
    dataset = dataset.map(map_fn)
    return dataset.prefetch(prefetch_buffer_size)
