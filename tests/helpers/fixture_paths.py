"""Where the shared fixture files (written by TensorFlow) are: $TRAINFLOW_FIXTURES, else the
first `shared/fixtures` folder beside the checkout or beside one of its parent folders (a
worktree sits a level or two below the main checkout's parent)."""
import glob
import os

_REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _beside_the_checkout():
    candidates = []
    folder = os.path.dirname(_REPO)
    while True:
        candidates.append(os.path.join(folder, "shared", "fixtures"))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return next((p for p in candidates if os.path.isdir(p)), candidates[0])


FIXTURES = os.environ.get("TRAINFLOW_FIXTURES") or _beside_the_checkout()
EVENTS = os.path.join(FIXTURES, "events")


def events_file():
    """The event file TensorFlow wrote among the fixtures."""
    return glob.glob(os.path.join(EVENTS, "events.out.tfevents.*"))[0]
