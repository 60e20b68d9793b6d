"""Reports: tables (rich and Markdown), PNG figures, Markdown/HTML documents, MLflow logging."""
