"""The checkpoint and vocabulary files the warm_start tests start from."""
import numpy as np

import trainflow.compat.v1 as tf

OLD = np.arange(8, dtype=np.float32).reshape(4, 2)  # rows for vocab a, b, c, d


def write_warm_start_files(directory, new_vocab):
    """Saves `emb` (OLD), `out` (OLD.T: columns for a, b, c, d) and `w` to checkpoint
    `directory`/m, and writes old.txt (a, b, c, d) and new.txt (`new_vocab`, one word a
    line) there."""
    with tf.Graph().as_default():
        tf.Variable(OLD, name="emb")
        tf.Variable(OLD.T.copy(), name="out")
        tf.Variable([1.0, 2.0], name="w")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, str(directory / "m"))
    (directory / "old.txt").write_text("a\nb\nc\nd\n")
    (directory / "new.txt").write_text("".join(w + "\n" for w in new_vocab))
