"""tf.estimator's canned estimators and their heads (tensorflow_estimator 1.15's v1 API)."""
