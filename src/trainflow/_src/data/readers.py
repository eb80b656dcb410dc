"""`tf.data.TFRecordDataset`, `TextLineDataset`, `FixedLengthRecordDataset` (TF 1.15's V1
classes, built as TF 2's compat.v1 builds them).

Each reader is a dataset of file names (TensorSliceDataset) flat-mapped through a function
that makes the one-file reader op, so a pipeline's graph is TF's. With
`num_parallel_reads`, the files are read `num_parallel_reads` at a time on background
threads by `interleave` (cycle_length=num_parallel_reads, block_length=1), whose order
is TF's: one record of each open file in turn.
"""
from trainflow._src.data import structure as st
from trainflow._src.data.convert import optional_param_to_tensor
from trainflow._src.data.dataset_ops import AUTOTUNE, DatasetV1
from trainflow._src.data.reader_seams import read_files
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.array.shape import reshape
from trainflow._src.ops.dataset import reader_ops  # noqa: F401 - registers the reader ops

DEFAULT_READER_BUFFER_SIZE_BYTES = 256 * 1024


def string_scalars():
    return st.Structure.of(dtypes.string, TensorShape([]))


# TF's convert.optional_param_to_tensor, by the name the readers use.
optional_param = optional_param_to_tensor


def filenames_dataset(filenames):
    """A dataset of scalar file names from a string, a list, a tensor or a dataset.

    Raises:
      TypeError: if `filenames` holds no strings or a dataset of them is not scalar.
    """
    if isinstance(filenames, DatasetV1):
        if filenames.output_types != dtypes.string:
            raise TypeError("The `filenames` argument must contain `tf.string` elements. "
                            f"Got a dataset of `{filenames.output_types!r}` elements.")
        if not filenames.output_shapes.is_compatible_with(TensorShape([])):
            raise TypeError("The `filenames` argument must contain `tf.string` elements of "
                            "shape [] (i.e. scalars). Got a dataset of element shape "
                            f"{filenames.output_shapes!r}.")
        return filenames
    filenames = convert_to_tensor(filenames, dtype_hint=dtypes.string)
    if filenames.dtype != dtypes.string:
        raise TypeError("The `filenames` argument must contain `tf.string` elements. Got "
                        f"`{filenames.dtype!r}` elements.")
    filenames = reshape(filenames, [-1], name="flat_filenames")
    return DatasetV1.from_tensor_slices(filenames)


def dataset_reader(make_one, filenames, num_parallel_reads=None):
    """The records of every file of `filenames`, each read by `make_one(filename)`."""
    def read_one_file(filename):
        filename = convert_to_tensor(filename, dtypes.string, name="filename")
        return make_one(filename)

    if num_parallel_reads is None:
        return filenames.flat_map(read_one_file)
    interleave = getattr(filenames, "interleave", None)
    if num_parallel_reads == AUTOTUNE and interleave is not None:
        return interleave(read_one_file, num_parallel_calls=num_parallel_reads)
    return read_files(filenames, read_one_file, num_parallel_reads)


class _ReaderDataset(DatasetV1):
    """A dataset whose variant is that of the reader pipeline it was built as."""

    def __init__(self, impl):
        super().__init__(impl._variant_tensor, impl._structure)


def _one_file(op_type, **inputs):
    structure = string_scalars()
    op = apply_op(op_type, **inputs)
    return DatasetV1(op.outputs[0], structure)


def _init_compressed_reader(dataset, op_type, filenames, compression_type, buffer_size,
                            num_parallel_reads):
    """Builds `dataset` as the one-file reader `op_type` (inputs filenames,
    compression_type, buffer_size) flat-mapped over its file names."""
    def make_one(filename):
        return _one_file(
            op_type, filenames=filename,
            compression_type=optional_param("compression_type", compression_type, "",
                                            dtypes.string),
            buffer_size=optional_param("buffer_size", buffer_size,
                                       DEFAULT_READER_BUFFER_SIZE_BYTES))
    dataset._filenames = filenames_dataset(filenames)
    _ReaderDataset.__init__(dataset, dataset_reader(make_one, dataset._filenames,
                                                    num_parallel_reads))


class TFRecordDatasetV1(_ReaderDataset):
    """The records of TFRecord files (`tf.data.TFRecordDataset`).

    Args:
      filenames: a string, list or string tensor of file names, or a dataset of them.
      compression_type: "" (none), "ZLIB" or "GZIP".
      buffer_size: bytes of read buffer (accepted as TF does; reads are chunked).
      num_parallel_reads: files read at once on background threads (None: one by one).
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        _init_compressed_reader(self, "TFRecordDataset", filenames, compression_type,
                                buffer_size, num_parallel_reads)


class TextLineDatasetV1(_ReaderDataset):
    """The lines of text files, without their line ends (`tf.data.TextLineDataset`)."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        _init_compressed_reader(self, "TextLineDataset", filenames, compression_type,
                                buffer_size, num_parallel_reads)


class FixedLengthRecordDatasetV1(_ReaderDataset):
    """Fixed-length records between a header and a footer of each file
    (`tf.data.FixedLengthRecordDataset`)."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None, num_parallel_reads=None):
        def make_one(filename):
            return _one_file(
                "FixedLengthRecordDatasetV2", filenames=filename,
                header_bytes=optional_param("header_bytes", header_bytes, 0),
                record_bytes=optional_param("record_bytes", record_bytes, None),
                footer_bytes=optional_param("footer_bytes", footer_bytes, 0),
                buffer_size=optional_param("buffer_size", buffer_size,
                                           DEFAULT_READER_BUFFER_SIZE_BYTES),
                compression_type=optional_param("compression_type", compression_type, "",
                                                dtypes.string))
        self._filenames = filenames_dataset(filenames)
        super().__init__(dataset_reader(make_one, self._filenames, num_parallel_reads))
