"""GeneratorDataset: elements made by calling functions (what from_generator builds, with
py_func bodies): `init_func` once per iterator makes a state, `next_func(state)` makes
each element until it raises OutOfRangeError, `finalize_func(state)` runs at the end or
when the iterator is closed before it."""
from trainflow._src.framework import errors
from trainflow._src.ops.dataset import dataset_value as dv
from trainflow._src.ops.dataset.dataset_function import cached_function
from trainflow._src.ops.dataset.dataset_op import register_dataset


class GeneratorValue(dv.DatasetValue):
    def __init__(self, init_fn, init_args, next_fn, finalize_fn):
        self.init_fn, self.init_args = init_fn, init_args
        self.next_fn, self.finalize_fn = next_fn, finalize_fn

    def iterator(self):
        return _GeneratorIterator(self)


class _GeneratorIterator(dv.ElementIterator):
    def __init__(self, spec):
        self.spec = spec
        self.state = None
        self.done = False

    def next(self, state):
        if self.done:
            return dv.END
        if self.state is None:
            self.state = self.spec.init_fn(self.spec.init_args)
        try:
            return self.spec.next_fn(self.state)
        except errors.OutOfRangeError:
            self._finalize()
            return dv.END

    def _finalize(self):
        self.done = True
        if self.state is not None:
            state, self.state = self.state, None
            self.spec.finalize_fn(state)

    def save(self):
        raise errors.UnimplementedError(
            None, None, "GeneratorDatasetOp::Dataset does not support checkpointing.")

    def restore(self, saved):
        raise errors.UnimplementedError(
            None, None, "GeneratorDatasetOp::Dataset does not support checkpointing.")

    def close(self):
        if not self.done:
            self._finalize()


def _split(ctx, key, values):
    """(the function's arguments, its captured values) of `values` (TF passes both as the
    op's `*_other_args`)."""
    n = len(ctx.op._attrs[key].inputs)
    return list(values[:n]), list(values[n:])


def _generator(init_func_other_args, next_func_other_args, finalize_func_other_args, *,
               ctx):
    init_args, init_captured = _split(ctx, "init_func", init_func_other_args)
    # next_func and finalize_func take the state init_func made, then their captures.
    return GeneratorValue(cached_function(ctx, "init_func", init_captured), init_args,
                          cached_function(ctx, "next_func", next_func_other_args),
                          cached_function(ctx, "finalize_func", finalize_func_other_args))


register_dataset("GeneratorDataset",
                 ["init_func_other_args: Tinit_func_args",
                  "next_func_other_args: Tnext_func_args",
                  "finalize_func_other_args: Tfinalize_func_args"],
                 ["init_func: func", "next_func: func", "finalize_func: func",
                  "Tinit_func_args: list(type) >= 0", "Tnext_func_args: list(type) >= 0",
                  "Tfinalize_func_args: list(type) >= 0"], _generator)
