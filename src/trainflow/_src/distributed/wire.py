"""TensorFlow's gRPC services as method tables, tensors on the wire, and the mapping
between gRPC status codes and `tf.errors` (TensorFlow uses the same numbers).

TensorFlow's C++ servers register their methods under `/tensorflow.MasterService/...`
and `/tensorflow.WorkerService/...` (not under the `tensorflow.grpc` package of the
service .proto files), so those are the paths used here.
"""
import time

import numpy as np

from trainflow._src.framework import dtypes, errors
from trainflow._src.formats import tensor_proto as _tensor_proto
from trainflow._src.protos import master_pb2 as m
from trainflow._src.protos import tensor_pb2, tensor_shape_pb2
from trainflow._src.protos import worker_pb2 as w
from trainflow._src.distributed import tensor_codec

MASTER_SERVICE = "tensorflow.MasterService"
WORKER_SERVICE = "tensorflow.WorkerService"

# method name -> (request class, response class)
MASTER_METHODS = {
    "CreateSession": (m.CreateSessionRequest, m.CreateSessionResponse),
    "ExtendSession": (m.ExtendSessionRequest, m.ExtendSessionResponse),
    "PartialRunSetup": (m.PartialRunSetupRequest, m.PartialRunSetupResponse),
    "RunStep": (m.RunStepRequest, m.RunStepResponse),
    "CloseSession": (m.CloseSessionRequest, m.CloseSessionResponse),
    "ListDevices": (m.ListDevicesRequest, m.ListDevicesResponse),
    "Reset": (m.ResetRequest, m.ResetResponse),
    "MakeCallable": (m.MakeCallableRequest, m.MakeCallableResponse),
    "RunCallable": (m.RunCallableRequest, m.RunCallableResponse),
    "ReleaseCallable": (m.ReleaseCallableRequest, m.ReleaseCallableResponse),
}

WORKER_METHODS = {
    "GetStatus": (w.GetStatusRequest, w.GetStatusResponse),
    "CreateWorkerSession": (w.CreateWorkerSessionRequest, w.CreateWorkerSessionResponse),
    "DeleteWorkerSession": (w.DeleteWorkerSessionRequest, w.DeleteWorkerSessionResponse),
    "RegisterGraph": (w.RegisterGraphRequest, w.RegisterGraphResponse),
    "DeregisterGraph": (w.DeregisterGraphRequest, w.DeregisterGraphResponse),
    "RunGraph": (w.RunGraphRequest, w.RunGraphResponse),
    "CleanupGraph": (w.CleanupGraphRequest, w.CleanupGraphResponse),
    "CleanupAll": (w.CleanupAllRequest, w.CleanupAllResponse),
    "RecvTensor": (w.RecvTensorRequest, w.RecvTensorResponse),
    "MarkRecvFinished": (w.MarkRecvFinishedRequest, w.MarkRecvFinishedResponse),
}

# Responses carrying big tensors are framed by tensor_codec (TF's bytes, fewer copies):
# method -> (serializer of what the service returns, deserializer for the caller).
_RESPONSE_CODECS = {
    (WORKER_SERVICE, "RecvTensor"): (tensor_codec.encode_recv_tensor_response,
                                     tensor_codec.decode_recv_tensor_response),
}

# gRPC lets a message be at most 4 MiB by default; tensors are bigger.
# As TensorFlow's channels: no message size limit, and a task that comes back is reached
# again within a second (gRPC's default backoff grows to two minutes).
CHANNEL_OPTIONS = [("grpc.max_send_message_length", -1),
                   ("grpc.max_receive_message_length", -1),
                   ("grpc.max_reconnect_backoff_ms", 1000)]


def method_path(service, method):
    """The full gRPC method name, e.g. /tensorflow.MasterService/RunStep."""
    return f"/{service}/{method}"


def generic_handler(service, methods, impl):
    """A grpc generic handler serving `methods` of `service` by `impl.<Method>`
    (request, context) -> response."""
    import grpc

    handlers = {}
    for name, (req, resp) in methods.items():
        fn = getattr(impl, name, None)
        if fn is None:
            continue
        codec = _RESPONSE_CODECS.get((service, name))
        handlers[name] = grpc.unary_unary_rpc_method_handler(
            _guarded(fn), request_deserializer=req.FromString,
            response_serializer=codec[0] if codec else resp.SerializeToString)
    return grpc.method_handlers_generic_handler(service, handlers)


def _guarded(fn):
    """Maps a tf.errors exception raised by a service method to its gRPC status."""
    import grpc

    def call(request, context):
        try:
            return fn(request, context)
        except errors.OpError as e:
            context.abort(_grpc_code(e.error_code), e.message)
        except (ValueError, TypeError, KeyError) as e:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, f"{type(e).__name__}: {e}")
    return call


def _grpc_code(code):
    import grpc
    for sc in grpc.StatusCode:
        if sc.value[0] == code:
            return sc
    return grpc.StatusCode.UNKNOWN


class Stub:
    """Calls one service at one address: `stub.call("RunStep", request, timeout)`."""

    def __init__(self, channel, service, methods):
        self._calls = {}
        for name, (req, resp) in methods.items():
            codec = _RESPONSE_CODECS.get((service, name))
            self._calls[name] = channel.unary_unary(
                method_path(service, name), request_serializer=req.SerializeToString,
                response_deserializer=codec[1] if codec else resp.FromString)

    def call(self, method, request, timeout=None, what=""):
        """The response of `method`.

        Raises:
          OpError: the tf.errors class of the gRPC status (UnavailableError when the
            peer is gone, DeadlineExceededError past `timeout` seconds).
        """
        import grpc
        try:
            return self._calls[method](request, timeout=timeout)
        except grpc.RpcError as e:
            raise error_from_rpc(e, what or method) from None

    def start(self, method, request, timeout=None, what=""):
        """Starts `method` without waiting: a Pending whose `result()` is the response."""
        return Pending(self._calls[method].future(request, timeout=timeout), what or method)


class Pending:
    """A call in flight (Stub.start)."""

    def __init__(self, future, what):
        self._future = future
        self._what = what

    def result(self):
        """The response, waiting for it (the call's own timeout bounds the wait).

        Raises:
          OpError: as Stub.call.
        """
        import grpc
        try:
            return self._future.result()
        except grpc.RpcError as e:
            raise error_from_rpc(e, self._what) from None
        except grpc.FutureCancelledError:
            raise errors.CancelledError(None, None, f"{self._what} was cancelled") from None

    def cancel(self):
        self._future.cancel()


class LocalStub:
    """Calls a service object of this process directly, as `Stub` would over gRPC
    (TensorFlow's master also calls its own task's worker without an RPC)."""

    def __init__(self, impl):
        self._impl = impl

    def call(self, method, request, timeout=None, what=""):
        """The response of `impl.<method>`; errors as Stub.call raises them."""
        try:
            return getattr(self._impl, method)(request, _LocalContext(timeout))
        except errors.OpError:
            raise
        except (ValueError, TypeError, KeyError) as e:
            raise errors.InvalidArgumentError(None, None,
                                              f"{type(e).__name__}: {e}") from None


class _LocalContext:
    """The part of a grpc ServicerContext the services read: the time left."""

    __slots__ = ("_deadline",)

    def __init__(self, timeout):
        self._deadline = None if timeout is None else time.monotonic() + timeout

    def time_remaining(self):
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - time.monotonic())


def error_from_rpc(e, what):
    """The tf.errors exception for a failed gRPC call `e`."""
    code = e.code() if callable(getattr(e, "code", None)) else None
    num = code.value[0] if code is not None else errors.UNKNOWN
    if num == errors.OK:
        num = errors.UNKNOWN
    details = e.details() if callable(getattr(e, "details", None)) else str(e)
    cls = errors.exception_type_from_error_code(num)
    if num in (errors.UNAVAILABLE, errors.DEADLINE_EXCEEDED) and what:
        details = f"{details} (in {what})"
    return cls(None, None, details or f"{what} failed")


def open_channel(address):
    """An insecure gRPC channel to "host:port" (TF's protocol has no authentication)."""
    import grpc
    return grpc.insecure_channel(address, options=CHANNEL_OPTIONS)


# -- tensors ---------------------------------------------------------------------------
def to_tensor_proto(value, proto=None):
    """`value` (an ndarray or NumPy scalar) as a TensorProto; numbers travel as raw
    `tensor_content` bytes, strings as `string_val`."""
    arr = np.asarray(value)
    if proto is None:
        proto = tensor_pb2.TensorProto()
    if arr.dtype.kind in "OSU":
        proto.CopyFrom(_tensor_proto.make_tensor_proto(arr))
        return proto
    dt = dtypes.as_dtype(arr.dtype)
    proto.dtype = dt.as_datatype_enum
    shape = proto.tensor_shape
    for d in arr.shape:
        shape.dim.add(size=d)
    if arr.size:
        proto.tensor_content = np.ascontiguousarray(arr).tobytes()
    return proto


_DT_STRING = 7


def from_tensor_proto(proto, writable=True):
    """The ndarray a TensorProto holds: a writable array the caller owns, or with
    `writable=False` one that may be read-only (what kernels take: one copy less)."""
    if proto.tensor_content and proto.dtype != _DT_STRING:
        dt = dtypes.as_dtype(proto.dtype)
        dims = [d.size for d in proto.tensor_shape.dim]
        arr = np.frombuffer(proto.tensor_content, dtype=dt.as_numpy_dtype).reshape(dims)
        return arr.copy() if writable else arr
    return np.array(_tensor_proto.make_ndarray(proto))


def shape_proto(dims):
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])
