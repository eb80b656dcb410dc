"""`tf.distributions`: TF1's probability distributions (deprecated in TensorFlow)."""
from trainflow._src.distributions.bernoulli import Bernoulli  # noqa: F401
from trainflow._src.distributions.beta import Beta  # noqa: F401
from trainflow._src.distributions.categorical import Categorical  # noqa: F401
from trainflow._src.distributions.dirichlet import Dirichlet  # noqa: F401
from trainflow._src.distributions.distribution import (  # noqa: F401
    FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED, Distribution, ReparameterizationType)
from trainflow._src.distributions.gamma import Exponential, Gamma  # noqa: F401
from trainflow._src.distributions.kullback_leibler import RegisterKL, kl_divergence  # noqa: F401
from trainflow._src.distributions.laplace import Laplace  # noqa: F401
from trainflow._src.distributions.multinomial import (  # noqa: F401
    DirichletMultinomial, Multinomial)
from trainflow._src.distributions.normal import Normal  # noqa: F401
from trainflow._src.distributions.uniform import Uniform  # noqa: F401
from trainflow._src.distributions.student_t import StudentT  # noqa: F401
