"""One module per subcommand, each with its ``COMMAND`` (``commands.command.Command``): its
name, help, option groups and ``run(args) -> int``.  Shared steps live in ``common``,
``arguments``, ``export_paths`` and ``budgeted``; no command imports another."""
