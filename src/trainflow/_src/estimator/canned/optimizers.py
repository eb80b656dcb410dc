"""The canned estimators' optimizer argument: a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp',
'SGD'), an Optimizer, or a callable returning one (TF's `optimizers.get_optimizer_instance`)."""
from trainflow._src.framework.graph_keys import GraphKeys
from trainflow._src.framework.scopes import get_collection
from trainflow._src.train.adagrad import AdagradOptimizer
from trainflow._src.train.adam import AdamOptimizer
from trainflow._src.train.ftrl import FtrlOptimizer
from trainflow._src.train.gradient_descent import GradientDescentOptimizer
from trainflow._src.train.optimizer import Optimizer
from trainflow._src.train.rmsprop import RMSPropOptimizer
from trainflow._src.train.saver import Saver
from trainflow._src.train.scaffold import Scaffold

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


def tf_checkpoint_scaffold(spec, config, optimizer, slot_infix):
    """`spec` with a Scaffold whose Saver writes TF's checkpoint keys.

    TensorFlow's canned estimators build their variables under a (one-part) partitioner, so
    the slot `<slot>` of `optimizer` for `v` is saved as `v/<slot_infix>/<slot>` (`t_0` for the
    DNN estimators, `part_0` for the linear ones); model_dirs then move both ways.
    """
    slot_keys = {}
    for v in get_collection(GraphKeys.TRAINABLE_VARIABLES):
        for slot_name in optimizer.get_slot_names():
            slot = optimizer.get_slot(v, slot_name)
            if slot is not None:
                suffix = slot.op.name.rpartition("/")[2]
                slot_keys[slot.op.name] = f"{v.op.name}/{slot_infix}/{suffix}"
    var_list = {slot_keys.get(v.op.name, v.op.name): v
                for v in get_collection(GraphKeys.GLOBAL_VARIABLES)}
    saver = Saver(var_list=var_list, sharded=True, max_to_keep=config.keep_checkpoint_max,
                  keep_checkpoint_every_n_hours=config.keep_checkpoint_every_n_hours,
                  save_relative_paths=True)
    return spec._replace(scaffold=Scaffold(saver=saver))
