"""`tf.estimator.inputs.numpy_input_fn`: an input_fn feeding a dict of NumPy arrays (or
one array) through a queue, as TF 1.15."""
import collections

import numpy as np

from trainflow._src.estimator.inputs.feeding import enqueue_data

_TARGET_KEY = "__target_key__"


def _get_unique_target_key(features):
    target_key = _TARGET_KEY
    while target_key in features:
        target_key += "_n"
    return target_key


def _validate_and_convert_features(x):
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        return collections.OrderedDict(sorted(x.items(), key=lambda t: t[0]))
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
        return collections.OrderedDict({"__direct_np_input__": x})
    raise ValueError(f"x must be a dict or array; got {type(x).__name__}")


def _add_targets(data, feature_keys, y):
    if y is None:
        return None
    if isinstance(y, dict):
        if not y:
            raise ValueError("y cannot be empty dict, use None instead.")
        ordered_y = collections.OrderedDict(sorted(y.items(), key=lambda t: t[0]))
        duplicates = set(feature_keys) & set(ordered_y)
        if duplicates:
            raise ValueError(f"{len(duplicates)} duplicate keys are found in both x and y: "
                             f"{duplicates}")
        data.update(ordered_y)
        return list(ordered_y)
    target_key = _get_unique_target_key(data)
    data[target_key] = y
    return target_key


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                   queue_capacity=1000, num_threads=1):
    """An input_fn returning (features, targets) batches of `x` (a dict of arrays, or one
    array) and `y` (None, an array or a dict of arrays), read `num_epochs` times (None:
    forever) through a queue of `queue_capacity` fed by `num_threads` threads, shuffled
    when `shuffle` (which must be given). The last batch may be short when num_epochs is
    set."""
    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is "
                         f"recommended to set it as True for training); got {shuffle}")

    def input_fn():
        data = _validate_and_convert_features(x)
        feature_keys = list(data.keys())
        target_keys = _add_targets(data, feature_keys, y)
        if len({v.shape[0] for v in data.values()}) != 1:
            shape_x = {k: data[k].shape for k in feature_keys}
            if target_keys is None:
                shape_y = None
            elif isinstance(target_keys, str):
                shape_y = y.shape
            else:
                shape_y = {k: data[k].shape for k in target_keys}
            raise ValueError("Length of tensors in x and y is mismatched. All elements in x "
                             "and y must have the same length.\n"
                             f"Shapes in x: {shape_x}\nShapes in y: {shape_y}\n")
        queue = enqueue_data(data, queue_capacity, shuffle=shuffle, num_threads=num_threads,
                             enqueue_size=batch_size, num_epochs=num_epochs)
        batch = (queue.dequeue_many(batch_size) if num_epochs is None
                 else queue.dequeue_up_to(batch_size))
        batch = list(batch)
        if batch:
            batch.pop(0)  # the row index
        if isinstance(x, np.ndarray):
            features = batch[0]
        else:
            features = dict(zip(feature_keys, batch[:len(feature_keys)]))
        if target_keys is None:
            return features
        if isinstance(target_keys, str):
            return features, batch[-1]
        return features, dict(zip(target_keys, batch[-len(target_keys):]))
    return input_fn
