"""The TF1 `tf.summary.FileWriter`: turns summaries, graphs and run metadata
into Events and hands them to an EventFileWriter."""
import itertools
import logging
import os
import time
import warnings

from trainflow._src.framework.graph import Graph
from trainflow._src.framework.meta_graph import create_meta_graph_def
from trainflow._src.ops.state import variable_protos  # noqa: F401 - registers VariableDef I/O
from trainflow._src.protos import event_pb2, graph_pb2, meta_graph_pb2, summary_pb2
from trainflow._src.summary.event_file_writer import EventFileWriter

_log = logging.getLogger(__name__)


def _is_message(value, name):
    """True for a proto message of type `name`, ours or another package's (e.g. TF's)."""
    descriptor = getattr(value, "DESCRIPTOR", None)
    return descriptor is not None and getattr(descriptor, "name", None) == name \
        and hasattr(value, "SerializeToString")


def _is_graph(value):
    """Duck-typed Graph: anything with as_graph_def() that is not a GraphDef proto."""
    return callable(getattr(value, "as_graph_def", None)) and not _is_message(value, "GraphDef")


def _graph_def_of(graph):
    try:
        return graph.as_graph_def(add_shapes=True)
    except TypeError:  # a graph-like object without the add_shapes argument
        return graph.as_graph_def()


def _meta_graph_def(graph_def, graph=None):
    """The MetaGraphDef TF writes beside a graph given to the constructor: meta info,
    stripped op list and (for a Graph) its collections."""
    own = graph_pb2.GraphDef.FromString(graph_def.SerializeToString())
    return create_meta_graph_def(graph_def=own, graph=graph)


_SESSION_WRITERS = itertools.count()


def _session_file_suffix(filename_suffix):
    """The name tail of TF's summary-op file writer: `.<pid>.<n><suffix or .v2>`."""
    tail = ".v2" if filename_suffix is None else filename_suffix
    return f".{os.getpid()}.{next(_SESSION_WRITERS)}{tail}"


class FileWriter:
    """Writes Summary protos and other events to an event file in `logdir`.

    As `tf.compat.v1.summary.FileWriter`. With `graph` (a Graph, anything with
    `as_graph_def()`, or a GraphDef) the graph is written at once, together with
    a MetaGraphDef holding it.

    Args:
      logdir: directory for the event file (created if missing).
      graph: optional Graph or GraphDef to write.
      max_queue: how many events may wait before an add call blocks.
      flush_secs: how often, in seconds, pending events are flushed.
      graph_def: deprecated; a GraphDef to write.
      filename_suffix: appended to the event file's name.
      session: as in TF, the file is then named as TF's in-graph summary writer
        names it (`.<pid>.<n>` before the suffix, which defaults to `.v2`);
        events are written by this process's writer thread either way.
    """

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        if session is not None:
            filename_suffix = _session_file_suffix(filename_suffix)
        self.event_writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
        self._closed = False
        self._seen_summary_tags = set()
        self._session_run_tags = {}
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)
            chosen = graph_def if graph_def is not None else graph
            as_def = _graph_def_of(chosen) if _is_graph(chosen) else chosen
            self.add_meta_graph(
                _meta_graph_def(as_def, chosen if isinstance(chosen, Graph) else None))

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def get_logdir(self):
        """Returns the directory the event file is in."""
        return self.event_writer.get_logdir()

    def _warn_if_closed(self):
        if self._closed:
            warnings.warn("Attempting to use a closed FileWriter. The operation will be a "
                          "noop unless the FileWriter is explicitly reopened.", stacklevel=2)

    def _add_event(self, event, step):
        self._warn_if_closed()
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_event(self, event):
        """Writes an Event proto as it is (its wall_time and step included)."""
        self._warn_if_closed()
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None):
        """Writes a Summary (proto or serialized bytes) at `global_step`.

        Metadata is kept only on the first value seen with each tag, as TF does.
        """
        if isinstance(summary, bytes):
            summary = summary_pb2.Summary.FromString(summary)
        elif not isinstance(summary, summary_pb2.Summary):
            if not _is_message(summary, "Summary"):
                raise TypeError(f"add_summary expects a Summary proto or its serialized "
                                f"bytes, got {type(summary).__name__}")
            summary = summary_pb2.Summary.FromString(summary.SerializeToString())
        # TF means to skip values without metadata here, but its test is always
        # false for a message field, so every value's tag counts as seen; we do
        # the same, so later metadata for a tag is dropped exactly as TF drops it.
        for value in summary.value:
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
                continue
            self._seen_summary_tags.add(value.tag)
        self._add_event(event_pb2.Event(summary=summary), global_step)

    def add_session_log(self, session_log, global_step=None):
        """Writes a SessionLog (START, STOP, CHECKPOINT) at `global_step`."""
        event = event_pb2.Event()
        event.session_log.ParseFromString(session_log.SerializeToString())
        self._add_event(event, global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Writes a graph: a Graph (anything with as_graph_def()) or a GraphDef.

        Raises:
          ValueError: if both `graph` and `graph_def` are given.
          TypeError: if neither is a Graph or a GraphDef.
        """
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if _is_graph(graph) or _is_graph(graph_def):
            if not _is_graph(graph):
                _log.warning("When passing a `Graph` object, please use the `graph` named "
                             "argument instead of `graph_def`.")
                graph = graph_def
            true_graph_def = _graph_def_of(graph)
        elif _is_message(graph, "GraphDef") or _is_message(graph_def, "GraphDef"):
            _log.warning("Passing a `GraphDef` to the SummaryWriter is deprecated. Pass a "
                         "`Graph` object instead, such as `sess.graph`.")
            true_graph_def = graph if _is_message(graph, "GraphDef") else graph_def
        else:
            raise TypeError("The passed graph must be an instance of `Graph` or the "
                            "deprecated `GraphDef`")
        event = event_pb2.Event(graph_def=true_graph_def.SerializeToString())
        self._add_event(event, global_step)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Writes a MetaGraphDef.

        Raises:
          TypeError: if `meta_graph_def` is not a MetaGraphDef.
        """
        if not (isinstance(meta_graph_def, meta_graph_pb2.MetaGraphDef)
                or _is_message(meta_graph_def, "MetaGraphDef")):
            raise TypeError(f"meta_graph_def must be type MetaGraphDef, saw type: "
                            f"{type(meta_graph_def)}")
        event = event_pb2.Event(meta_graph_def=meta_graph_def.SerializeToString())
        self._add_event(event, global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Writes a RunMetadata under `tag` (a TaggedRunMetadata event).

        Raises:
          ValueError: if `tag` was used before by this writer.
        """
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags[tag] = True
        event = event_pb2.Event()
        event.tagged_run_metadata.tag = tag
        event.tagged_run_metadata.run_metadata = run_metadata.SerializeToString()
        self._add_event(event, global_step)

    def flush(self):
        """Writes every pending event to disk."""
        self._warn_if_closed()
        self.event_writer.flush()

    def close(self):
        """Flushes and closes the event file."""
        self.event_writer.close()
        self._closed = True

    def reopen(self):
        """Reopens a closed writer; new events go to a new event file."""
        self.event_writer.reopen()
        self._closed = False


# TF's pre-1.0 name for the same class (tf.train.SummaryWriter).
SummaryWriter = FileWriter
