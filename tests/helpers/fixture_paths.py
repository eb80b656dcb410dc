"""Where the golden fixture files (written by real TensorFlow) are: `tests/fixtures/` in this
checkout. `tests/fixtures/generate.py` writes them again against a TensorFlow install."""
import glob
import os

_TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(_TESTS, "fixtures")
EVENTS = os.path.join(FIXTURES, "events")


def events_file():
    """The event file TensorFlow wrote among the fixtures."""
    return glob.glob(os.path.join(EVENTS, "events.out.tfevents.*"))[0]
