"""Tensors on the wire, TF's method paths, and status codes <-> tf.errors."""
import numpy as np
import pytest

from trainflow._src.framework import errors
from trainflow._src.distributed import wire


@pytest.mark.parametrize("value", [
    np.arange(12, dtype=np.float32).reshape(3, 4),
    np.array([[1, -2]], dtype=np.int64),
    np.array(7, dtype=np.int32),
    np.float64(2.5),
    np.zeros((0, 3), dtype=np.float32),
    np.array([True, False]),
    np.array([1 + 2j], dtype=np.complex64),
    np.array([b"ab", b""], dtype=object),
])
def test_tensor_round_trip(value):
    proto = wire.to_tensor_proto(value)
    back = wire.from_tensor_proto(proto)
    assert back.dtype == np.asarray(value).dtype
    np.testing.assert_array_equal(back, value)
    assert back.flags.writeable


def test_numbers_travel_as_raw_content():
    proto = wire.to_tensor_proto(np.ones((2, 2), np.float32))
    assert proto.tensor_content == np.ones(4, np.float32).tobytes()
    assert not proto.float_val
    assert [d.size for d in proto.tensor_shape.dim] == [2, 2]


def test_method_paths_are_tensorflows():
    # TF's C++ servers register these exact names (grpc_master_service_impl.cc,
    # grpc_worker_service_impl.cc).
    assert wire.method_path(wire.MASTER_SERVICE, "RunStep") == "/tensorflow.MasterService/RunStep"
    assert wire.method_path(wire.WORKER_SERVICE, "RecvTensor") == \
        "/tensorflow.WorkerService/RecvTensor"
    assert set(wire.MASTER_METHODS) == {
        "CreateSession", "ExtendSession", "PartialRunSetup", "RunStep", "CloseSession",
        "ListDevices", "Reset", "MakeCallable", "RunCallable", "ReleaseCallable"}
    assert {"GetStatus", "CreateWorkerSession", "RegisterGraph", "RunGraph", "RecvTensor",
            "CleanupGraph", "DeregisterGraph", "CleanupAll"} <= set(wire.WORKER_METHODS)


class _FakeRpcError(Exception):
    def __init__(self, code, details):
        self._code, self._details = code, details

    def code(self):
        return self._code

    def details(self):
        return self._details


@pytest.mark.parametrize("name,cls", [
    ("UNAVAILABLE", errors.UnavailableError), ("ABORTED", errors.AbortedError),
    ("DEADLINE_EXCEEDED", errors.DeadlineExceededError),
    ("FAILED_PRECONDITION", errors.FailedPreconditionError),
    ("INVALID_ARGUMENT", errors.InvalidArgumentError), ("NOT_FOUND", errors.NotFoundError),
])
def test_status_maps_to_tf_error(name, cls):
    import grpc
    err = wire.error_from_rpc(_FakeRpcError(getattr(grpc.StatusCode, name), "boom"), "RunStep")
    assert type(err) is cls
    assert "boom" in err.message


class _Service:
    def Echo(self, request, context):  # noqa: N802 - gRPC method names
        return request, context.time_remaining()

    def Fails(self, request, context):  # noqa: N802
        raise errors.AbortedError(None, None, "restarted")

    def BadArg(self, request, context):  # noqa: N802
        raise ValueError("no such graph")


def test_local_stub_calls_in_process_like_a_stub():
    stub = wire.LocalStub(_Service())
    request = object()
    got, remaining = stub.call("Echo", request, 5.0)
    assert got is request and 4.0 < remaining <= 5.0
    assert stub.call("Echo", request)[1] is None
    with pytest.raises(errors.AbortedError, match="restarted"):
        stub.call("Fails", request)
    # What a gRPC handler reports as INVALID_ARGUMENT, the local call raises as such.
    with pytest.raises(errors.InvalidArgumentError, match="no such graph"):
        stub.call("BadArg", request)


def test_read_only_tensor_for_kernels():
    proto = wire.to_tensor_proto(np.arange(6, dtype=np.float32).reshape(2, 3))
    got = wire.from_tensor_proto(proto, writable=False)
    np.testing.assert_array_equal(got, np.arange(6).reshape(2, 3))
    assert got.dtype == np.float32 and not got.flags.writeable
