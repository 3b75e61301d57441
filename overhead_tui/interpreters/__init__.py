"""Other interpreters for the workers (parent side): ``resolve`` (a name such as
``python3.12`` or a pyenv version to an interpreter), ``check`` (that it runs and has numpy)
and ``provision`` (a per-interpreter venv with what the rungs need)."""
