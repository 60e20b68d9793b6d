"""How numbers and tables are written: cells that carry their n and interval, tables, documents and
figure files. Below the benchmarks, so a benchmark formats its own tables without importing the
report package; `harnessx.report` builds the reports from these.
"""
