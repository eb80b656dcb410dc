"""The reader resources behind TF's reader ops: each takes work (file names) from a
queue and turns it into (key, value) records, as TF's ReaderBase does.

`read_up_to` never spans two work units: it returns at the end of a file with what
it has, and raises OutOfRangeError (from the queue) only when it has nothing.
"""
import threading

import numpy as np

from trainflow._src.formats import tfrecord, zlib_stream
from trainflow._src.framework import errors
from trainflow._src.protos.reader_base_pb2 import ReaderBaseState


def _str(b):
    return b.decode("utf-8", "surrogateescape") if isinstance(b, bytes) else str(b)


class ReaderBase:
    """Counts work units and records; subclasses produce the records of one unit."""

    kind = "ReaderBase"
    supports_serialize = False

    def __init__(self, name):
        self.name = name
        self.lock = threading.Lock()
        self._reset_base()

    def _reset_base(self):
        self.work = None
        self.work_started = 0
        self.work_finished = 0
        self.num_records_produced = 0
        self._on_reset()

    # -- subclass hooks ---------------------------------------------------------------
    def _on_reset(self):
        pass

    def _start(self, work):
        """Opens work unit `work` (bytes)."""

    def _read(self, n):
        """Up to `n` (key, value) pairs of the current unit and whether it is done."""
        raise NotImplementedError

    def _finish(self):
        pass

    # -- the verbs --------------------------------------------------------------------
    def _next_work(self, rs, queue):
        work = queue.dequeue(rs)[0]
        work = work[()] if isinstance(work, np.ndarray) else work
        return work if isinstance(work, bytes) else str(work).encode()

    def read_up_to(self, rs, queue, n):
        """Lists of keys and values: up to `n` records of one work unit.

        Raises:
          OutOfRangeError: when the queue is closed and empty before any record.
        """
        keys, values = [], []
        with self.lock:
            while len(keys) < n:
                if self.work is None:
                    work = self._next_work(rs, queue)
                    self._start(work)
                    self.work = work
                    self.work_started += 1
                got, at_end = self._read(n - len(keys))
                for k, v in got:
                    keys.append(k)
                    values.append(v)
                self.num_records_produced += len(got)
                if at_end:
                    self._finish()
                    self.work = None
                    self.work_finished = self.work_started
                    if keys:
                        break
        return keys, values

    def reset(self):
        with self.lock:
            if self.work is not None:
                self._finish()
            self._reset_base()

    def serialize_state(self):
        if not self.supports_serialize:
            raise errors.UnimplementedError(
                None, None, "Reader SerializeState and RestoreState not supported by this "
                            "reader")
        with self.lock:
            return ReaderBaseState(work_started=self.work_started,
                                   work_finished=self.work_finished,
                                   num_records_produced=self.num_records_produced,
                                   current_work=self.work or b"").SerializeToString()

    def restore_state(self, state):
        if not self.supports_serialize:
            raise errors.UnimplementedError(
                None, None, "Reader SerializeState and RestoreState not supported by this "
                            "reader")
        proto = ReaderBaseState()
        try:
            proto.ParseFromString(state)
        except Exception:  # noqa: BLE001 - any parse failure is TF's InvalidArgument
            raise errors.InvalidArgumentError(
                None, None, f"Could not parse state for {self.kind} '{self.name}': "
                            f"{state[:40]!r}") from None
        if proto.work_started < 0 or proto.work_finished < 0 or \
                proto.num_records_produced < 0 or proto.work_finished > proto.work_started:
            raise errors.InvalidArgumentError(
                None, None, f"Unexpected state for {self.kind} '{self.name}': "
                            f"{proto}".strip())
        with self.lock:
            self.work_started = proto.work_started
            self.work_finished = proto.work_finished
            self.num_records_produced = proto.num_records_produced
            self.work = proto.current_work or None
            if self.work is not None:
                self._start(self.work)

    def close(self):
        """Teardown by the resource manager."""
        if self.work is not None:
            self._finish()


class IdentityReader(ReaderBase):
    """Outputs each work string as both key and value."""

    kind = "IdentityReader"
    supports_serialize = True

    def _start(self, work):
        self._pending = [work]

    def _read(self, n):
        out = [(w, w) for w in self._pending]
        self._pending = []
        return out, True


class WholeFileReader(IdentityReader):
    """Outputs each file name and the file's whole contents."""

    kind = "WholeFileReader"

    def _read(self, n):
        work = self.work
        with zlib_stream.open_file(_str(work), "rb") as f:
            data = f.read()
        return [(work, data)], True


class TFRecordReader(ReaderBase):
    """Outputs the records of TFRecord files; keys are "file:offset"."""

    kind = "TFRecordReader"

    def __init__(self, name, compression_type):
        super().__init__(name)
        self.compression_type = compression_type or None

    def _on_reset(self):
        self._it = None

    def _start(self, work):
        self._it = tfrecord.tf_record_iterator(_str(work), self.compression_type)
        self._records = iter(self._it)

    def _read(self, n):
        out = []
        it = self._it
        prefix = self.work + b":"
        records = self._records
        offset = it.offset
        for _ in range(n):
            try:
                rec = next(records)
            except StopIteration:
                return out, True
            out.append((b"%s%d" % (prefix, offset), rec))
            offset = it.offset
        return out, False

    def _finish(self):
        if self._it is not None:
            self._it.close()
            self._it = None


class TextLineReader(ReaderBase):
    """Outputs the lines of text files (newline removed); keys are "file:line"."""

    kind = "TextLineReader"

    def __init__(self, name, skip_header_lines):
        super().__init__(name)
        self.skip_header_lines = skip_header_lines

    def _on_reset(self):
        self._file = None

    def _start(self, work):
        self._file = zlib_stream.open_file(_str(work), "rb")
        self._line = 0
        for _ in range(self.skip_header_lines):
            if not self._file.readline():
                break
            self._line += 1

    def _read(self, n):
        out = []
        prefix = self.work + b":"
        readline = self._file.readline
        for _ in range(n):
            line = readline()
            if not line:
                return out, True
            self._line += 1
            if line.endswith(b"\n"):
                line = line[:-1]
            if line.endswith(b"\r"):
                line = line[:-1]
            out.append((prefix + str(self._line).encode(), line))
        return out, False

    def _finish(self):
        if self._file is not None:
            self._file.close()
            self._file = None


class FixedLengthRecordReader(ReaderBase):
    """Outputs fixed-size records between a header and a footer; keys are
    "file:record_number". With `hop_bytes`, record k starts at header + k*hop."""

    kind = "FixedLengthRecordReader"

    def __init__(self, name, header_bytes, record_bytes, footer_bytes, hop_bytes, encoding):
        super().__init__(name)
        self.header_bytes = header_bytes
        self.record_bytes = record_bytes
        self.footer_bytes = footer_bytes
        self.hop_bytes = hop_bytes
        self.encoding = encoding or None

    def _on_reset(self):
        self._data = None

    def _start(self, work):
        path = _str(work)
        with zlib_stream.open_file(path, "rb") as f:
            if self.encoding:
                source = zlib_stream.ZlibSource(f, path, self.encoding == "GZIP")
                parts = []
                while True:
                    chunk = source.read(1 << 20)
                    if not chunk:
                        break
                    parts.append(chunk)
                data = b"".join(parts)
            else:
                data = f.read()
        self._data = data
        self._end = len(data) - self.footer_bytes
        self._pos = self.header_bytes
        self._record = 0

    def _read(self, n):
        out = []
        prefix = self.work + b":"
        step = self.hop_bytes or self.record_bytes
        for _ in range(n):
            if self._pos + self.record_bytes > self._end:
                return out, True
            out.append((prefix + str(self._record).encode(),
                        self._data[self._pos:self._pos + self.record_bytes]))
            self._pos += step
            self._record += 1
        return out, False

    def _finish(self):
        self._data = None
