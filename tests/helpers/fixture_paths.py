"""Where the shared fixture files (written by TensorFlow) are: $TRAINFLOW_FIXTURES, else
the `shared/fixtures` folder beside the checkout, else /work/shared/fixtures."""
import glob
import os

_BESIDE = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                        "..", "shared", "fixtures"))
FIXTURES = os.environ.get("TRAINFLOW_FIXTURES") or next(
    (p for p in (_BESIDE, "/work/shared/fixtures") if os.path.isdir(p)), "/work/shared/fixtures")
EVENTS = os.path.join(FIXTURES, "events")


def events_file():
    """The event file TensorFlow wrote among the fixtures."""
    return glob.glob(os.path.join(EVENTS, "events.out.tfevents.*"))[0]
