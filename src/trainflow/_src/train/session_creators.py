"""Session creators of `MonitoredSession`: the chief initializes or restores the model,
the other workers wait until it is ready."""
import abc

from trainflow._src.framework.graph import get_default_graph
from trainflow._src.train.scaffold import Scaffold
from trainflow._src.train.session_manager import SessionManager


class SessionCreator(abc.ABC):
    """Makes a `tf.Session` for a monitored session."""

    @abc.abstractmethod
    def create_session(self):
        """Returns a new session."""


class _ScaffoldSessionCreator(SessionCreator):
    """A creator whose sessions come from a `SessionManager` built (once) from the
    scaffold's ops."""

    def __init__(self, scaffold, master, config):
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config

    def _get_session_manager(self):
        if self._session_manager is None:
            self._session_manager = SessionManager(
                local_init_op=self._scaffold.local_init_op,
                local_init_feed_dict=self._scaffold.local_init_feed_dict,
                ready_op=self._scaffold.ready_op,
                ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=get_default_graph())
        return self._session_manager


class ChiefSessionCreator(_ScaffoldSessionCreator):
    """Creates a session on the chief: restores the latest checkpoint of
    `checkpoint_dir` (or `checkpoint_filename_with_path`) or initializes the model."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        super().__init__(scaffold, master, config)
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config, init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict, init_fn=self._scaffold.init_fn)


class WorkerSessionCreator(_ScaffoldSessionCreator):
    """Creates a session on a non-chief worker: waits (up to `max_wait_secs`) until the
    chief has initialized the model."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        super().__init__(scaffold, master, config)
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(
            self._master, config=self._config, max_wait_secs=self._max_wait_secs)
