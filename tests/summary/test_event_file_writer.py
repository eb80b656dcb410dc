"""EventFileWriter: queueing, flushing, closing, and the at-exit flush."""
import glob
import os
import subprocess
import sys
import threading

from trainflow._src.formats.tfrecord import tf_record_iterator
from trainflow._src.protos import event_pb2
from trainflow._src.summary.event_file_writer import EventFileWriter


def _records(logdir):
    (path,) = glob.glob(os.path.join(str(logdir), "events.out.tfevents.*"))
    return [event_pb2.Event.FromString(r) for r in tf_record_iterator(path)]


def test_flush_writes_everything_queued(tmp_path):
    writer = EventFileWriter(str(tmp_path), max_queue=3, flush_secs=1000)
    for step in range(50):
        writer.add_event(event_pb2.Event(step=step, wall_time=1.0))
    writer.flush()
    assert [e.step for e in _records(tmp_path)[1:]] == list(range(50))
    writer.close()
    writer.close()


def test_serialized_events_are_accepted(tmp_path):
    writer = EventFileWriter(str(tmp_path))
    writer.add_event(event_pb2.Event(step=7).SerializeToString())
    writer.close()
    assert _records(tmp_path)[1].step == 7


def test_flush_secs_flushes_without_being_asked(tmp_path):
    writer = EventFileWriter(str(tmp_path), flush_secs=0.05)
    writer.add_event(event_pb2.Event(step=1))
    done = threading.Event()
    for _ in range(200):  # the thread flushes within flush_secs; poll up to 2 s
        if len(_records(tmp_path)) == 2:
            done.set()
            break
        done.wait(0.01)
    writer.close()
    assert done.is_set()


def test_add_event_on_closed_writer_is_a_noop(tmp_path):
    writer = EventFileWriter(str(tmp_path))
    writer.close()
    writer.add_event(event_pb2.Event(step=1))
    writer.flush()
    assert len(_records(tmp_path)) == 1


def test_many_threads_add_events(tmp_path):
    writer = EventFileWriter(str(tmp_path), max_queue=2)

    def add(start):
        for i in range(100):
            writer.add_event(event_pb2.Event(step=start + i))

    threads = [threading.Thread(target=add, args=(k * 1000,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    writer.close()
    steps = sorted(e.step for e in _records(tmp_path)[1:])
    assert steps == sorted(k * 1000 + i for k in range(4) for i in range(100))


def test_deleted_file_is_recreated_on_flush(tmp_path):
    writer = EventFileWriter(str(tmp_path))
    first = writer.path
    os.remove(first)
    writer.add_event(event_pb2.Event(step=1))
    writer.flush()
    writer.add_event(event_pb2.Event(step=2))
    writer.close()
    events = _records(tmp_path)
    assert events[0].file_version == "brain.Event:2"
    assert events[-1].step == 2


def test_pending_events_are_written_at_interpreter_exit(tmp_path):
    code = ("from trainflow._src.summary.event_file_writer import EventFileWriter\n"
            "from trainflow._src.protos import event_pb2\n"
            f"w = EventFileWriter({str(tmp_path)!r}, flush_secs=1000)\n"
            "for i in range(20): w.add_event(event_pb2.Event(step=i))\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    assert [e.step for e in _records(tmp_path)[1:]] == list(range(20))


def test_write_error_surfaces_at_the_next_call_and_loses_nothing(tmp_path):
    writer = EventFileWriter(str(tmp_path), max_queue=2, flush_secs=1000)
    real_write = writer._file.write
    failures = []

    def failing_write(data):
        if event_pb2.Event.FromString(data).step == 3 and not failures:
            failures.append(1)
            raise OSError("No space left on device")
        real_write(data)

    writer._file.write = failing_write
    raised = []
    for step in range(10):
        try:
            writer.add_event(event_pb2.Event(step=step))
        except OSError as e:
            raised.append(str(e))
    try:
        writer.flush()
    except OSError as e:
        raised.append(str(e))
    writer.close()
    assert raised == ["No space left on device"]
    assert [e.step for e in _records(tmp_path)[1:]] == list(range(10))
