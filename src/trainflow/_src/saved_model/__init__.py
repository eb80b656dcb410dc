"""SavedModel (TF1 API): the builder and loader of TensorFlow's export format
(`saved_model.pb` + `variables/` + `assets/`), signatures and their helpers."""
