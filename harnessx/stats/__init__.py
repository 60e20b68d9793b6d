"""Statistics for scorecards, calibration and harness acceptance: intervals, bootstrap, paired tests."""

from harnessx.stats.bootstrap import bootstrap_ci, paired_bootstrap_ci
from harnessx.stats.calibration import auroc, brier, ece10
from harnessx.stats.intervals import MeanSD, mean_sd, wilson
from harnessx.stats.paired import PairedTest, holm, paired_test

__all__ = ["MeanSD", "PairedTest", "auroc", "bootstrap_ci", "brier", "ece10", "holm", "mean_sd",
           "paired_bootstrap_ci", "paired_test", "wilson"]
