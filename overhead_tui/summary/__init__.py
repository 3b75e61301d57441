"""The summary: the typed contract every part reads and writes (records), its JSON Schema,
and its vocabulary (statuses, layers, dtypes, instruction classes). Imports nothing else of
the package.
"""
