"""`tf.data.experimental.SqlDataset`: the rows of an SQL query (SQLite)."""
from trainflow._src.data import structure as st
from trainflow._src.data.dataset_ops import DatasetV1
from trainflow._src.framework import dtypes
from trainflow._src.framework.op_builder import apply_op
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework.tensor_shape import TensorShape
from trainflow._src.ops.dataset import sql_ops  # noqa: F401 - registers SqlDataset


class SqlDatasetV1(DatasetV1):
    """The rows `query` returns from the database `data_source_name` (a file; `driver_name`
    "sqlite"), each a tuple of scalars of `output_types`."""

    def __init__(self, driver_name, data_source_name, query, output_types):
        driver = convert_to_tensor(driver_name, dtypes.string, name="driver_name")
        source = convert_to_tensor(data_source_name, dtypes.string, name="data_source_name")
        query = convert_to_tensor(query, dtypes.string, name="query")
        flat = st.flatten(output_types)
        structure = st.Structure(st.pack(output_types, [
            st.Component(dtypes.as_dtype(t), TensorShape([]), Tensor) for t in flat]))
        op = apply_op("SqlDataset", driver_name=driver, data_source_name=source, query=query,
                      output_types=structure.flat_types, output_shapes=structure.flat_shapes)
        super().__init__(op.outputs[0], structure)
