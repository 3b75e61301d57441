"""Presentation shared by every view (CLI, exporters, app): number formats and table rows
(``format``), the live state of a running ladder (``live``), terminal output encodings
(``terminal``). Textual-free.
"""
