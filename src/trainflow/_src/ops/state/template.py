"""`tf.make_template`: a function wrapped so that every call shares the variables its
first call created (`tf.get_variable` under one variable scope, reused from the second
call on), as TensorFlow's `Template` does it."""
import functools
import traceback

from trainflow._src import tf_logging as logging
from trainflow._src.framework.graph import get_default_graph
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.ops.state import variable_scope as vs

__all__ = ["Template", "make_template"]


def _skip_common_stack_elements(stacktrace, base_case):
    """The part of `stacktrace` after the frames it shares with `base_case`."""
    for i, (trace, base) in enumerate(zip(stacktrace, base_case)):
        if trace != base:
            return stacktrace[i:]
    return stacktrace[-1:]


class Template:
    """A function whose variables are created by its first call and shared by the rest.

    Raises (on a call):
      ValueError: if a call after the first creates a trainable variable (a
        `tf.Variable` where `tf.get_variable` was meant).
    """

    def __init__(self, name, func, create_scope_now=False, unique_name=None,
                 custom_getter=None, create_graph_function=False):
        if create_graph_function:
            raise ValueError("create_graph_function needs eager execution's tf.function, "
                             "which a TF1 graph program does not have.")
        self._func = func
        self._stacktrace = traceback.format_stack()[:-2]
        self._name = name
        self._unique_name = unique_name
        self._custom_getter = custom_getter
        if name is None:
            raise ValueError("name cannot be None.")
        if create_scope_now:
            scope_name = unique_name or vs._unique_variable_scope(name)
            with vs._PureVariableScope(scope_name, custom_getter=custom_getter) as scope:
                self._variable_scope = scope
        else:
            self._variable_scope = None
        self._variables_created = False
        self._first_call = True

    def _call_func(self, args, kwargs):
        graph = get_default_graph()
        try:
            vars_at_start = len(graph.get_collection(GraphKeys.GLOBAL_VARIABLES))
            trainable_at_start = len(graph.get_collection(GraphKeys.TRAINABLE_VARIABLES))
            result = self._func(*args, **kwargs)
            if self._variables_created:
                trainable = graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)
                if trainable_at_start != len(trainable):
                    raise ValueError(
                        "Trainable variable created when calling a template after the first "
                        "time, perhaps you used tf.Variable when you meant tf.get_variable: "
                        f"{trainable[trainable_at_start:]}")
                variables = graph.get_collection(GraphKeys.GLOBAL_VARIABLES)
                if vars_at_start != len(variables):
                    logging.info("New variables created when calling a template after the "
                                 "first time, perhaps you used tf.Variable when you meant "
                                 "tf.get_variable: %s", variables[vars_at_start:])
            elif self._first_call:
                self._first_call = False
            self._variables_created = True
            return result
        except Exception as exc:
            # Name where the template was made, as TensorFlow does.
            arg0 = exc.args[0] if exc.args else ""
            trace = "".join(_skip_common_stack_elements(self._stacktrace,
                                                        traceback.format_stack()))
            exc.args = (f"{arg0}\n\noriginally defined at:\n{trace}",) + exc.args[1:]
            raise

    def __call__(self, *args, **kwargs):
        if self._variable_scope:
            with vs.variable_scope(self._variable_scope, reuse=not self._first_call):
                return self._call_func(args, kwargs)
        with vs.variable_scope(self._unique_name, self._name,
                               custom_getter=self._custom_getter) as scope:
            self._variable_scope = scope
            return self._call_func(args, kwargs)

    @property
    def name(self):
        """The name given to make_template."""
        return self._name

    @property
    def func(self):
        """The wrapped function."""
        return self._func

    @property
    def variable_scope(self):
        """The template's VariableScope (None before the first call, unless made now)."""
        return self._variable_scope

    @property
    def variable_scope_name(self):
        """The variable scope's name with a trailing "/" (a collection filter)."""
        if self._variable_scope:
            name = self._variable_scope.name
            return name if not name or name[-1] == "/" else name + "/"
        return None

    def _collection(self, key):
        if not self._variables_created:
            return []
        return get_default_graph().get_collection(key, self.variable_scope_name)

    @property
    def variables(self):
        """The global and local variables of the template's scope."""
        return self.global_variables + self.local_variables

    @property
    def trainable_variables(self):
        """The trainable variables of the template's scope."""
        return self._collection(GraphKeys.TRAINABLE_VARIABLES)

    @property
    def non_trainable_variables(self):
        """The global variables of the scope that are not trainable."""
        trainable = set(self.trainable_variables)
        return [v for v in self.global_variables if v not in trainable]

    @property
    def global_variables(self):
        """The global variables of the template's scope."""
        return self._collection(GraphKeys.GLOBAL_VARIABLES)

    @property
    def local_variables(self):
        """The local variables of the template's scope."""
        return self._collection(GraphKeys.LOCAL_VARIABLES)

    @property
    def weights(self):
        """`variables`."""
        return self.variables

    @property
    def trainable_weights(self):
        """`trainable_variables`."""
        return self.trainable_variables

    @property
    def non_trainable_weights(self):
        """`non_trainable_variables`."""
        return self.non_trainable_variables

    @property
    def var_scope(self):
        """The deprecated name of `variable_scope`."""
        return self._variable_scope


def make_template(name_, func_, create_scope_now_=False, unique_name_=None,
                  custom_getter_=None, **kwargs):
    """`func_` wrapped as a Template: its first call creates its variables under a new
    variable scope named after `name_` (made unique), and later calls reuse them. Extra
    keyword arguments are bound to `func_`."""
    if kwargs:
        func_ = functools.update_wrapper(functools.partial(func_, **kwargs), func_)
    return Template(name_, func_, create_scope_now=create_scope_now_,
                    unique_name=unique_name_, custom_getter=custom_getter_)
