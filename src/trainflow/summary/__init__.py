"""The `tf.summary` namespace (TF1): summary ops, FileWriter, FileWriterCache, event protos."""
# --- event files and their protos ---
from trainflow._src.summary.writer import FileWriter  # noqa: F401
from trainflow._src.summary.writer_cache import FileWriterCache  # noqa: F401
from trainflow._src.protos.event_pb2 import Event, SessionLog, TaggedRunMetadata  # noqa: F401
from trainflow._src.protos.summary_pb2 import Summary, SummaryDescription  # noqa: F401

# --- summary ops ---
from trainflow._src.ops.summary.summary_ops import (  # noqa: F401
    all_v2_summary_ops, audio, get_summary_description, histogram, image, merge, merge_all, scalar,
    tensor_summary, text)
