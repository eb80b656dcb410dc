"""The hook protocol of `MonitoredSession` (`tf.train.SessionRunHook` and its arguments).

A hook sees a training loop at five points: `begin` (graph may still change),
`after_create_session`, `before_run` / `after_run` around every `run` call, and `end`.
"""
import collections


class SessionRunHook:
    """Base class of hooks: every method does nothing; override the ones you need."""

    def begin(self):
        """Called once before the session is created; the graph may still be changed."""

    def after_create_session(self, session, coord):  # noqa: ARG002 - TF's signature
        """Called when a new session exists (after init/restore, before the first run)."""

    def before_run(self, run_context):  # noqa: ARG002 - TF's signature
        """Called before each `run`. Returns None or a `SessionRunArgs` to add to it."""
        return None

    def after_run(self, run_context, run_values):  # noqa: ARG002 - TF's signature
        """Called after each successful `run` with the results this hook asked for."""

    def end(self, session):  # noqa: ARG002 - TF's signature
        """Called once at the end of the session (not after an exception)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs",
                                            ["fetches", "feed_dict", "options"])):
    """What a hook adds to a `run` call: fetches, feeds and RunOptions.

    Args:
      fetches: anything `Session.run` accepts; the hook gets its values in `after_run`.
      feed_dict: extra feeds (a tensor may be fed by only one party).
      options: a RunOptions proto, merged with the caller's and the other hooks'.
    """

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """The `run` call a hook is looking at, and a way to ask the loop to stop."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        """The `SessionRunArgs` the caller passed to `run`."""
        return self._original_args

    @property
    def session(self):
        """The raw session running the step (safe to call `run` on)."""
        return self._session

    @property
    def stop_requested(self):
        """True once a hook called `request_stop`."""
        return self._stop_requested

    def request_stop(self):
        """Makes `should_stop()` of the monitored session return True after this step."""
        self._stop_requested = True


class SessionRunValues(collections.namedtuple("SessionRunValues",
                                              ["results", "options", "run_metadata"])):
    """What `after_run` receives: the values of the hook's fetches, the merged RunOptions
    of the step and its RunMetadata."""
