"""A TF1 training-style program that writes every kind of summary to an event file;
run under TensorFlow and under trainflow for the side-by-side test:

    python tests/helpers/summary_program.py MODULE LOGDIR

Scalars (name scope, family, repeated name), histograms (float and int), images
(uint8 RGB, float grey with max_outputs, RGBA), audio (mono, stereo), text, a tensor
summary; merged with merge_all and fetched each step, plus a separate merge, session
logs, run metadata and the graph. Standard library and NumPy only.
"""
import importlib
import sys

import numpy as np

STEPS = 4


def main(module, logdir):
    tf = importlib.import_module(module)
    if hasattr(tf, "disable_v2_behavior"):
        tf.disable_v2_behavior()
    rs = np.random.RandomState(3)
    step_ph = tf.placeholder(tf.float32, [], name="step")
    with tf.name_scope("train"):
        loss = tf.square(1.0 / (1.0 + step_ph), name="loss_value")
        tf.summary.scalar("loss", loss)
        tf.summary.scalar("lr", 0.1 / (1.0 + step_ph), family="opt")
    tf.summary.scalar("twice", loss * 2.0)
    tf.summary.scalar("twice", loss * 3.0)  # tag "twice_1"
    weights = tf.placeholder(tf.float32, [200], name="weights")
    tf.summary.histogram("weights", weights)
    tf.summary.histogram("counts", tf.cast(weights * 10.0, tf.int32), family="ints")
    rgb = tf.placeholder(tf.uint8, [2, 5, 6, 3], name="rgb")
    grey = tf.placeholder(tf.float32, [3, 4, 4, 1], name="grey")
    rgba = tf.placeholder(tf.float32, [1, 3, 3, 4], name="rgba")
    tf.summary.image("rgb", rgb)
    tf.summary.image("grey", grey, max_outputs=2)
    tf.summary.image("rgba", rgba, max_outputs=1)
    mono = tf.placeholder(tf.float32, [2, 50], name="mono")
    stereo = tf.placeholder(tf.float32, [1, 30, 2], name="stereo")
    tf.summary.audio("mono", mono, 8000)
    tf.summary.audio("stereo", stereo, 22050.0, max_outputs=1)
    note = tf.placeholder(tf.string, [], name="note")
    tf.summary.text("notes", note)
    tf.summary.tensor_summary("matrix", tf.reshape(weights[:6], [2, 3]))
    merged = tf.summary.merge_all()
    extra = tf.summary.merge([tf.summary.scalar("extra", step_ph * 3.0, collections=[])])
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(logdir, sess.graph)
        writer.add_session_log(tf.SessionLog(status=tf.SessionLog.START), 0)
        for step in range(STEPS):
            feed = {step_ph: float(step), weights: rs.randn(200).astype(np.float32) * (step + 1),
                    rgb: rs.randint(0, 256, (2, 5, 6, 3)).astype(np.uint8),
                    grey: rs.randn(3, 4, 4, 1).astype(np.float32) + step,
                    rgba: rs.rand(1, 3, 3, 4).astype(np.float32),
                    mono: rs.uniform(-1.2, 1.2, (2, 50)).astype(np.float32),
                    stereo: rs.uniform(-1, 1, (1, 30, 2)).astype(np.float32),
                    note: ("step %d: **%s**" % (step, "ok" * step)).encode()}
            if step == 2:
                meta = tf.RunMetadata()
                summary, more = sess.run([merged, extra], feed, run_metadata=meta,
                                         options=tf.RunOptions(
                                             trace_level=tf.RunOptions.FULL_TRACE))
                writer.add_run_metadata(meta, "step_2", step)
            else:
                summary, more = sess.run([merged, extra], feed)
            writer.add_summary(summary, step)
            writer.add_summary(more, step)
        writer.add_session_log(tf.SessionLog(status=tf.SessionLog.STOP), STEPS)
        writer.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
