"""The per-thread stack of default sessions (`tf.get_default_session`), and running a
fetch in the default session (`Tensor.eval`, `Operation.run`) without the runtime:
a session is anything with `graph` and `run(fetches, feed_dict)`."""
import threading

from trainflow._src.framework.default_stack import nesting_controller


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


def run_using_default_session(fetch, feed_dict, graph, session=None, is_tensor=False):
    """Runs `fetch` (of `graph`) in `session`, or in the default session.

    Args:
      is_tensor: word the errors for `Tensor.eval()` rather than `Operation.run()`.

    Raises:
      ValueError: without a default session, or for a session of another graph.
    """
    if session is None:
        session = get_default_session()
        if session is None:
            what = "evaluate tensor using `eval()`" if is_tensor else \
                "execute operation using `run()`"
            colon = "" if is_tensor else ":"
            raise ValueError(f"Cannot {what}: No default session is registered. Use `with "
                             f"sess.as_default(){colon}` or pass an explicit session to "
                             f"`{'eval' if is_tensor else 'run'}"
                             "(session=sess)`")
        if session.graph is not graph:
            raise ValueError("Cannot use the default session to evaluate tensor: the tensor's "
                             "graph is different from the session's graph. Pass an explicit "
                             "session to `eval(session=sess)`.")
    elif session.graph is not graph:
        raise ValueError("Cannot use the given session to evaluate tensor: the tensor's graph "
                         "is different from the session's graph.")
    return session.run(fetch, feed_dict)
