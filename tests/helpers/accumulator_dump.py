"""What TensorBoard's EventAccumulator reads from a log directory, as JSON without wall
times: tags by kind, scalars, histograms, images (decoded pixels), audio (decoded
samples), tensors, run metadata tags, and the graph's node names. Runs in TensorFlow's
python (TensorBoard and TensorFlow installed):

    python tests/helpers/accumulator_dump.py LOGDIR
"""
import io
import json
import sys
import wave

import numpy as np


def _samples(wav_bytes):
    with wave.open(io.BytesIO(wav_bytes)) as w:
        frames = np.frombuffer(w.readframes(w.getnframes()), "<i2")
        return {"channels": w.getnchannels(), "rate": w.getframerate(),
                "width": w.getsampwidth(), "samples": frames.tolist()}


def dump(logdir):
    """The accumulator's view of `logdir` as a JSON-ready dict."""
    import tensorflow as tf
    from tensorboard.backend.event_processing import event_accumulator as ea
    acc = ea.EventAccumulator(logdir, size_guidance={k: 0 for k in ea.DEFAULT_SIZE_GUIDANCE})
    acc.Reload()
    tags = {k: sorted(v) if isinstance(v, list) else v for k, v in acc.Tags().items()}
    out = {"tags": tags, "scalars": {}, "histograms": {}, "images": {}, "audio": {},
           "tensors": {}}
    for tag in tags["scalars"]:
        out["scalars"][tag] = [[e.step, e.value] for e in acc.Scalars(tag)]
    for tag in tags["histograms"]:
        out["histograms"][tag] = [
            [e.step, [getattr(e.histogram_value, f) for f in
                      ("min", "max", "num", "sum", "sum_squares")],
             list(e.histogram_value.bucket_limit), list(e.histogram_value.bucket)]
            for e in acc.Histograms(tag)]
    for tag in tags["images"]:
        out["images"][tag] = [[e.step, e.width, e.height,
                               tf.io.decode_png(e.encoded_image_string).numpy().tolist()]
                              for e in acc.Images(tag)]
    for tag in tags["audio"]:
        out["audio"][tag] = [[e.step, e.content_type, e.sample_rate, e.length_frames,
                              _samples(e.encoded_audio_string)] for e in acc.Audio(tag)]
    for tag in tags["tensors"]:
        out["tensors"][tag] = [
            [e.step, str(tf.make_ndarray(e.tensor_proto).dtype),
             tf.make_ndarray(e.tensor_proto).tolist() if e.tensor_proto.dtype != 7 else
             [s.decode() for s in np.asarray(tf.make_ndarray(e.tensor_proto)).reshape(-1)]]
            for e in acc.Tensors(tag)]
    out["run_metadata"] = {tag: len(acc.RunMetadata(tag).step_stats.dev_stats) > 0
                           for tag in tags["run_metadata"]}
    out["graph_nodes"] = sorted(n.name for n in acc.Graph().node)
    out["meta_graph_nodes"] = sorted(n.name for n in acc.MetaGraph().graph_def.node)
    return out


if __name__ == "__main__":
    print(json.dumps(dump(sys.argv[1])))
