"""The Canary Club system as data: the *.canary files beside this one (see README.md here)."""
