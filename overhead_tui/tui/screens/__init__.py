"""The app's screens; each has its layout in a ``.tcss`` file next to it."""
