"""The inner evaluation (`harnessx.benchmarks.evaluate`), under the name search, comparison and the
probes import it by."""

from harnessx.benchmarks.evaluate import Evaluation, evaluate, exclusion_records, require_evaluated

__all__ = ["Evaluation", "evaluate", "exclusion_records", "require_evaluated"]
