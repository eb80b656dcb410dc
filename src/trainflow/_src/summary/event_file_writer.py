"""EventFileWriter: appends Event protos to an event file from a background thread.

The file is `<logdir>/events.out.tfevents.<seconds, %010d>.<hostname><suffix>`,
TFRecord framed, and starts with a `file_version: "brain.Event:2"` event whose
wall_time is the creation time in whole seconds, as TensorFlow's C++
EventsWriter writes it.
"""
import atexit
import collections
import os
import socket
import threading
import time
import weakref

from trainflow._src.formats.tfrecord import TFRecordWriter, appending_writer
from trainflow._src.framework import errors
from trainflow._src.gfile.paths import os_error
from trainflow._src.protos import event_pb2

FILE_VERSION = "brain.Event:2"
SOURCE_WRITER = "trainflow._src.summary.event_file_writer"

# Writers still open; flushed and closed at interpreter exit.
_OPEN_WRITERS = weakref.WeakSet()


def _close_open_writers():
    for writer in list(_OPEN_WRITERS):
        try:
            writer.close()
        except Exception:  # noqa: BLE001 - keep closing the others at exit
            pass


atexit.register(_close_open_writers)


def event_file_name(logdir, seconds, filename_suffix=None):
    """The path TF gives an event file created at `seconds` on this host."""
    name = "events.out.tfevents.%010d.%s" % (seconds, socket.gethostname())
    return os.path.join(logdir, name + (filename_suffix or ""))


def make_logdir(logdir):
    """Creates `logdir` (and its parents) as TF's FileWriter does.

    Raises:
      FailedPreconditionError: `logdir`, or a folder on its way, is an existing file
        ("<that path> is not a directory", as TF words it).
      PermissionDeniedError / other tf.errors: for the other OS errors.
    """
    try:
        os.makedirs(logdir, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as e:
        blocker = logdir
        probe = logdir
        while probe and probe != os.path.dirname(probe):
            if os.path.lexists(probe) and not os.path.isdir(probe):
                blocker = probe
            probe = os.path.dirname(probe)
        raise errors.FailedPreconditionError(None, None, f"{blocker} is not a directory") \
            from e
    except OSError as e:
        raise os_error(e, logdir) from None


class _EventFile:
    """The open event file; created with its file_version event on first use."""

    def __init__(self, logdir, filename_suffix):
        self._logdir = logdir
        self._suffix = filename_suffix
        self._writer = None
        self.path = None

    def _open(self):
        seconds = int(time.time())
        path = event_file_name(self._logdir, seconds, self._suffix)
        if self.path == path and os.path.exists(path):
            # Reopened within the same second: keep appending to the same file.
            self._writer = appending_writer(path)
            return
        self.path = path
        self._writer = TFRecordWriter(path)
        first = event_pb2.Event(wall_time=float(seconds), file_version=FILE_VERSION)
        first.source_metadata.writer = SOURCE_WRITER
        self._writer.write(first.SerializeToString())
        self._writer.flush()

    def ensure_open(self):
        """Creates the file (and logdir) if it is not open yet."""
        if self._writer is None:
            make_logdir(self._logdir)
            self._open()

    def write(self, serialized_event):
        """Appends one serialized Event."""
        self.ensure_open()
        self._writer.write(serialized_event)

    def flush(self):
        """Pushes written events to disk; recreates the file if it was deleted."""
        if self._writer is None:
            return
        self._writer.flush()
        if not os.path.exists(self.path):
            # TF's EventsWriter starts a new file when the old one vanished.
            self._writer.close()
            self._writer = None
            self.path = None
            self.ensure_open()

    def close(self):
        """Closes the file; a later write opens a new one."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None


class EventFileWriter:
    """Writes Event protos to an event file in `logdir`, asynchronously.

    Events queue up (at most `max_queue`; add_event blocks beyond that) and a
    background thread writes them, flushing at least every `flush_secs`
    seconds. The file is also flushed on flush(), close() and interpreter exit.

    Args:
      logdir: the directory to write to (created if missing).
      max_queue: how many events may wait before add_event blocks.
      flush_secs: how often, in seconds, pending events are flushed to disk.
      filename_suffix: appended to the event file's name.
    """

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=None):
        self._logdir = str(logdir)
        make_logdir(self._logdir)
        self._max_queue = max(int(max_queue), 1)
        self._wake_at = max(self._max_queue // 2, 1)
        self._flush_secs = flush_secs
        self._file = _EventFile(self._logdir, filename_suffix)
        self._file.ensure_open()
        self._closed = True
        self._start()

    def _start(self):
        self._queue = collections.deque()
        self._cond = threading.Condition()
        self._stop = False
        self._flush_requests = 0
        self._flushes_done = 0
        self._failure = None
        self._closed = False
        self._start_thread()
        _OPEN_WRITERS.add(self)

    def _start_thread(self):
        self._thread = threading.Thread(target=self._run, name="EventFileWriter",
                                        daemon=True)
        self._thread.start()

    def get_logdir(self):
        """Returns the directory events are written to."""
        return self._logdir

    @property
    def path(self):
        """The path of the current event file (None before the first one)."""
        return self._file.path

    def add_event(self, event):
        """Queues an Event proto (or its serialization) for writing.

        A no-op on a closed writer, as in TF.

        Raises:
          The error the writer thread hit since the last call, if writing failed;
          `event` and every event not yet written stay queued for the next try.
        """
        if self._closed:
            return
        with self._cond:
            while len(self._queue) >= self._max_queue and not self._stop \
                    and self._failure is None:
                self._cond.wait()
            self._queue.append(event)
            # Wake the writer thread only once a batch is waiting (or on flush, close
            # and every flush_secs): a wake-up per event costs the caller GIL hand-offs.
            if len(self._queue) >= self._wake_at:
                self._cond.notify_all()
            self._raise_failure()

    def flush(self):
        """Blocks until every queued event is written and flushed to disk."""
        if self._closed:
            return
        with self._cond:
            self._flush_requests += 1
            wanted = self._flush_requests
            self._cond.notify_all()
            while self._flushes_done < wanted and self._failure is None:
                self._cond.wait()
            self._raise_failure()

    def close(self):
        """Flushes and closes the file and stops the thread. Closing twice is allowed."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            with self._cond:
                self._stop = True
                self._cond.notify_all()
            self._thread.join()
            self._closed = True
            self._file.close()
            _OPEN_WRITERS.discard(self)

    def reopen(self):
        """Restarts a closed writer; events then go to a new event file."""
        if self._closed:
            self._start()

    def _raise_failure(self):
        """Raises the writer thread's error once (holding the lock); the events it could
        not write stay queued and a new thread retries them."""
        if self._failure is not None:
            failure, self._failure = self._failure, None
            self._flushes_done = self._flush_requests
            self._start_thread()
            raise failure

    def _run(self):
        last_flush = time.monotonic()
        while True:
            with self._cond:
                while (not self._queue and self._flushes_done == self._flush_requests
                       and not self._stop):
                    timeout = self._flush_secs - (time.monotonic() - last_flush)
                    if timeout <= 0:
                        break
                    self._cond.wait(timeout)
                batch = list(self._queue)
                self._queue.clear()
                flush_wanted = self._flush_requests
                stop = self._stop
                self._cond.notify_all()   # room in the queue again
            written = 0
            try:
                for event in batch:
                    self._file.write(event if isinstance(event, bytes)
                                     else event.SerializeToString())
                    written += 1
                if flush_wanted != self._flushes_done or stop or \
                        time.monotonic() - last_flush >= self._flush_secs:
                    self._file.flush()
                    last_flush = time.monotonic()
            except Exception as e:  # noqa: BLE001 - handed to the caller's thread
                with self._cond:
                    # Keep what was not written, in order, for the next attempt.
                    self._queue.extendleft(reversed(batch[written:]))
                    self._failure = e
                    self._cond.notify_all()
                return
            with self._cond:
                self._flushes_done = flush_wanted
                self._cond.notify_all()
            if stop:
                return
