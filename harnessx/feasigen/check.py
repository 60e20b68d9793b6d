"""The mechanical check of a masked task (it lives with the environments: harnessx/envs/mask_check.py)."""

from harnessx.envs.mask_check import CheckResult, mechanical_check, replay

__all__ = ["CheckResult", "mechanical_check", "replay"]
