"""The transformations of the other tf.data parts that the readers build on, taken where
this build has them: `parallel_interleave` (the parallel part) and `ignore_errors` (the
reordering part) from their modules once those are loaded (the tf.data faces load them),
`interleave` and `shuffle` as Dataset methods. Where one is missing the readers take the
sequential form (file by file) or say what is missing."""
import sys

_PARALLEL = "trainflow._src.data.parallel_experimental"
_REORDERING = "trainflow._src.data.reordering_experimental"


def _transformation(module, name):
    """`module`.`name` where that module is loaded, else None."""
    return getattr(sys.modules.get(module), name, None)


def read_files(filenames, read_one, cycle_length, sloppy=False):
    """The records of each file of the dataset `filenames` read by `read_one(filename)`,
    `cycle_length` files at a time, one record of each in turn (TF's
    parallel_interleave; file by file where this build has no interleave)."""
    parallel_interleave = _transformation(_PARALLEL, "parallel_interleave")
    if parallel_interleave is not None:
        return filenames.apply(parallel_interleave(read_one, cycle_length=cycle_length,
                                                   block_length=1, sloppy=sloppy))
    interleave = getattr(filenames, "interleave", None)
    if cycle_length == 1 or interleave is None:
        return filenames.flat_map(read_one)
    return interleave(read_one, cycle_length=cycle_length, block_length=1,
                      num_parallel_calls=cycle_length)


def maybe_shuffle_and_repeat(dataset, num_epochs, shuffle, shuffle_buffer_size, shuffle_seed):
    """TF's `_maybe_shuffle_and_repeat` (TF 2's graph: shuffle, then repeat)."""
    if shuffle and hasattr(dataset, "shuffle"):
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    return dataset


def skip_errors(dataset):
    """`dataset.apply(ignore_errors())`.

    Raises:
      ValueError: where this build has no ignore_errors.
    """
    ignore_errors = _transformation(_REORDERING, "ignore_errors")
    if ignore_errors is not None:
        return dataset.apply(ignore_errors())
    method = getattr(dataset, "ignore_errors", None)
    if method is None:
        raise ValueError("ignore_errors=True needs tf.data.experimental.ignore_errors, which "
                         "this build does not have")
    return method()
