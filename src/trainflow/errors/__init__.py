"""`tf.errors`: the error codes and the `OpError` exception classes."""
from trainflow._src.framework.errors import (  # noqa: F401
    ABORTED, ALREADY_EXISTS, AbortedError, AlreadyExistsError, CANCELLED, CancelledError,
    DATA_LOSS, DEADLINE_EXCEEDED, DataLossError, DeadlineExceededError, FAILED_PRECONDITION,
    FailedPreconditionError, INTERNAL, INVALID_ARGUMENT, InternalError,
    InvalidArgumentError, NOT_FOUND, NotFoundError, OK, OUT_OF_RANGE, OpError,
    OutOfRangeError, PERMISSION_DENIED, PermissionDeniedError, RESOURCE_EXHAUSTED,
    ResourceExhaustedError, UNAUTHENTICATED, UNAVAILABLE, UNIMPLEMENTED, UNKNOWN,
    UnauthenticatedError, UnavailableError, UnimplementedError, UnknownError,
    error_code_from_exception_type, exception_type_from_error_code,
    raise_exception_on_not_ok_status)
