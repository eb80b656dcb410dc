"""The canned estimators' optimizer argument: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp',
'SGD'), an Optimizer, or a callable returning one (TF's `optimizers.get_optimizer_instance`)."""
from trainflow._src.train.adagrad import AdagradOptimizer
from trainflow._src.train.adam import AdamOptimizer
from trainflow._src.train.ftrl import FtrlOptimizer
from trainflow._src.train.gradient_descent import GradientDescentOptimizer
from trainflow._src.train.optimizer import Optimizer
from trainflow._src.train.rmsprop import RMSPropOptimizer

_OPTIMIZER_CLS_NAMES = {"Adagrad": AdagradOptimizer, "Adam": AdamOptimizer,
                        "Ftrl": FtrlOptimizer, "RMSProp": RMSPropOptimizer,
                        "SGD": GradientDescentOptimizer}


def get_optimizer_instance(opt, learning_rate=None):
    """An Optimizer from `opt`; a name needs `learning_rate`."""
    if isinstance(opt, str):
        if opt in _OPTIMIZER_CLS_NAMES:
            if learning_rate is None:
                raise ValueError("learning_rate must be specified when opt is string.")
            return _OPTIMIZER_CLS_NAMES[opt](learning_rate=learning_rate)
        raise ValueError(f"Unsupported optimizer name: {opt}. Supported names are: "
                         f"{tuple(sorted(_OPTIMIZER_CLS_NAMES))}")
    if callable(opt) and not isinstance(opt, Optimizer):
        opt = opt()
    if not isinstance(opt, Optimizer):
        raise ValueError(f"The given object is not an Optimizer instance. Given: {opt}")
    return opt
