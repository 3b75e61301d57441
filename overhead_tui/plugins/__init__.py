"""Plugins: discovery of scenario files (``scenarios``) and probe files (``probes``: discovery,
measurement in workers and the per-machine cache).
"""
