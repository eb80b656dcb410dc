"""`tf.test.StubOutForTesting`: replace attributes of modules, classes or objects for a
test and put the originals back on `CleanUp` (or at the end of a `with` block)."""
import inspect

__all__ = ["StubOutForTesting"]


class StubOutForTesting:
    """Stubs with undo: `Set` swaps an attribute where it is named, `SmartSet` where it is
    defined (the class in the MRO, for an attribute an instance inherits)."""

    def __init__(self):
        self.cache = []
        self.stubs = []

    def __del__(self):
        self.CleanUp()

    def __enter__(self):
        return self

    def __exit__(self, unused_exc_type, unused_exc_value, unused_tb):
        self.CleanUp()

    def CleanUp(self):  # noqa: N802 - TF's names
        """Undoes every stub."""
        self.SmartUnsetAll()
        self.UnsetAll()

    def SmartSet(self, obj, attr_name, new_attr):  # noqa: N802
        """Replaces `obj.attr_name`, on the class that holds it when `obj` inherits it."""
        if inspect.ismodule(obj) or (not inspect.isclass(obj) and attr_name in obj.__dict__):
            orig_obj = obj
            orig_attr = getattr(obj, attr_name)
        else:
            mro = list(inspect.getmro(obj if inspect.isclass(obj) else obj.__class__))
            orig_obj, orig_attr, found = None, None, False
            for cls in reversed(mro):
                try:
                    orig_attr = getattr(obj, attr_name)
                except AttributeError:
                    continue
                orig_obj, found = cls, True
            if not found:
                raise AttributeError("Attribute not found.")
        if isinstance(obj.__dict__.get(attr_name), staticmethod):
            orig_attr = staticmethod(orig_attr)
        self.stubs.append((orig_obj, attr_name, orig_attr))
        setattr(orig_obj, attr_name, new_attr)

    def SmartUnsetAll(self):  # noqa: N802
        """Undoes the SmartSet stubs, newest first."""
        for args in reversed(self.stubs):
            setattr(*args)
        self.stubs = []

    def Set(self, parent, child_name, new_child):  # noqa: N802
        """Replaces `parent.child_name`."""
        old_child = getattr(parent, child_name)
        if isinstance(parent.__dict__.get(child_name), staticmethod):
            old_child = staticmethod(old_child)
        self.cache.append((parent, old_child, child_name))
        setattr(parent, child_name, new_child)

    def UnsetAll(self):  # noqa: N802
        """Undoes the Set stubs, newest first."""
        for parent, old_child, child_name in reversed(self.cache):
            setattr(parent, child_name, old_child)
        self.cache = []
