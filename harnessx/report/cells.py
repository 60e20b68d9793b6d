"""Table cells, kept under the report package's name: they live in harnessx/formatting/cells.py."""

from harnessx.formatting.cells import (rate_cell, value_cell, objective_cell, diff_cell, unpaired_diff_cell, metric_cell, replicate_ci, mean_sd_cell, contrast, paired_title)

__all__ = ["rate_cell", "value_cell", "objective_cell", "diff_cell", "unpaired_diff_cell", "metric_cell", "replicate_ci", "mean_sd_cell", "contrast", "paired_title"]
