"""The system as data: the files' model and parser, the call tree, the loaded-system cache, and
which folder a command reads."""
