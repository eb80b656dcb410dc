"""`tf.GradientTape` in graph mode: the tape notes which ops were built while it
recorded and which tensors and variables it watches; `gradient` differentiates with
`tf.gradients` over the recorded ops that depend on something watched (every other
tensor is a stop), so unwatched sources and paths built outside the tape give None
as TensorFlow's tape does."""
import contextlib

from trainflow._src import tf_logging
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.framework import nest
from trainflow._src.gradients.gradients_impl import UnconnectedGradients, gradients
from trainflow._src.ops.array import array_ops
from trainflow._src.ops.state.variables import Variable


def _is_differentiable(t):
    base = t.dtype.base_dtype
    return base.is_floating or base.is_complex


class GradientTape:
    """Records the ops built inside its `with` block for differentiation.

    Args:
      persistent: allow more than one `gradient`/`jacobian` call.
      watch_accessed_variables: watch the trainable variables read while recording.
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._recording = False
        self._graph = None
        self._windows = []  # [start, end) op ids built while recording
        self._start = None
        self._watched = []
        self._watched_variables = []
        self._used = False

    # -- recording --------------------------------------------------------------------
    def __enter__(self):
        self._push_tape()
        return self

    def __exit__(self, typ, value, traceback):
        if self._recording:
            self._pop_tape()

    def _push_tape(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to "
                             "re-enter an already-active tape.")
        self._graph = self._graph or get_default_graph()
        self._start = self._graph._version + 1
        self._recording = True

    def _pop_tape(self):
        if not self._recording:
            raise ValueError("Tape is not recording.")
        self._windows.append((self._start, self._graph._version + 1))
        self._recording = False
        if self._watch_accessed_variables:
            self._note_accessed_variables(*self._windows[-1])

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops built inside this context are not recorded."""
        if not self._recording:
            raise ValueError("Tape must be recording.")
        self._pop_tape()
        try:
            yield
        finally:
            self._push_tape()

    @contextlib.contextmanager
    def _ensure_recording(self):
        """Records the ops built inside even after the `with` block ended (the slices
        a jacobian takes of its target)."""
        if self._recording:
            yield
            return
        self._push_tape()
        try:
            yield
        finally:
            self._pop_tape()

    def reset(self):
        """Forgets everything recorded so far (recording goes on inside a `with`)."""
        recording = self._recording
        if recording:
            self._pop_tape()
        self._windows, self._watched, self._watched_variables = [], [], []
        self._used = False
        if recording:
            self._push_tape()

    def watch(self, tensor):
        """Watches a tensor, a variable, or a nested structure of them."""
        for t in nest.flatten(tensor):
            if not (isinstance(t, (Tensor, Variable))):
                raise ValueError("Passed in object of type {}, not tf.Tensor or "
                                 "tf.Variable or ExtensionType.".format(type(t)))
            if not _is_differentiable(t):
                tf_logging.warning("The dtype of the watched tensor must be floating (e.g. "
                                   "tf.float32), got %r", t.dtype)
            if isinstance(t, Variable):
                if t not in self._watched_variables:
                    self._watched_variables.append(t)
            elif all(t is not w for w in self._watched):
                self._watched.append(t)

    def watched_variables(self):
        """The variables the tape watches, in the order it met them."""
        return tuple(self._watched_variables)

    def _note_accessed_variables(self, start, end):
        by_tensor = {}
        for v in self._graph.get_collection(GraphKeys.TRAINABLE_VARIABLES):
            for t in _variable_tensors(v):
                by_tensor[t] = v
        for op in self._recorded_ops(start, end):
            for t in op._inputs:
                v = by_tensor.get(t)
                if v is not None and v not in self._watched_variables:
                    self._watched_variables.append(v)

    def _recorded_ops(self, start, end):
        return [op for op in self._graph.get_operations() if start <= op._id < end]

    # -- gradients --------------------------------------------------------------------
    def _tracked(self):
        """The tensors that depend on something watched through recorded ops."""
        tracked = {id(t): t for t in self._watched}
        for v in self._watched_variables:
            for t in _variable_tensors(v):
                tracked[id(t)] = t
        windows = list(self._windows)
        if self._recording:
            windows.append((self._start, self._graph._version + 1))
        ops = sorted((op for s, e in windows for op in self._recorded_ops(s, e)),
                     key=lambda op: op._id)
        stops = []
        for op in ops:
            if any(id(t) in tracked for t in op._inputs):
                for t in op.outputs:
                    tracked[id(t)] = t
                stops.extend(t for t in op._inputs if id(t) not in tracked)
        return tracked, stops

    def _check_use(self):
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute "
                               "one set of gradients (or jacobians)")
        if self._recording and not self._persistent:
            tf_logging.warning("Calling GradientTape.gradient on a persistent tape inside "
                               "its context is significantly less efficient than calling "
                               "it outside the context (it causes the gradient ops to be "
                               "recorded on the tape, leading to increased CPU and memory "
                               "usage). Only call GradientTape.gradient inside the context "
                               "if you actually want to trace the gradient in order to "
                               "compute higher order derivatives.")
        self._used = True

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """The gradients of `target` (summed over a structure of targets) with respect
        to each of `sources` (a nested structure), shaped like `sources`."""
        self._check_use()
        unconnected = UnconnectedGradients(unconnected_gradients)
        targets = [convert_to_tensor(t) for t in nest.flatten(target)]
        flat_sources = nest.flatten(sources)
        grads_in = None
        if output_gradients is not None:
            grads_in = [None if g is None else convert_to_tensor(g)
                        for g in nest.flatten(output_gradients)]
        tracked, stops = self._tracked()
        live = [i for i, t in enumerate(targets) if id(t) in tracked]
        results = [None] * len(flat_sources)
        wanted = [i for i, s in enumerate(flat_sources)
                  if any(id(t) in tracked for t in _source_tensors(s))]
        if live and wanted:
            ys = [targets[i] for i in live]
            gys = None if grads_in is None else [grads_in[i] for i in live]
            xs = [flat_sources[i] for i in wanted]
            # Stops that are sources would cut the path to themselves.
            source_ids = {id(t) for s in xs for t in _source_tensors(s)}
            stops = [t for t in stops if id(t) not in source_ids]
            got = gradients(ys, xs, grad_ys=gys, stop_gradients=stops or None)
            for i, g in zip(wanted, got):
                results[i] = g
        if unconnected is UnconnectedGradients.ZERO:
            results = [array_ops.zeros_like(_value_of(s)) if g is None else g
                       for g, s in zip(results, flat_sources)]
        return nest.pack_sequence_as(sources, results)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d target[i...] / d source[j...], of shape target.shape + source.shape (for
        each source); the target's size must be known when the graph is built."""
        self._check_use()
        persistent, self._persistent = self._persistent, True
        try:
            target = convert_to_tensor(target)
            flat_sources = nest.flatten(sources)
            n = target.shape.num_elements()
            if n is None:
                raise ValueError("GradientTape.jacobian in graph mode needs a target of "
                                 "known size; got shape %s" % target.shape)
            with self._ensure_recording():
                flat_target = array_ops.reshape(target, [-1])
                pieces = [flat_target[i] for i in range(n)]
            rows = [self.gradient(piece, flat_sources,
                                  unconnected_gradients=unconnected_gradients)
                    for piece in pieces]
            out = []
            for k, s in enumerate(flat_sources):
                value = _value_of(s)
                column = [r[k] for r in rows]
                if any(g is None for g in column):
                    out.append(None)
                    continue
                stacked = array_ops.stack(column) if column else array_ops.zeros(
                    [0] + value.shape.as_list(), dtype=value.dtype)
                out.append(array_ops.reshape(stacked, array_ops.concat(
                    [array_ops.shape(target), array_ops.shape(value)], 0)))
        finally:
            self._persistent = persistent
        return nest.pack_sequence_as(sources, out)

    def batch_jacobian(self, target, source,
                       unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """d target[b, i...] / d source[b, j...] for each b (examples independent), of
        shape [b] + target.shape[1:] + source.shape[1:]."""
        self._check_use()
        persistent, self._persistent = self._persistent, True
        try:
            target = convert_to_tensor(target)
            value = _value_of(source)
            if target.shape.rank is not None and target.shape.rank < 1:
                raise ValueError("Need first dimension of `target` shape (%s) and `source` "
                                 "shape (%s) to match." % (target.shape, value.shape))
            rest = target.shape[1:].num_elements()
            if rest is None:
                raise ValueError("GradientTape.batch_jacobian in graph mode needs the "
                                 "non-batch size of the target known; got %s"
                                 % target.shape)
            with self._ensure_recording():
                flat = array_ops.reshape(target, array_ops.stack(
                    [array_ops.shape(target)[0], rest]))
                pieces = [flat[:, j] for j in range(rest)]
            columns = [self.gradient(piece, source,
                                     unconnected_gradients=unconnected_gradients)
                       for piece in pieces]
            if any(c is None for c in columns):
                return None
            stacked = array_ops.stack(columns, axis=1)
            return array_ops.reshape(stacked, array_ops.concat(
                [array_ops.shape(target), array_ops.shape(value)[1:]], 0))
        finally:
            self._persistent = persistent


def _variable_tensors(v):
    out = [v._ref()]
    try:
        out.append(v.value())
    except (AttributeError, TypeError, ValueError):
        pass
    handle = getattr(v, "handle", None)
    if isinstance(handle, Tensor):
        out.append(handle)
    return out


def _source_tensors(s):
    return _variable_tensors(s) if isinstance(s, Variable) else [s]


def _value_of(s):
    return s.value() if isinstance(s, Variable) else s
