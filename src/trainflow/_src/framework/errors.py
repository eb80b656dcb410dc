"""TensorFlow's error classes (`tf.errors`): OpError and its canonical-code subclasses."""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """An error raised while running (or preparing to run) a graph op.

    Args:
      node_def: the NodeDef proto of the failing op, or None.
      op: the failing Operation, or None.
      message: what went wrong.
      error_code: one of the canonical codes in this module.
    """

    def __init__(self, node_def, op, message, error_code=UNKNOWN, *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    def __reduce__(self):
        return (type(self), (self._node_def, None, self._message)
                if type(self) is not OpError else
                (self._node_def, None, self._message, self._error_code))

    @property
    def message(self):
        """The error message."""
        return self._message

    @property
    def op(self):
        """The Operation that failed, or None."""
        return self._op

    @property
    def node_def(self):
        """The NodeDef of the failing op, or None."""
        if self._node_def is None and self._op is not None:
            self._node_def = self._op.node_def
        return self._node_def

    @property
    def error_code(self):
        """The canonical error code."""
        return self._error_code

    def __str__(self):
        return self._message


def _make(name, code, doc):
    def __init__(self, node_def, op, message, *args):  # noqa: N807 - the class's __init__
        OpError.__init__(self, node_def, op, message, code)
    cls = type(name, (OpError,), {"__init__": __init__, "__doc__": doc,
                                  "__module__": __name__})
    return cls


CancelledError = _make("CancelledError", CANCELLED, "An operation or step was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An error of unknown kind.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT,
                             "An op received an invalid argument.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED,
                              "A deadline expired before the operation completed.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS,
                           "An entity we tried to create already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED,
                              "The caller may not run the operation.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED,
                             "The request lacks valid credentials.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED,
                               "Some resource has been exhausted.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
                                "The system is not in a state to run the operation "
                                "(for example, an uninitialized variable was read).")
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE,
                        "An operation iterated past the valid range (e.g. a closed queue).")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED,
                           "The operation is not implemented or not supported.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is not available.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")

_CODE_TO_CLASS = {
    CANCELLED: CancelledError, UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError, DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError, ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError, UNAUTHENTICATED: UnauthenticatedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError, FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError, OUT_OF_RANGE: OutOfRangeError, UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError, UNAVAILABLE: UnavailableError, DATA_LOSS: DataLossError,
}


def exception_type_from_error_code(error_code):
    """Returns the OpError subclass for a canonical error code."""
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls):
    """Returns the canonical error code of an OpError subclass."""
    for code, c in _CODE_TO_CLASS.items():
        if c is cls:
            return code
    raise KeyError(cls)


class raise_exception_on_not_ok_status:  # noqa: N801 - TF's name
    """Context manager kept for TF1 compatibility; errors are raised directly."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
