"""Statistics for scorecards, calibration and harness acceptance: intervals, bootstrap, paired tests.

Each name is imported from its module on first use, so a reader that needs only an interval (the
viewer, a table cell) does not load scipy's tests with it."""

from __future__ import annotations

from harnessx.lazy_exports import lazy_exports

_WHERE = {"bootstrap_ci": "bootstrap", "paired_bootstrap_ci": "bootstrap", "auroc": "calibration",
          "brier": "calibration", "ece10": "calibration", "MeanSD": "intervals", "mean_sd": "intervals",
          "wilson": "intervals", "PairedTest": "paired", "holm": "paired", "paired_test": "paired",
          "sign_flip_ci": "paired", "SignFlipInterval": "paired"}
__all__ = sorted(_WHERE)

__getattr__ = lazy_exports(__name__, _WHERE)
