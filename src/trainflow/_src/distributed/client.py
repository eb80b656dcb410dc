"""The client side of a `grpc://` session: `Session(target)` sends its graph to the
master at `target` (CreateSession, then ExtendSession with the ops added since) and
runs steps there (RunStep), over TensorFlow's MasterService."""
import queue
import threading

import numpy as np

from trainflow._src.framework import errors
from trainflow._src.framework import graph_export as graph_def_lib
from trainflow._src.framework.operation import Operation
from trainflow._src.protos import config_pb2, master_pb2
from trainflow._src.distributed import wire

PREFIX = "grpc://"


def _address(target):
    return target[len(PREFIX):]


# Sessions closed by the garbage collector hand their CloseSession to this thread: a
# finalizer may run on any thread, a gRPC server's poller among them, and a blocking RPC
# there can wait on that very poller (a CloseSession to a master in this process). The
# closer sends it on a channel of its own: the session's channel may be garbage too, and
# already closed. A SimpleQueue's put is safe inside a finalizer; the thread starts with
# the first session.
_to_close = queue.SimpleQueue()
_closer_lock = threading.Lock()
_closer = None


def _start_closer():
    global _closer
    with _closer_lock:
        if _closer is None:
            _closer = threading.Thread(target=_close_queued, daemon=True,
                                       name="trainflow-session-closer")
            _closer.start()


def _close_queued():
    while True:
        target, handle = _to_close.get()
        channel = wire.open_channel(_address(target))
        try:
            wire.Stub(channel, wire.MASTER_SERVICE, wire.MASTER_METHODS).call(
                "CloseSession", master_pb2.CloseSessionRequest(session_handle=handle), 10.0)
        except Exception:  # noqa: BLE001 - the master is gone, and no caller to tell
            pass
        finally:
            channel.close()


class RemoteSession:
    """The master-side session behind one client `Session(grpc://...)`."""

    def __init__(self, target, graph, config):
        self._target = target
        self._graph = graph
        self._config = config if config is not None else config_pb2.ConfigProto()
        self._channel = wire.open_channel(_address(target))
        self._stub = wire.Stub(self._channel, wire.MASTER_SERVICE, wire.MASTER_METHODS)
        self._handle = None
        self._server_version = 0
        self._sent_version = 0
        self._lock = threading.Lock()
        _start_closer()

    def _timeout(self, options=None):
        ms = (options.timeout_in_ms if options is not None else 0) or \
            self._config.operation_timeout_in_ms
        # The master enforces the step's deadline; the RPC's is a little later.
        return ms / 1000.0 + 5.0 if ms > 0 else None

    def _extend(self):
        graph = self._graph
        if self._handle is not None and graph._version == self._sent_version:
            return
        version = graph._version
        gd = graph_def_lib.graph_to_graph_def(graph, from_version=self._sent_version or None)
        if self._handle is None:
            resp = self._stub.call("CreateSession", master_pb2.CreateSessionRequest(
                graph_def=gd, config=self._config, target=self._target), self._timeout(),
                what=f"CreateSession at {self._target}")
            self._handle = resp.session_handle
            self._server_version = resp.graph_version
        else:
            resp = self._stub.call("ExtendSession", master_pb2.ExtendSessionRequest(
                session_handle=self._handle, graph_def=gd,
                current_graph_version=self._server_version), self._timeout(),
                what=f"ExtendSession at {self._target}")
            self._server_version = resp.new_graph_version
        self._sent_version = version

    def run(self, elements, feed_tensors, feed_values, options, run_metadata,
            partial_run_handle=""):
        """The values of `elements` (Tensors; Operations give None), in the partial run
        `partial_run_handle` if given."""
        with self._lock:
            self._extend()
            handle = self._handle
        req = master_pb2.RunStepRequest(session_handle=handle,
                                        partial_run_handle=partial_run_handle)
        for t, v in zip(feed_tensors, feed_values):
            wire.to_tensor_proto(v, req.feed.add(name=t.name).tensor)
        fetch_names = []
        for el in elements:
            if isinstance(el, Operation):
                if el.name not in req.target:
                    req.target.append(el.name)
            elif el.name not in fetch_names:
                fetch_names.append(el.name)
        req.fetch.extend(fetch_names)
        if options is not None:
            req.options.CopyFrom(options)
        resp = self._stub.call("RunStep", req, self._timeout(options),
                               what=f"RunStep at {self._target}")
        if resp.status_code:
            raise errors.exception_type_from_error_code(resp.status_code)(
                None, None, resp.status_error_message)
        if run_metadata is not None and resp.HasField("metadata"):
            run_metadata.MergeFrom(resp.metadata)
        values = {nt.name: nt.tensor for nt in resp.tensor}
        out = []
        for el in elements:
            if isinstance(el, Operation):
                out.append(None)
                continue
            proto = values.get(el.name)
            if proto is None:
                raise errors.InternalError(None, None, f"The master returned no value for "
                                                       f"{el.name}")
            out.append(_value(proto))
        return out

    def partial_run_setup(self, elements, feed_tensors):
        """The handle of a partial run fetching `elements` (Tensors; Operations are
        targets) and fed `feed_tensors` (PartialRunSetup)."""
        with self._lock:
            self._extend()
            handle = self._handle
        req = master_pb2.PartialRunSetupRequest(session_handle=handle)
        req.feed.extend(dict.fromkeys(t.name for t in feed_tensors))
        for el in elements:
            dest = req.target if isinstance(el, Operation) else req.fetch
            if el.name not in dest:
                dest.append(el.name)
        return self._stub.call("PartialRunSetup", req, self._timeout(),
                               what=f"PartialRunSetup at {self._target}").partial_run_handle

    def make_callable(self, feed_names, fetch_names, target_names, options=None):
        """A master-side callable (MakeCallable); returns its handle."""
        with self._lock:
            self._extend()
            handle = self._handle
        opts = config_pb2.CallableOptions(feed=feed_names, fetch=fetch_names,
                                          target=target_names)
        if options is not None:
            opts.run_options.CopyFrom(options)
        return self._stub.call("MakeCallable", master_pb2.MakeCallableRequest(
            session_handle=handle, options=opts), self._timeout(options),
            what=f"MakeCallable at {self._target}").handle

    def run_callable(self, callable_handle, feed_values, timeout_options=None,
                     run_metadata=None):
        """The fetched values of callable `callable_handle` (RunCallable)."""
        req = master_pb2.RunCallableRequest(session_handle=self._handle,
                                            handle=callable_handle)
        for v in feed_values:
            wire.to_tensor_proto(v, req.feed.add())
        resp = self._stub.call("RunCallable", req, self._timeout(timeout_options),
                               what=f"RunCallable at {self._target}")
        if run_metadata is not None and resp.HasField("metadata"):
            run_metadata.MergeFrom(resp.metadata)
        return [_value(p) for p in resp.fetch]

    def release_callable(self, callable_handle):
        """Releases callable `callable_handle` (ReleaseCallable); quiet if the master or
        the session is gone."""
        handle = self._handle
        if handle is None:
            return
        try:
            self._stub.call("ReleaseCallable", master_pb2.ReleaseCallableRequest(
                session_handle=handle, handle=callable_handle), 10.0)
        except (errors.OpError, ValueError):
            pass

    def list_devices(self):
        """The DeviceAttributes protos of the cluster (ListDevices)."""
        resp = self._stub.call("ListDevices", master_pb2.ListDevicesRequest(
            session_handle=self._handle or ""), 30.0, what=f"ListDevices at {self._target}")
        return list(resp.local_device) + list(resp.remote_device)

    def close_later(self):
        """Closes this session on the closer thread; never blocks or takes a lock (for
        finalizers)."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _to_close.put((self._target, handle))

    def close(self):
        with self._lock:
            handle, self._handle = self._handle, None
        try:
            if handle is not None:
                self._stub.call("CloseSession",
                                master_pb2.CloseSessionRequest(session_handle=handle), 10.0)
        except errors.OpError:
            pass  # the master is gone; so is the session
        finally:
            self._channel.close()


def _value(proto):
    v = wire.from_tensor_proto(proto)
    return v[()] if isinstance(v, np.ndarray) and not v.ndim else v


def reset(target, containers=None):
    """Clears `containers` (default: the default container) on every task the master
    at `target` knows (Reset)."""
    channel = wire.open_channel(_address(target))
    try:
        wire.Stub(channel, wire.MASTER_SERVICE, wire.MASTER_METHODS).call(
            "Reset", master_pb2.ResetRequest(container=containers or []), 60.0,
            what=f"Reset at {target}")
    finally:
        channel.close()
