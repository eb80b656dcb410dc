"""The per-thread stack of default sessions (`tf.get_default_session`)."""
import contextlib
import threading


class _SessionStack(threading.local):
    def __init__(self):
        self.stack = []


_stack = _SessionStack()


def get_default_session():
    """The innermost session entered with `as_default()` (or `with Session()`), or None."""
    return _stack.stack[-1] if _stack.stack else None


def has_default_session():
    return bool(_stack.stack)


@contextlib.contextmanager
def default_session(session):
    """Context manager making `session` the default session of this thread."""
    _stack.stack.append(session)
    try:
        yield session
    finally:
        if _stack.stack and _stack.stack[-1] is session:
            _stack.stack.pop()
        elif session in _stack.stack:
            _stack.stack.remove(session)
