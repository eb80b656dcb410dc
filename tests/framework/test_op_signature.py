"""framework/op_signature.py: how an op's inputs group into its signature's arguments."""
import trainflow.compat.v1 as tf
from trainflow._src.framework.op_signature import input_groups


def test_input_groups_follow_the_signature():
    with tf.Graph().as_default():
        a = tf.constant(1.0)
        n = tf.add_n([a, a, a])
        i = tf.identity(a)
    assert input_groups(n.op) == [3]
    assert input_groups(i.op) == [None]
