"""Analysis: derived figures of a run (model breakdown, uncertainty, roofline, comparisons)."""
