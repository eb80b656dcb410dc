"""Helpers shared by the estimator modules: a function's argument names, what an input_fn
returned, and the hook that initializes a Dataset's iterator."""
import functools
import inspect
import time

from trainflow._src.data import iterator_ops
from trainflow._src.data.dataset_ops import DatasetV1
from trainflow._src.train.session_run_hook import SessionRunHook


def fn_args(fn):
    """The names of `fn`'s arguments (a partial's bound positionals removed, `self` of a
    bound method or callable object left out), as TF's function_utils.fn_args."""
    if isinstance(fn, functools.partial):
        args = fn_args(fn.func)
        args = [a for a in args[len(fn.args):] if a not in (fn.keywords or {})]
        return tuple(args)
    if not (inspect.isfunction(fn) or inspect.ismethod(fn)) and callable(fn):
        fn = fn.__call__
    params = inspect.signature(fn).parameters
    return tuple(name for name, p in params.items()
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))


class DatasetInitializerHook(SessionRunHook):
    """Runs an initializable iterator's initializer when the session is created."""

    def __init__(self, iterator):
        self._iterator = iterator

    def begin(self):
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        del coord
        session.run(self._initializer)


def parse_iterator_result(result):
    """(features, labels) from an input_fn's or an iterator's result."""
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return result[0], result[1]
    return result, None


def parse_input_fn_result(result):
    """(features, labels, input_hooks): a Dataset is iterated with an initializable
    iterator whose initializer a hook runs."""
    input_hooks = []
    if isinstance(result, DatasetV1):
        iterator = iterator_ops.make_initializable_iterator(result)
        input_hooks.append(DatasetInitializerHook(iterator))
        result = iterator.get_next()
    return parse_iterator_result(result) + (input_hooks,)


def get_timestamped_dir(dir_base, exists):
    """`dir_base/<unix seconds>` that does not exist yet (`exists(path)` tells)."""
    attempts = 0
    while attempts < 10:
        timestamp = int(time.time())
        result_dir = f"{dir_base.rstrip('/')}/{timestamp}"
        if not exists(result_dir):
            return result_dir
        time.sleep(1)
        attempts += 1
    raise RuntimeError("Failed to obtain a unique export directory name after 10 attempts.")
