"""Control flow: cond, case, while_loop, Switch/Merge, If, asserts and checks."""
