"""`tf.Module`: the base of objects that own variables and other modules. A module opens
its name scope once when it is made and re-enters that same scope later
(`name_scope`, `with_name_scope`); `variables`, `trainable_variables` and `submodules`
walk its attributes (lists, tuples and dicts included) the way TensorFlow's does."""
import functools
import re

from trainflow._src.framework.scopes import get_default_graph
from trainflow._src.ops.state.variables import Variable

_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")
_CAMEL_1 = re.compile(r"(.)([A-Z][a-z0-9]+)")
_CAMEL_2 = re.compile(r"([a-z])([A-Z])")


def _camel_to_snake(name):
    return _CAMEL_2.sub(r"\1_\2", _CAMEL_1.sub(r"\1_\2", name)).lower()


class Module:
    """A named container of `tf.Variable`s and other `tf.Module`s.

    Args:
      name: the module's name (a Python identifier); the class name in snake case when
        None. It opens a name scope that every `name_scope` use re-enters.
    """

    # Attributes the walks skip (TensorFlow skips its own bookkeeping the same way).
    _TF_MODULE_IGNORED_PROPERTIES = frozenset(("_self_unconditional_checkpoint_dependencies",
                                               "_self_unconditional_dependency_names"))

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError(
                f"'{name}' is not a valid module name. Module names must be valid Python "
                "identifiers (e.g. a valid class name).")
        self._name = name
        with get_default_graph().name_scope(name) as scope_name:
            self._scope_name = scope_name

    @property
    def name(self):
        """The name given when the module was made (without its scope prefix)."""
        return self._name

    @property
    def name_scope(self):
        """A context manager re-entering the module's name scope (its `name` is the
        scope string, ending in "/")."""
        return _ModuleScope(self._scope_name)

    @property
    def variables(self):
        """Every variable this module and its sub-modules own, in attribute order."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        """The trainable ones among `variables`."""
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self):
        """The non-trainable ones among `variables`."""
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self):
        """Every module reachable from this one's attributes (breadth first), not itself."""
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None,
                 with_path=False, expand_composites=False):
        """Yields the leaves of the attribute tree that `predicate` accepts."""
        predicate = predicate or (lambda _: True)
        return _walk(self, recursive, predicate, attribute_traversal_key, with_path,
                     self._TF_MODULE_IGNORED_PROPERTIES)

    @classmethod
    def with_name_scope(cls, method):
        """Decorates `method` so that it runs inside the module's name scope."""
        @functools.wraps(method)
        def call_in_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return call_in_scope


class _ModuleScope:
    """Re-enters a module's absolute name scope in the default graph."""

    def __init__(self, name):
        self.name = name
        self._cm = None

    def __enter__(self):
        self._cm = get_default_graph().name_scope(self.name)
        return self._cm.__enter__()

    def __exit__(self, *exc):
        cm, self._cm = self._cm, None
        return cm.__exit__(*exc)


def _is_variable(obj):
    return isinstance(obj, Variable)


def _is_trainable_variable(obj):
    return isinstance(obj, Variable) and getattr(obj, "trainable", False)


def _is_non_trainable_variable(obj):
    return isinstance(obj, Variable) and not getattr(obj, "trainable", False)


def _is_module(obj):
    return isinstance(obj, Module)


def _children(value, path):
    """(path, child) pairs of a container value; none for a leaf."""
    if isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError:
            keys = list(value)
        return [(path + (k,), value[k]) for k in keys]
    if isinstance(value, (list, tuple)):
        return [(path + (i,), v) for i, v in enumerate(value)]
    return []


def _walk(root, recursive, predicate, key, with_path, ignored):
    """Breadth first over modules, depth first inside one module's attributes; each
    object is reported once."""
    visited = {id(root)}
    emitted = set()
    queue = [((), root)]
    results = []
    while queue:
        module_path, module = queue.pop(0)
        attrs = vars(module)
        names = sorted(attrs, key=key) if key else sorted(attrs)
        for name in names:
            if name in ignored:
                continue
            stack = [(module_path + (name,), attrs[name])]
            while stack:
                path, value = stack.pop(0)
                children = _children(value, path)
                if children:
                    stack[0:0] = children
                    continue
                if predicate(value) and id(value) not in emitted:
                    emitted.add(id(value))
                    results.append((path, value) if with_path else value)
                if recursive and isinstance(value, Module) and id(value) not in visited:
                    visited.add(id(value))
                    queue.append((path, value))
    return results
