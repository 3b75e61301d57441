"""The measurement engine: inputs, timing, statistics, validation, worker and runner.

Nothing here imports Textual: the app and the exporters consume what the engine produces.
"""
