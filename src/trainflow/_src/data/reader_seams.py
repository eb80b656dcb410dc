"""The transformations of the other tf.data parts that the readers build on, where this
build has them: `parallel_interleave` (the parallel part), `shuffle_and_repeat` and
`ignore_errors` (the reordering part). Where one is missing the readers take the
sequential form (flat_map, shuffle then repeat) or say what is missing."""
try:
    from trainflow._src.data.parallel_experimental import parallel_interleave
except ImportError:  # the parallel part is not in this build
    parallel_interleave = None
try:
    from trainflow._src.data.reordering_experimental import (ignore_errors,
                                                             shuffle_and_repeat)
except ImportError:  # the reordering part is not in this build
    ignore_errors = shuffle_and_repeat = None


def read_files(filenames, read_one, cycle_length, sloppy=False):
    """The records of each file of the dataset `filenames` read by `read_one(filename)`,
    `cycle_length` files at a time, one record of each in turn (TF's
    parallel_interleave; file by file where this build lacks it)."""
    if parallel_interleave is None:
        return filenames.flat_map(read_one)
    return filenames.apply(parallel_interleave(read_one, cycle_length=cycle_length,
                                               block_length=1, sloppy=sloppy))


def maybe_shuffle_and_repeat(dataset, num_epochs, shuffle, shuffle_buffer_size, shuffle_seed):
    """TF's `_maybe_shuffle_and_repeat`."""
    if shuffle and num_epochs != 1 and shuffle_and_repeat is not None:
        return dataset.apply(shuffle_and_repeat(shuffle_buffer_size, num_epochs, shuffle_seed))
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
    if ignore_errors is None:
        raise ValueError("ignore_errors=True needs tf.data.experimental.ignore_errors, which "
                         "this build does not have")
    return dataset.apply(ignore_errors())
