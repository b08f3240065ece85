"""The interfaces: the command line, the explorer page and the notebook HTML."""
