"""TensorBoard's EventAccumulator reads the event files FileWriter writes.

The fixture's events are replayed through our FileWriter; TensorBoard must then
report what it reported for TF's own file (tensorboard_accumulator.json), wall
times aside. Runs TF/TensorBoard through $TRAINFLOW_TF_PYTHON; skipped when unset.
"""
import glob
import json
import os


from trainflow._src.protos import config_pb2, graph_pb2
from trainflow._src.summary.summary_iterator import summary_iterator
from trainflow._src.summary.writer import FileWriter

from fixture_paths import EVENTS
from tf_interop import needs_tf, run_json

pytestmark = needs_tf

_ACCUMULATE = r'''
import hashlib, json, sys
from tensorboard.backend.event_processing import event_accumulator as ea
acc = ea.EventAccumulator(sys.argv[1], size_guidance={k: 0 for k in (
    ea.COMPRESSED_HISTOGRAMS, ea.IMAGES, ea.AUDIO, ea.SCALARS, ea.HISTOGRAMS, ea.TENSORS)})
acc.Reload()
tags = acc.Tags()
out = {
    "tags": {k: (sorted(v) if isinstance(v, list) else v) for k, v in tags.items()},
    "file_version": acc.file_version,
    "scalars": {t: [[e.step, e.value] for e in acc.Scalars(t)] for t in tags["scalars"]},
    "histograms": {t: [[e.step, e.histogram_value.num, list(e.histogram_value.bucket)]
                       for e in acc.Histograms(t)] for t in tags["histograms"]},
    "images": {t: [[e.step, hashlib.sha256(e.encoded_image_string).hexdigest()]
                   for e in acc.Images(t)] for t in tags["images"]},
    "audio": {t: [[e.step, e.sample_rate] for e in acc.Audio(t)] for t in tags["audio"]},
    "tensors": {t: [e.step for e in acc.Tensors(t)] for t in tags["tensors"]},
    "graph_node_count": len(acc.Graph().node),
}
print(json.dumps(out))
'''


def test_tensorboard_reads_our_event_file(tmp_path):
    (fixture,) = glob.glob(os.path.join(EVENTS, "events.out.tfevents.*"))
    writer = FileWriter(str(tmp_path))
    for event in list(summary_iterator(fixture))[1:]:
        kind = event.WhichOneof("what")
        if kind == "summary":
            writer.add_summary(event.summary, event.step)
        elif kind == "session_log":
            writer.add_session_log(event.session_log, event.step)
        elif kind == "graph_def":
            writer.add_graph(graph_pb2.GraphDef.FromString(event.graph_def))
        elif kind == "tagged_run_metadata":
            writer.add_run_metadata(
                config_pb2.RunMetadata.FromString(event.tagged_run_metadata.run_metadata),
                event.tagged_run_metadata.tag, event.step)
    writer.close()

    got = run_json(_ACCUMULATE, str(tmp_path), timeout=600)
    with open(os.path.join(EVENTS, "tensorboard_accumulator.json")) as f:
        want = json.load(f)

    for kind in ("images", "audio", "histograms", "scalars", "distributions", "tensors",
                 "run_metadata", "graph", "meta_graph"):
        assert got["tags"][kind] == want["tags"][kind], kind
    assert got["file_version"] == want["file_version"] == 2.0
    for tag, points in want["scalars"].items():
        assert got["scalars"][tag] == [[p["step"], p["value"]] for p in points]
    for tag, points in want["histograms"].items():
        assert got["histograms"][tag] == [
            [p["step"], p["histogram_value"]["num"], p["histogram_value"]["bucket"]]
            for p in points]
    for tag, points in want["images"].items():
        assert got["images"][tag] == [[p["step"], p["encoded_sha256"]] for p in points]
    for tag, points in want["audio"].items():
        assert got["audio"][tag] == [[p["step"], p["sample_rate"]] for p in points]
    for tag, points in want["tensors"].items():
        assert got["tensors"][tag] == [p["step"] for p in points]
    assert got["graph_node_count"] == want["graph_node_count"]
