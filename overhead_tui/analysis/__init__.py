"""Analysis of measured results: pure functions over summaries (no processes, no Textual)."""
