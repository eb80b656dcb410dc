"""Dataset methods over files (list_files); mixed into cls."""
from trainflow._src.framework import dtypes
from trainflow._src.framework.scopes import control_dependencies, name_scope
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.ops.array.identity import identity
from trainflow._src.ops.array.shape import shape
from trainflow._src.ops.control_flow.assert_op import Assert
from trainflow._src.ops.io.file_io_ops import matching_files
from trainflow._src.ops.math import arith
from trainflow._src.ops.random.random_ops import random_shuffle
from trainflow._src.ops.string.string_ops import reduce_join


class FileMethods:
    """Mixed into cls: its methods build ops with `self._apply` and `self._traced`."""

    @classmethod
    def list_files(cls, file_pattern, shuffle=None, seed=None):
        """A dataset of the files matching `file_pattern` (a glob, or a list of them).

        The names come sorted, then shuffled (unless `shuffle` is False) anew on each
        iteration, in an order fixed by `seed` (or the graph seed). Iterating raises
        InvalidArgumentError "No files matched pattern: ..." when nothing matches.
        """
        with name_scope("list_files"):
            if shuffle is None:
                shuffle = True
            file_pattern = convert_to_tensor(file_pattern, dtype=dtypes.string,
                                             name="file_pattern")
            files = matching_files(file_pattern)
            condition = arith.greater(shape(files)[0], 0)
            message = arith.add("No files matched pattern: ",
                                reduce_join(file_pattern, separator=", "), name="message")
            assert_not_empty = Assert(condition, [message], summarize=1,
                                      name="assert_not_empty")
            with control_dependencies([assert_not_empty]):
                files = identity(files)
            if shuffle and not hasattr(cls, "shuffle"):
                # (ShuffleDataset comes with the reordering part of tf.data)
                files = random_shuffle(files, seed=seed)
            dataset = cls.from_tensor_slices(files)
            if shuffle and hasattr(cls, "shuffle"):
                buffer_size = arith.maximum(shape(files, out_type=dtypes.int64)[0], 1)
                dataset = dataset.shuffle(buffer_size, seed=seed)
            return dataset
