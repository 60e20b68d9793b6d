"""Figure files: matplotlib on the Agg backend (no display), and the one way a figure is saved, with
a footer that names the model (and says when it is simulated)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from harnessx.io_write import save_figure as save_atomic  # noqa: E402


def save_figure(fig, path: Path, model_note: str) -> Path:
    fig.text(0.01, 0.005, model_note, fontsize=7, color="dimgray", ha="left", va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    try:
        return save_atomic(fig, path)  # whole or absent, never half-written
    finally:
        plt.close(fig)
