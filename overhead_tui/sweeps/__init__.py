"""Budgeted sweeps over many workers (parent side): ``budget`` (what fits a time budget),
``budgeted`` (the loop that runs point plans behind the budget check), ``sizes`` (GFLOP/s
against n: ``overhead-tui sweep``) and ``shapes`` (GEMV to GEMM: ``overhead-tui shapes``)."""
