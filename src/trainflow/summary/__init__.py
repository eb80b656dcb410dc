"""The `tf.summary` namespace (TF1): FileWriter, FileWriterCache; summary ops come later."""
# --- events: FileWriter, FileWriterCache (issue 3) ---
from trainflow.summary.writer import FileWriter  # noqa: F401
from trainflow.summary.writer_cache import FileWriterCache  # noqa: F401
from trainflow.protos.event_pb2 import Event, SessionLog, TaggedRunMetadata  # noqa: F401
from trainflow.protos.summary_pb2 import Summary, SummaryDescription  # noqa: F401
