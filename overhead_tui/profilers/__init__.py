"""Profiler backends (perf, py-spy, callgrind, Scalene): capabilities, runs and parsers.

Each backend starts the scenario's worker *under* the profiler (the profiler is the parent),
with a timeout and a kill of the whole process group; its output is read from its file and
parsed by pure functions tested against files captured from real runs.  Nothing here imports
Textual.
"""
