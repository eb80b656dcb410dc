"""`tf.estimator`'s core (tensorflow_estimator 1.15): Estimator, EstimatorSpec, RunConfig,
train_and_evaluate, exporters, input functions, the early-stopping hooks."""
