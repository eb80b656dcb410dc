"""trainflow's implementation. Nothing here is public API: the faces (`trainflow`,
`trainflow.train`, `trainflow.nn` ...) re-export what TensorFlow's namespaces hold."""
