"""FileWriterCache: one shared FileWriter per log directory."""
import threading

from trainflow._src.framework.graph import get_default_graph
from trainflow._src.summary.writer import FileWriter


class FileWriterCache:
    """Cache of FileWriters by logdir (`tf.summary.FileWriterCache`)."""

    _cache = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir):
        """Returns the FileWriter for `logdir`, creating it with the default graph.

        Args:
          logdir: the log directory.

        Returns:
          A FileWriter shared by every caller asking for the same logdir.
        """
        with FileWriterCache._lock:
            if logdir not in FileWriterCache._cache:
                FileWriterCache._cache[logdir] = FileWriter(logdir, graph=get_default_graph())
            return FileWriterCache._cache[logdir]

    @staticmethod
    def clear():
        """Closes every cached FileWriter and empties the cache."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}
