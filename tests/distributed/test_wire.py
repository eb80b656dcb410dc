"""Tensors on the wire, TF's method paths, and status codes <-> tf.errors."""
import numpy as np
import pytest

from trainflow.framework import errors
from trainflow.distributed import wire


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
