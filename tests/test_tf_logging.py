"""tf.logging on the "trainflow" logger: levels, verbosity, caller attribution, counters."""
import logging
import subprocess
import sys

import pytest

from trainflow._src import tf_logging


@pytest.fixture
def records(caplog):
    caplog.set_level(logging.DEBUG, logger="trainflow")
    return caplog


def _messages(caplog):
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "trainflow"]


def test_level_constants():
    assert (tf_logging.DEBUG, tf_logging.INFO, tf_logging.WARN, tf_logging.WARNING,
            tf_logging.ERROR, tf_logging.FATAL) == (10, 20, 30, 30, 40, 50)


def test_logger_is_named_trainflow():
    logger = tf_logging.get_logger()
    assert isinstance(logger, logging.Logger) and logger.name == "trainflow"
    assert tf_logging.get_logger() is logger


def test_level_functions(records):
    tf_logging.debug("d %d", 1)
    tf_logging.info("i %s", "x")
    tf_logging.warn("w")
    tf_logging.warning("w2")
    tf_logging.error("e")
    tf_logging.fatal("f")
    tf_logging.log(tf_logging.INFO, "l")
    tf_logging.TaskLevelStatusMessage("status")
    assert _messages(records) == [(10, "d 1"), (20, "i x"), (30, "w"), (30, "w2"), (40, "e"),
                                  (50, "f"), (20, "l"), (40, "status")]


def test_set_and_get_verbosity(records):
    tf_logging.set_verbosity(tf_logging.ERROR)
    assert tf_logging.get_verbosity() == tf_logging.ERROR
    tf_logging.info("hidden")
    tf_logging.error("shown")
    assert _messages(records) == [(40, "shown")]


def test_records_name_the_caller(records):
    tf_logging.info("where")
    line = sys._getframe().f_lineno - 1
    record = records.records[-1]
    assert record.pathname == __file__
    assert record.lineno == line
    assert record.funcName == "test_records_name_the_caller"
    tf_logging.get_logger().warning("direct")
    assert records.records[-1].pathname == __file__


def test_vlog_and_log_if(records):
    tf_logging.vlog(tf_logging.WARN, "v")
    tf_logging.vlog(1, "below debug")       # level 1 < DEBUG: filtered
    tf_logging.log_if(tf_logging.INFO, "yes %d", True, 1)
    tf_logging.log_if(tf_logging.INFO, "no", False)
    assert _messages(records) == [(30, "v"), (20, "yes 1")]


def test_log_every_n_and_first_n(records):
    for i in range(10):
        tf_logging.log_every_n(tf_logging.INFO, "every %d", 3, i)
    for i in range(10):
        tf_logging.log_first_n(tf_logging.INFO, "first %d", 2, i)
    assert [m for _, m in _messages(records)] == [
        "every 0", "every 3", "every 6", "every 9", "first 0", "first 1"]


def test_counters_are_per_call_site(records):
    for _ in range(2):
        tf_logging.log_first_n(tf_logging.INFO, "site a", 1)
        tf_logging.log_first_n(tf_logging.INFO, "site b", 1)
    assert [m for _, m in _messages(records)] == ["site a", "site b"]


def test_flush_flushes_handlers():
    flushed = []

    class Handler(logging.Handler):
        def emit(self, record):
            pass

        def flush(self):
            flushed.append(True)

    handler = Handler()
    logger = tf_logging.get_logger()
    logger.addHandler(handler)
    try:
        tf_logging.flush()
    finally:
        logger.removeHandler(handler)
    assert flushed


def test_default_handler_and_level_in_fresh_process():
    code = ("from trainflow._src import tf_logging as L\n"
            "L.info('not shown')\n"
            "L.warning('warn %d', 7)\n"
            "L.set_verbosity(L.INFO)\n"
            "L.info('now shown')\n"
            "L.fatal('still running')\n"
            "print('alive')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert proc.stdout == "alive\n"
    assert proc.stderr.splitlines() == [
        "WARNING:trainflow:warn 7", "INFO:trainflow:now shown", "CRITICAL:trainflow:still running"]
