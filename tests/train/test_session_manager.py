"""tf.train.SessionManager and tf.train.Scaffold."""
import pytest

import trainflow.compat.v1 as tf


def _vars():
    v = tf.get_variable("v", [], initializer=tf.constant_initializer(2.0))
    local = tf.get_variable("local", [], initializer=tf.constant_initializer(5.0),
                            collections=[tf.GraphKeys.LOCAL_VARIABLES])
    return v, local


def test_prepare_session_initializes_and_checks_readiness():
    with tf.Graph().as_default():
        v, local = _vars()
        sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables(),
                                     local_init_op=tf.local_variables_initializer())
        sess = sm.prepare_session("", init_op=tf.global_variables_initializer())
        assert sess.run([v, local]) == [2.0, 5.0]
        with pytest.raises(RuntimeError, match="Init operations did not make model ready"):
            sm.prepare_session("", init_op=tf.no_op())
        with pytest.raises(RuntimeError, match="no init_op or init_fn or local_init_op"):
            tf.train.SessionManager().prepare_session("")
    with pytest.raises(ValueError, match="must also pass a ready_op"):
        tf.train.SessionManager(ready_for_local_init_op=tf.constant([], tf.string))


def test_recover_and_prepare_from_checkpoint(tmp_path):
    with tf.Graph().as_default():
        v, _ = _vars()
        saver = tf.train.Saver([v])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(v.assign(7.0))
            saver.save(sess, str(tmp_path / "model.ckpt"), global_step=1)
        sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables([v]))
        sess, initialized = sm.recover_session("", saver=saver, checkpoint_dir=str(tmp_path))
        assert initialized and sess.run(v) == 7.0
        sess, initialized = sm.recover_session("", saver=saver,
                                               checkpoint_dir=str(tmp_path / "none"))
        assert not initialized
        sess = sm.prepare_session("", init_op=tf.global_variables_initializer(), saver=saver,
                                  checkpoint_dir=str(tmp_path))
        assert sess.run(v) == 7.0
        with pytest.raises(ValueError, match="Can not provide both"):
            sm.prepare_session("", saver=saver, checkpoint_dir=str(tmp_path),
                               checkpoint_filename_with_path="x")


def test_wait_for_session_times_out():
    with tf.Graph().as_default():
        _vars()
        sm = tf.train.SessionManager(ready_op=tf.report_uninitialized_variables(),
                                     recovery_wait_secs=0.01)
        with pytest.raises(tf.errors.DeadlineExceededError, match="not ready after waiting"):
            sm.wait_for_session("", max_wait_secs=0.05)


def test_scaffold_defaults_and_collections():
    with tf.Graph().as_default() as g:
        _vars()
        scaffold = tf.train.Scaffold().finalize()
        assert g.finalized
        assert g.get_collection(tf.GraphKeys.INIT_OP) == [scaffold.init_op]
        assert g.get_collection(tf.GraphKeys.READY_OP) == [scaffold.ready_op]
        assert g.get_collection(tf.GraphKeys.SAVERS) == [scaffold.saver]
        assert scaffold.summary_op is None
        copy = tf.train.Scaffold(copy_from_scaffold=scaffold)
        assert copy.init_op is scaffold.init_op and copy.saver is scaffold.saver
    with pytest.raises(TypeError, match="not a Scaffold"):
        tf.train.Scaffold(copy_from_scaffold=object())
    with tf.Graph().as_default():
        tf.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
        tf.add_to_collection(tf.GraphKeys.INIT_OP, tf.no_op())
        with pytest.raises(RuntimeError, match="More than one item in the collection init_op"):
            tf.train.Scaffold().finalize()


def test_scaffold_init_fn_receives_scaffold_and_session():
    seen = []
    with tf.Graph().as_default():
        v, _ = _vars()
        scaffold = tf.train.Scaffold(init_fn=lambda sc, sess: seen.append((sc, sess.run(v))))
        with tf.train.MonitoredSession(
                session_creator=tf.train.ChiefSessionCreator(scaffold=scaffold)):
            pass
    assert seen == [(scaffold, 2.0)]
