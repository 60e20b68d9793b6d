"""MLflow pyfunc model (models-from-code) for an exported harness: `predict` returns the harness
config it was logged with, so `mlflow.pyfunc.load_model("models:/<name>@champion")` hands it back."""

import mlflow
from mlflow.pyfunc import PythonModel


class HarnessModel(PythonModel):
    def load_context(self, context):
        self.harness = dict(context.model_config or {})

    def predict(self, context, model_input, params=None):
        return [self.harness]


mlflow.models.set_model(HarnessModel())
