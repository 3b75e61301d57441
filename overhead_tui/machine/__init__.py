"""The machine: CPU model and its theoretical peaks (``cpu``), cgroup quota (``cgroup``), host
facts and CPU-time readings (``host``), measured limits (``limits``), the steering environment
(``environment``) and reference hardware (``reference``). Never imports the engine or views.
"""
