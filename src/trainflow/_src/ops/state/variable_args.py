"""The constructor-argument checks every kind of variable shares (ref and resource)."""
import enum

from trainflow._src.framework import dtypes
from trainflow._src.framework.graph_keys import GraphKeys


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (`tf.VariableSynchronization`)."""
    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How updates of a distributed variable are combined (`tf.VariableAggregation`)."""
    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


def check_variable_args(initial_value, trainable, collections, constraint, dtype,
                        synchronization, aggregation, name):
    """The constructor checks every variable kind shares, as TF words them.

    Returns:
      (synchronization, aggregation, trainable, collections, dtype) with the defaults
      filled in (TRAINABLE_VARIABLES added for a trainable variable).

    Raises:
      ValueError: for a missing initial value, a collections argument that is not a list,
        tuple or set, or a constraint that is not callable.
    """
    synchronization, aggregation, trainable = validate_synchronization_aggregation_trainable(
        synchronization, aggregation, trainable, name)
    if initial_value is None:
        raise ValueError("initial_value must be specified.")
    if collections is None:
        collections = [GraphKeys.GLOBAL_VARIABLES]
    if not isinstance(collections, (list, tuple, set)):
        raise ValueError("collections argument to Variable constructor must be a list, "
                         f"tuple, or set. Got {collections} of type {type(collections)}")
    if constraint is not None and not callable(constraint):
        raise ValueError("The `constraint` argument must be a callable.")
    if trainable and GraphKeys.TRAINABLE_VARIABLES not in collections:
        collections = list(collections) + [GraphKeys.TRAINABLE_VARIABLES]
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    return synchronization, aggregation, trainable, collections, dtype


def validate_synchronization_aggregation_trainable(synchronization, aggregation, trainable,
                                                   name=None):
    """Resolves defaults: returns (synchronization, aggregation, trainable).

    Raises:
      ValueError: for values that are not the enums, or trainable ON_READ variables.
    """
    if aggregation is None:
        aggregation = VariableAggregation.NONE
    elif not isinstance(aggregation, VariableAggregation):
        try:
            aggregation = VariableAggregation(aggregation)
        except ValueError:
            raise ValueError(f"Invalid variable aggregation mode: {aggregation} for variable: "
                             f"{name}") from None
    if synchronization is None:
        synchronization = VariableSynchronization.AUTO
    elif not isinstance(synchronization, VariableSynchronization):
        try:
            synchronization = VariableSynchronization(synchronization)
        except ValueError:
            raise ValueError(f"Invalid variable synchronization mode: {synchronization} for "
                             f"variable: {name}") from None
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    elif trainable and synchronization == VariableSynchronization.ON_READ:
        raise ValueError("Synchronization value can be set to VariableSynchronization.ON_READ "
                         "only for non-trainable variables. You have specified trainable=True "
                         "and synchronization=VariableSynchronization.ON_READ.")
    return synchronization, aggregation, bool(trainable)
