"""The built-in task families by name."""

from __future__ import annotations

from harnessx.envs.terminal.builtin.data_families import (EnvMerge, PyFunction, SalesTotals, StockReconcile,
                                                           TemplateRender, UsersActive)
from harnessx.envs.terminal.builtin.family import Family
from harnessx.envs.terminal.builtin.file_families import (BackupPrune, InboxSort, IniRepair, PhotoRename,
                                                           ReleaseManifest)
from harnessx.envs.terminal.builtin.text_families import AccessStats, LogLevels, WordFreq

FAMILIES: dict[str, type[Family]] = {cls.name: cls for cls in (
    SalesTotals, LogLevels, InboxSort, IniRepair, UsersActive, WordFreq, PyFunction, BackupPrune, EnvMerge,
    StockReconcile, AccessStats, PhotoRename, ReleaseManifest, TemplateRender)}
