"""What the proximal optimizers share: a learning rate and l1/l2 regularization
strengths, turned into tensors (not cast: as in TF, a float64 variable needs float64
hyperparameter tensors) before each update."""
from trainflow._src.framework.tensor_conversion import convert_to_tensor
from trainflow._src.train.optimizer import Optimizer


class ProximalOptimizerBase(Optimizer):
    """An optimizer whose apply ops take (learning_rate, l1, l2) as `self._hypers()`."""

    def __init__(self, learning_rate, l1_regularization_strength, l2_regularization_strength,
                 use_locking, name):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1_regularization_strength = l1_regularization_strength
        self._l2_regularization_strength = l2_regularization_strength
        self._learning_rate_tensor = None
        self._l1_regularization_strength_tensor = None
        self._l2_regularization_strength_tensor = None

    def _prepare(self):
        self._learning_rate_tensor = convert_to_tensor(self._learning_rate,
                                                       name="learning_rate")
        self._l1_regularization_strength_tensor = convert_to_tensor(
            self._l1_regularization_strength, name="l1_regularization_strength")
        self._l2_regularization_strength_tensor = convert_to_tensor(
            self._l2_regularization_strength, name="l2_regularization_strength")

    def _hypers(self):
        return (self._learning_rate_tensor, self._l1_regularization_strength_tensor,
                self._l2_regularization_strength_tensor)
