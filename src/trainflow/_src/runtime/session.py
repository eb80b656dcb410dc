"""`tf.Session` / `tf.InteractiveSession`: run graph fragments (contract 4 of
docs/architecture.md)."""
import itertools
import threading
import time

import numpy as np

from trainflow._src.framework import errors, nest
from trainflow._src.framework.graph import Graph, get_default_graph
from trainflow._src.framework.graph import _default_graph_stack
from trainflow._src.framework.operation import Operation
from trainflow._src.framework.tensor import Tensor
from trainflow._src.framework import session_stack
from trainflow._src.framework.numpy_conversion import to_numpy
from trainflow._src.runtime import partial_run, process_settings, remote_calls, run_state
from trainflow._src.runtime import targets
from trainflow._src.runtime.backends import xla_switch
from trainflow._src.framework.kernel_context import DEAD
from trainflow._src.runtime.executor import ExecutionContext, Plan
from trainflow._src.runtime.fetches import FetchStructure
from trainflow._src.runtime.resources import ResourceManager
from trainflow._src.ops.data_flow.session_ops import (
    HANDLE_OP_TYPES, TensorHandle, delete_handles)

_LOCAL_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
_step_ids = itertools.count(1)


def _feed_error_value(value, key):
    raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values "
                    "include Python scalars, strings, lists, numpy ndarrays, or TensorHandles. "
                    f"For reference, the tensor object was {value} which was passed to the "
                    f"argument `feed_dict` with key {key}.")


def _shape_ok(static_dims, shape):
    if static_dims is None:
        return True
    if len(static_dims) != len(shape):
        return False
    for d, s in zip(static_dims, shape):
        if d is not None and d != s:
            return False
    return True


def _shape_str(shape):
    if shape.rank is None:
        return "<unknown>"
    return "(" + ", ".join("?" if d is None else str(d) for d in shape._dims) + \
        ("," if shape.rank == 1 else "") + ")"


def _int_fits(value, np_dtype):
    info = np.iinfo(np_dtype)
    return info.min <= value <= info.max


class _DeviceAttributes:
    """What `Session.list_devices()` reports about one device."""

    def __init__(self, name, device_type, memory_limit_bytes, incarnation):
        self.name = name
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit_bytes
        self.incarnation = incarnation

    def __repr__(self):
        return (f"_DeviceAttributes({self.name}, {self.device_type}, "
                f"{self.memory_limit_bytes}, {self.incarnation})")


class BaseSession:
    """Runs ops of one graph; holds that graph's variable values and other state."""

    def __init__(self, target="", graph=None, config=None):
        """
        Args:
          target: "" for an in-process session, or the target of a server running in
            this process (`tf.train.Server.target`).
          graph: the Graph to run (default: the default graph).
          config: a ConfigProto; operation_timeout_in_ms is honoured, and
            intra_op_parallelism_threads sizes the process's intra-op pool (0 or no
            config: automatic; the first session created sets it, see
            runtime/process_settings.py); the other threading and placement options
            are accepted and ignored.

        Raises:
          TypeError: for arguments of the wrong type.
        """
        if graph is None:
            graph = get_default_graph()
        elif not isinstance(graph, Graph):
            raise TypeError("Argument `graph` must be a tf.Graph, but got "
                            f'"{type(graph).__name__}"')
        if not isinstance(target, (str, bytes)):
            raise TypeError("Argument `target` must be a string, but got "
                            f'"{type(target).__name__}"')
        if config is not None and type(config).__name__ != "ConfigProto":
            raise TypeError(f'Argument `config` must be a tf.ConfigProto, but got '
                            f'"{type(config).__name__}"')
        self._graph = graph
        self._target = target.decode() if isinstance(target, bytes) else (target or "")
        self._config = config
        # A "grpc://" target runs every step on a master (runtime/targets.py hook).
        from trainflow._src.runtime import targets
        self._remote = targets.remote_session(self._target, graph, config)
        self._resources = None if self._remote else self._make_resources(self._target)
        self._plans = {}
        self._lock = threading.Lock()
        self._active = {}
        self._closed = False
        self._partial_runs = {}
        self._dead_handles = []
        self._default_timeout_ms = getattr(config, "operation_timeout_in_ms", 0) or 0
        process_settings.session_created(config)
        self._context_managers = []
        # What this session's plans run with; its XLA backend is set when TF's JIT knobs
        # ask for it and jax is installed.
        self._context = ExecutionContext(self, self._resources,
                                         xla_switch.backend_for_session(config))

    @staticmethod
    def _make_resources(target):
        if target:
            return targets.resources_for(target)
        return ResourceManager()

    # -- properties ------------------------------------------------------------------
    @property
    def graph(self):
        """The graph this session runs."""
        return self._graph

    @property
    def graph_def(self):
        """The GraphDef of the session's graph."""
        return self._graph.as_graph_def()

    @property
    def sess_str(self):
        """The target, as bytes (as TF1 returns it)."""
        return self._target.encode()

    def list_devices(self):
        """The devices this session can place ops on."""
        if self._remote is not None:
            return [_DeviceAttributes(d.name, d.device_type, d.memory_limit, d.incarnation)
                    for d in self._remote.list_devices()]
        return [_DeviceAttributes(_LOCAL_DEVICE, "CPU", 268435456, 1)]

    def as_default(self):
        """Context manager making this the default session of the thread."""
        return session_stack.default_session(self)

    # -- running ----------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Computes `fetches` (a Tensor, Operation, name, or nested structure of them).

        Args:
          fetches: what to compute; Operations give None.
          feed_dict: {Tensor or name: value} overriding tensor values.
          options: a RunOptions proto (timeout_in_ms, trace_level).
          run_metadata: a RunMetadata proto filled with step stats under FULL_TRACE.

        Returns:
          the values, in the structure of `fetches`.

        Raises:
          RuntimeError: if the session is closed or the graph is empty.
          TypeError / ValueError: for bad fetches or feeds (before anything runs).
          OpError: if an op fails while running.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._remote is not None:
            return self._run_remote(fetches, feed_dict, options, run_metadata)
        if type(fetches) is Tensor and fetches._op._graph is self._graph:
            structure = None
            elements = (fetches,)
        else:
            structure = FetchStructure(self._graph, fetches)
            elements = tuple(structure.elements)
        feed_tensors, feed_values = self._process_feeds(feed_dict)
        values = self._run_elements(elements, feed_tensors, feed_values, options, run_metadata)
        if structure is None:
            return values[0]
        return structure.build(values)

    def _run_remote(self, fetches, feed_dict, options, run_metadata):
        structure = FetchStructure(self._graph, fetches)
        feed_tensors, feed_values = self._process_feeds(feed_dict)
        values = self._remote.run(tuple(structure.elements), feed_tensors, feed_values,
                                  options, run_metadata)
        return structure.build(values)

    def _run_cancellable(self, fetches, options, run_metadata, on_state):
        """`run(fetches)` without feeds, calling `on_state(RunState)` before the step
        starts: how a worker cancels the one step whose RPC ended (its peer went away)."""
        structure = FetchStructure(self._graph, fetches)
        values = self._run_elements(tuple(structure.elements), (), (), options, run_metadata,
                                    on_state=on_state)
        return structure.build(values)

    def _run_elements(self, elements, feed_tensors, feed_values, options, run_metadata,
                      plan=None, on_state=None):
        if plan is None:
            plan = self._plan_for(elements, feed_tensors)
        timeout = self._default_timeout_ms
        trace = None
        if options is not None:
            timeout = options.timeout_in_ms or timeout
            if options.trace_level and run_metadata is not None:
                trace = []
        state = run_state.RunState(timeout, next(_step_ids))
        active = self._active
        # Registration and close() are ordered by the session lock: a run registered before
        # close() is cancelled by it, and one that comes after sees `_closed` here.
        with self._lock:
            if self._closed:
                raise errors.CancelledError(None, None, "Session has been closed.")
            active[state] = None
        if on_state is not None:
            on_state(state)
        prev = run_state.set_current(state)
        try:
            if trace is not None:
                start_us = time.time_ns() // 1000
                raw = plan.run(feed_values, lambda k, t0, t1: trace.append((k, t0, t1)))
            else:
                raw = plan.run(feed_values)
        finally:
            run_state.set_current(prev)
            active.pop(state, None)
        if trace is not None:
            self._fill_step_stats(run_metadata, plan, trace, start_us)
        return self._convert_results(elements, plan, raw)

    def _run_with_state(self, fn):
        """`fn(state)` run as one step of this session (a RunState registered as a run's, so
        that close() cancels what it waits on, and the session's operation timeout); for
        runtime work done outside a plan (a queue runner's fused enqueues)."""
        state = run_state.RunState(self._default_timeout_ms, next(_step_ids))
        with self._lock:
            if self._closed:
                raise errors.CancelledError(None, None, "Session has been closed.")
            self._active[state] = None
        prev = run_state.set_current(state)
        try:
            return fn(state)
        finally:
            run_state.set_current(prev)
            self._active.pop(state, None)

    def _convert_results(self, elements, plan, raw):
        """The fetched values: None for ops, copies where a value may alias session state
        or a feed, NumPy scalars for 0-d arrays.

        Raises:
          InvalidArgumentError: for a fetch on an untaken branch of a conditional.
        """
        out = []
        i = 0
        copies = plan.copy_results
        for el in elements:
            if type(el) is Operation:
                out.append(None)
                continue
            v = raw[i]
            copy = copies[i]
            i += 1
            if type(v) is np.ndarray:
                if copy or v.base is not None or not v.flags.writeable:
                    v = v.copy()
                if not v.ndim:
                    v = v[()]
                if el._op.type in HANDLE_OP_TYPES:  # a kept tensor: TF gives a TensorHandle
                    v = TensorHandle(v, el._op._inputs[0].dtype, self)
            elif v is DEAD:
                raise errors.InvalidArgumentError(
                    None, el.op, f"Retval[{i - 1}] does not have value ({el.name} is on an "
                                 "untaken branch of a conditional)")
            out.append(v)
        return out

    def _plan_for(self, elements, feed_tensors):
        graph = self._graph
        key = (elements, tuple(feed_tensors), graph._version, graph._structure_version)
        plan = self._plans.get(key)
        if plan is None or plan.provisional is not None and not plan.provisional.pending():
            for el in elements:
                if not graph.is_fetchable(el):
                    raise ValueError(f"{'Operation' if isinstance(el, Operation) else 'Tensor'} "
                                     f"{el.name!r} has been marked as not fetchable.")
            fetch_tensors = [e for e in elements if isinstance(e, Tensor)]
            targets = [e for e in elements if isinstance(e, Operation)]
            with self._lock:
                plan = self._plans.get(key)
                if plan is None or (plan.provisional is not None and
                                    not plan.provisional.pending()):
                    plan = Plan(self._context, fetch_tensors, targets, feed_tensors)
                    if len(self._plans) > 1000:
                        self._plans.clear()
                    self._plans[key] = plan
        return plan

    def _process_feeds(self, feed_dict):
        """(tensors, values) of `feed_dict`, keys resolved and values converted.

        Raises:
          TypeError / ValueError: for bad keys or values (see _convert_feed).
        """
        if not feed_dict:
            return (), ()
        tensors = []
        values = []
        graph = self._graph
        unfeedable = graph._unfeedable
        for key, value in feed_dict.items():
            if type(key) is Tensor and key._op._graph is graph and key not in unfeedable \
                    and type(value) is not Tensor:
                tensors.append(key)
                values.append(self._convert_feed(key, value))
                continue
            for sub_key, sub_value in self._expand_feed(key, value):
                if isinstance(sub_value, Tensor):
                    _feed_error_value(sub_value, sub_key)
                try:
                    t = graph.as_graph_element(sub_key, allow_tensor=True, allow_operation=False)
                except (TypeError, ValueError, KeyError) as e:
                    raise TypeError("Cannot interpret feed_dict key as Tensor: "
                                    f"{e.args[0] if e.args else e}") from None
                if not graph.is_feedable(t):
                    raise ValueError(f"Tensor {t} may not be fed.")
                tensors.append(t)
                values.append(self._convert_feed(t, sub_value))
        return tensors, values

    @staticmethod
    def _expand_feed(key, value):
        if isinstance(key, tuple):  # a nested tuple of tensors: values of its structure
            keys, values = nest.flatten(key), nest.flatten(value)
            if len(keys) != len(values):
                raise ValueError(f"Could not flatten dictionary. Key had {len(keys)} "
                                 f"elements, but value had {len(values)} elements. Key: "
                                 f"{key}, value: {value}.")
            return [pair for k, v in zip(keys, values) for pair in BaseSession._expand_feed(k, v)]
        expand = getattr(key, "_feed_components", None)
        if callable(expand):
            return expand(value)
        if not isinstance(key, (Tensor, str)):
            conv = getattr(key, "_as_graph_element", None)
            if callable(conv):
                return [(conv(), value)]
        return [(key, value)]

    @staticmethod
    def _convert_feed(t, value):
        """The feed value as an ndarray of `t`'s dtype, checked against its static shape.

        Raises:
          TypeError: for a Python int that the dtype can't hold, or a Tensor value.
          ValueError: for a value that can't be converted, or has the wrong shape.
        """
        if type(value) is TensorHandle:
            return value._stored_value(t._dtype, t.name)
        np_dtype = t._dtype.as_numpy_dtype  # the same for a ref dtype
        if type(value) is np.ndarray and value.dtype == np_dtype:
            dims = t._shape._dims
            # The common case: an array of the dtype and (fully known) static shape.
            if dims is None or dims == value.shape:
                return value
            arr = value
        elif np_dtype is np.object_:
            arr = to_numpy(value, t._dtype.base_dtype)
        else:
            dtype = t._dtype.base_dtype
            if isinstance(value, int) and dtype.is_integer and not _int_fits(value, np_dtype):
                raise TypeError(f"Type of feed value {value} with type {type(value)} is not "
                                f"compatible with Tensor type {np_dtype}. Try explicitly "
                                "setting the type of the feed tensor to a larger type (e.g. "
                                "int64).")
            if isinstance(value, Tensor):
                _feed_error_value(value, t)
            try:
                arr = np.asarray(value, dtype=np_dtype)
            except (TypeError, ValueError, OverflowError) as e:
                raise ValueError(f"Cannot feed value {value!r} for Tensor {t.name} of dtype "
                                 f"{dtype.name}: {e}") from None
        if not _shape_ok(t._shape._dims, arr.shape):
            raise ValueError(f"Cannot feed value of shape {arr.shape} for Tensor {t.name}, "
                             f"which has shape {_shape_str(t._shape)}")
        return arr

    def _fill_step_stats(self, run_metadata, plan, trace, start_us):
        base_ns = trace[0][1] if trace else 0
        dev = run_metadata.step_stats.dev_stats.add()
        dev.device = _LOCAL_DEVICE
        for k, t0, t1 in trace:
            op = plan.ops[k]
            ns = dev.node_stats.add()
            ns.node_name = op.name
            ns.timeline_label = (f"{op.name} = {op.type}("
                                 f"{', '.join(i._op._name for i in op._inputs)})")
            ns.all_start_micros = start_us + (t0 - base_ns) // 1000
            ns.all_start_nanos = ns.all_start_micros * 1000
            ns.op_start_rel_micros = 0
            ns.op_end_rel_micros = (t1 - t0) // 1000
            ns.all_end_rel_micros = (t1 - t0) // 1000
            ns.op_end_rel_nanos = t1 - t0
            ns.all_end_rel_nanos = t1 - t0
            ns.thread_id = threading.get_ident() & 0xFFFFFFFF

    # -- callables and partial runs ----------------------------------------------------
    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function computing `fetches` from positional feed values (faster than run).

        Args:
          fetches: as for `run`.
          feed_list: the tensors (or names) fed, in the order of the positional args.
          accept_options: whether the function takes `options` and `run_metadata`
            keyword arguments.

        Returns:
          fn(*feed_values[, options=..., run_metadata=...]) -> fetched values. Calling
          it after `close()` raises CancelledError.
        """
        if self._remote is not None:
            return self._remote_callable(fetches, feed_list, accept_options)
        structure = FetchStructure(self._graph, fetches)
        elements = tuple(structure.elements)
        graph = self._graph
        feed_tensors = tuple(graph.as_graph_element(f, allow_tensor=True, allow_operation=False)
                             for f in (feed_list or []))
        single = len(elements) == 1 and isinstance(fetches, (Tensor, Operation, str))
        cached = [None, None]  # (graph versions, plan): no plan-cache lookup per call
        convert = self._convert_feed

        def _run(args, options, run_metadata):
            if len(args) != len(feed_tensors):
                raise TypeError(f"Expected {len(feed_tensors)} feed values, got {len(args)}")
            values = [convert(t, v) for t, v in zip(feed_tensors, args)]
            if self._closed:
                raise errors.CancelledError(None, None, "Session has been closed.")
            versions = (graph._version, graph._structure_version)
            if cached[0] != versions:
                cached[1] = self._plan_for(elements, feed_tensors)
                cached[0] = versions
            out = self._run_elements(elements, feed_tensors, values, options, run_metadata,
                                     cached[1])
            return out[0] if single else structure.build(out)

        if accept_options:
            def _callable(*args, options=None, run_metadata=None):
                return _run(args, options, run_metadata)
        else:
            def _callable(*args):
                return _run(args, None, None)
        return _callable

    def _remote_callable(self, fetches, feed_list, accept_options):
        if not accept_options:
            return remote_calls.make_callable(self, fetches, feed_list)
        feeds = list(feed_list or [])

        def _callable(*args, options=None, run_metadata=None):
            if len(args) != len(feeds):
                raise TypeError(f"Expected {len(feeds)} feed values, got {len(args)}")
            return self.run(fetches, dict(zip(feeds, args)), options, run_metadata)
        return _callable

    def partial_run_setup(self, fetches, feeds=None):
        """Declares the fetches and feeds of a sequence of `partial_run` calls.

        Returns:
          a handle string for `partial_run`.

        Raises:
          RuntimeError: if the session is closed.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._remote is not None:
            return remote_calls.partial_run_setup(self, fetches, feeds)
        return partial_run.setup(self, fetches, feeds)

    def partial_run(self, handle, fetches, feed_dict=None):
        """Continues partial run `handle`: feeds more inputs and fetches more results.
        No op runs twice within one partial run; the handle expires once every tensor
        declared in `partial_run_setup` has been fetched.

        Raises:
          InvalidArgumentError: for an unknown or expired handle, feeds or fetches not
            declared in `partial_run_setup`, a feed fed twice, or a fetch that needs a
            declared feed not fed yet.
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._remote is not None:
            return remote_calls.partial_run(self, handle, fetches, feed_dict)
        return partial_run.run(self, handle, fetches, feed_dict)

    def _register_dead_handle(self, handle):
        """Collects the handle of a TensorHandle gone away; every 10, deletes them."""
        with self._lock:
            self._dead_handles.append(handle)
            if len(self._dead_handles) < 10 or self._closed:
                return
            handles, self._dead_handles = self._dead_handles, []
        delete_handles(self, handles)

    # -- lifetime -------------------------------------------------------------------------
    def close(self):
        """Cancels running steps, releases resources; later runs raise RuntimeError."""
        self._close(wait=True)

    def _close(self, wait):
        with self._lock:
            if self._closed:
                return
            self._closed = True
            active = list(self._active)
        for state in active:
            state.cancel("Session has been closed.")
        if self._remote is not None:
            if wait:
                self._remote.close()
            else:
                self._remote.close_later()
        elif not self._target:
            self._resources.clear()
        self._plans.clear()

    def __enter__(self):
        graph_cm = self._graph.as_default()
        sess_cm = self.as_default()
        graph_cm.__enter__()
        sess_cm.__enter__()
        self._context_managers.append((graph_cm, sess_cm))
        return self

    def __exit__(self, exc_type, exc, tb):
        graph_cm, sess_cm = self._context_managers.pop()
        sess_cm.__exit__(exc_type, exc, tb)
        graph_cm.__exit__(exc_type, exc, tb)
        self.close()
        return False

    def __del__(self):
        try:
            if not self._closed:
                # The collector may run this on any thread: no blocking RPC here.
                self._close(wait=False)
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


class Session(BaseSession):
    """A TF1 session: `Session(target="", graph=None, config=None)`."""

    @staticmethod
    def reset(target, containers=None, config=None):
        """Clears the resource containers of the process at `target`."""
        targets.reset(target, containers)


class InteractiveSession(BaseSession):
    """A session that makes itself the default session (and its graph the default graph)
    until closed, for shells and notebooks."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        # Not nested: an InteractiveSession may be closed in any order.
        self._graph_cm = _default_graph_controller(self._graph)
        self._graph_cm.__enter__()
        self._sess_cm = session_stack.default_session(self, enforce_nesting=False)
        self._sess_cm.__enter__()
        self._explicitly_closed = False

    def close(self):
        super().close()
        if not self._explicitly_closed:
            self._explicitly_closed = True
            try:
                self._sess_cm.__exit__(None, None, None)
                self._graph_cm.__exit__(None, None, None)
            except Exception:  # noqa: BLE001 - another thread may own the stacks
                pass


def _default_graph_controller(graph):
    return _default_graph_stack.get_controller(graph, enforce_nesting=False)


# `tf.get_default_session`: the stack lives in framework, so `Tensor.eval` needs no runtime.
get_default_session = session_stack.get_default_session
