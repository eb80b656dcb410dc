"""The per-thread stack of default sessions (`tf.get_default_session`)."""
import threading

from trainflow.framework.scopes import nesting_controller


class _SessionStack(threading.local):
    def __init__(self):
        self.stack = []


_stack = _SessionStack()


def get_default_session():
    """The innermost session entered with `as_default()` (or `with Session()`), or None."""
    return _stack.stack[-1] if _stack.stack else None


def has_default_session():
    """True if some session is the default session of this thread."""
    return bool(_stack.stack)


def default_session(session, enforce_nesting=True):
    """Context manager making `session` the default session of this thread.

    Raises:
      AssertionError: on exit, if `enforce_nesting` and blocks were exited out of order.
    """
    return nesting_controller(_stack.stack, session, enforce_nesting)
