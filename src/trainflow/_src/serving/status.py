"""The errors of the REST API: a canonical error code (TF Serving's absl::Status codes) with its
message, the HTTP status TF Serving answers it with, and the `{"error": ...}` body."""

# absl::StatusCode name -> HTTP status, as TF Serving's http_server.cc maps them.
HTTP_STATUS = {
    "OK": 200, "CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400,
    "DEADLINE_EXCEEDED": 504, "NOT_FOUND": 404, "ALREADY_EXISTS": 409,
    "PERMISSION_DENIED": 403, "RESOURCE_EXHAUSTED": 429, "FAILED_PRECONDITION": 400,
    "ABORTED": 409, "OUT_OF_RANGE": 400, "UNIMPLEMENTED": 501, "INTERNAL": 500,
    "UNAVAILABLE": 503, "DATA_LOSS": 500, "UNAUTHENTICATED": 401,
}

# tf.errors' canonical codes, by number (error_codes.proto).
_CODE_NAMES = ("OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
               "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
               "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
               "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED")


class ServingError(Exception):
    """A request that failed: `code` is the canonical error name (INVALID_ARGUMENT ...)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def http_status(self):
        return HTTP_STATUS.get(self.code, 500)

    def __str__(self):
        """absl::Status::ToString(): `CODE: message` (nested into other messages)."""
        return f"{self.code}: {self.message}"


def invalid_argument(*parts):
    return ServingError("INVALID_ARGUMENT", "".join(str(p) for p in parts))


def not_found(*parts):
    return ServingError("NOT_FOUND", "".join(str(p) for p in parts))


def from_tf_error(e):
    """A ServingError for an exception raised while running a Session: tf.errors classes keep
    their code; ValueError and TypeError (a feed that does not fit) are INVALID_ARGUMENT."""
    code = getattr(e, "error_code", None)
    if code is not None:
        name = _CODE_NAMES[code] if 0 <= code < len(_CODE_NAMES) else "UNKNOWN"
        return ServingError(name, getattr(e, "message", str(e)))
    if isinstance(e, (ValueError, TypeError)):
        return ServingError("INVALID_ARGUMENT", str(e))
    return ServingError("INTERNAL", f"{type(e).__name__}: {e}")
