"""The built-in terminal suite: parametrised task families (templates in `environments/terminal/`),
blocked variants with mechanical checks, and the split plan, written out as TB2-format task dirs."""
