"""State: variables, assign and scatter ops, initializers, partitioners, regularizers and the
optimizers' Apply ops."""
