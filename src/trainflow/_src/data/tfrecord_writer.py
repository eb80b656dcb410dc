"""`tf.data.experimental.TFRecordWriter`: writes a dataset of strings to a TFRecord file
(the DatasetToTFRecord op, run in a session)."""
from trainflow._src.data.dataset_ops import DatasetV1
from trainflow._src.data.readers import optional_param
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.dataset import writer_ops  # noqa: F401 - registers DatasetToTFRecord


class TFRecordWriter:
    """Writes the elements of a dataset of scalar strings to the TFRecord file `filename`,
    compressed as `compression_type` says ("", "ZLIB" or "GZIP")."""

    def __init__(self, filename, compression_type=None):
        self._filename = convert_to_tensor(filename, dtypes.string, name="filename")
        self._compression_type = optional_param("compression_type", compression_type, "",
                                                dtypes.string)

    def write(self, dataset):
        """The op that writes every element of `dataset` when run.

        Raises:
          TypeError: if `dataset` is not a Dataset of scalar strings.
        """
        if not isinstance(dataset, DatasetV1):
            raise TypeError("Invalid `dataset.` Expected a `tf.data.Dataset` object but got "
                            f"{type(dataset)}.")
        types, shapes = dataset.output_types, dataset.output_shapes
        if types != dtypes.string or not isinstance(shapes, TensorShape) or \
                not shapes.is_compatible_with(TensorShape([])):
            raise TypeError("Invalid `dataset`. Expected a`dataset` that produces scalar "
                            "`tf.string` elements, but got a dataset which produces elements "
                            f"with shapes {shapes} and types {types}.")
        return apply_op("DatasetToTFRecord", input_dataset=dataset._variant_tensor,
                        filename=self._filename, compression_type=self._compression_type)
