"""`tf.estimator.inputs.pandas_input_fn`: an input_fn feeding a pandas DataFrame's columns
through a queue, as TF 1.15. pandas is optional: without it the call raises ImportError."""
import collections
import importlib

import numpy as np

from trainflow._src.estimator.inputs.feeding import enqueue_data


def _pandas():
    try:
        return importlib.import_module("pandas")
    except ImportError as e:
        raise ImportError("pandas_input_fn should not be called without pandas installed "
                          "(pip install pandas)") from e


def _get_unique_target_key(features, target_column_name):
    while target_column_name in features:
        target_column_name += "_n"
    return target_column_name


def _is_list_of_strings(value):
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                    queue_capacity=1000, num_threads=1, target_column="target"):
    """An input_fn returning (features, target) batches of DataFrame `x`'s columns and `y`
    (a Series, a DataFrame, or None), read `num_epochs` times through a queue."""
    pd = _pandas()
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is "
                         f"recommended to set it as True for training); got {shuffle}")
    if not isinstance(target_column, str) and not _is_list_of_strings(target_column):
        raise TypeError("target_column must be a string or a list of strings, got "
                        f"{type(target_column)}")
    x = x.copy()
    y_columns = None
    if y is not None:
        if target_column in x:
            raise ValueError(f"Cannot use name {target_column} for target column: DataFrame "
                             f"already has a column with that name: {x.columns}")
        if not np.array_equal(x.index, y.index):
            raise ValueError("Index for x and y are mismatched.\nIndex for x: "
                             f"{x.index}\nIndex for y: {y.index}\n")
        if isinstance(y, pd.DataFrame):
            y_columns = [(column, _get_unique_target_key(x, column)) for column in list(y)]
            target_column = [v for _, v in y_columns]
            x[target_column] = y
        else:
            x[target_column] = y
    if queue_capacity is None:
        queue_capacity = 4 * len(x) if shuffle else len(x)
    min_after_dequeue = max(queue_capacity / 4, 1)
    columns = list(x.columns)
    data = collections.OrderedDict((c, x[c].to_numpy()) for c in columns)

    def input_fn():
        queue = enqueue_data(data, queue_capacity, shuffle=shuffle,
                             min_after_dequeue=min_after_dequeue, num_threads=num_threads,
                             enqueue_size=batch_size, num_epochs=num_epochs)
        features = (queue.dequeue_many(batch_size) if num_epochs is None
                    else queue.dequeue_up_to(batch_size))
        features = dict(zip(columns, list(features)[1:]))
        if y is None:
            return features
        if isinstance(target_column, list):
            values = [features.pop(column) for column in target_column]
            return features, {k: v for (k, _), v in zip(y_columns, values)}
        return features, features.pop(target_column)
    return input_fn
