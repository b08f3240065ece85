"""Writing a command's output file (``-o OUT``) without ever destroying what is there.

Two steps, for every command that writes a file:

* :func:`check_writable` before any work: the target is standard output (``-``), a regular
  file, or a new name in an existing folder where a file can be created.  A folder, a missing
  folder, a device (``/dev/full``), a FIFO or a read-only folder is refused at once with an
  :class:`OutputError` naming it, so that no work is done for nothing.
* :func:`write_atomic` after all the work: the bytes go to a temporary file in the target's
  folder, which is flushed to disk and then renamed over the target.  The target is replaced
  whole or not at all: a full disk, an interrupt or an error leaves it as it was (the input
  too, when it is the same file), and the temporary file is removed.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "out.pbn")
    >>> check_writable(path) == path
    True
    >>> write_atomic(path, b"[Board \\"1\\"]\\n")
    >>> open(path, "rb").read(), sorted(os.listdir(folder))
    (b'[Board "1"]\\n', ['out.pbn'])
    >>> try:
    ...     check_writable(folder)
    ... except OutputError as e:
    ...     print(str(e).replace(folder, "FOLDER"))
    cannot write FOLDER: it is a folder
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile

__all__ = ["OutputError", "StdoutError", "GuardedStdout", "check_writable", "write_atomic", "stdout_nowhere"]


class OutputError(OSError):
    """An output file that cannot be written (the message names it and says why)."""


class StdoutError(OutputError):
    """Standard output that cannot be written (a full disk, ``> /dev/full``); not a closed pipe."""


class GuardedStdout:
    """Standard output whose write errors say so: :class:`StdoutError` (a closed pipe stays a
    :class:`BrokenPipeError`); everything else is the stream's own.

    >>> import io
    >>> class Full(io.StringIO):
    ...     def write(self, s):
    ...         raise OSError(28, "No space left on device")
    >>> try:
    ...     print("x", file=GuardedStdout(Full()))
    ... except StdoutError as e:
    ...     print(e)
    cannot write standard output: No space left on device
    """

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise StdoutError(f"cannot write standard output: {e.strerror or e}") from None

    def flush(self):
        try:
            return self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise StdoutError(f"cannot write standard output: {e.strerror or e}") from None

    def __getattr__(self, name):
        return getattr(self._stream, name)


def stdout_nowhere() -> None:
    """Send standard output to the null device, so that what is left in its buffer does not
    fail again when Python flushes it at exit (after a closed pipe or a full disk)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _target(path: str) -> str:
    """The file that will really be replaced: a symbolic link's target, not the link."""
    return os.path.realpath(path) if os.path.islink(path) else path


def check_writable(path: str) -> str:
    """Check, before any work, that ``path`` can be written; return the file that will be
    replaced (``path`` itself, or a link's target).  ``-`` is standard output.

    :raises OutputError: a folder, a missing folder, something other than a regular file
        (a device, a FIFO, a socket), or a folder where no file can be created.
    """
    if path == "-":
        return path
    if not path:
        raise OutputError("cannot write '': give a file name")
    target = _target(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise OutputError(f"cannot write {path}: {e.strerror}") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise OutputError(f"cannot write {path}: it is a folder")
        if not stat.S_ISREG(st.st_mode):
            raise OutputError(f"cannot write {path}: it is not a regular file (a device, FIFO or socket)")
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise OutputError(f"cannot write {path}: the folder {folder} does not exist")
    # the one sure test (root passes every permission check, a read-only file system does not):
    # create the temporary file the write will use, and remove it
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".canary-", suffix=".tmp")
    except OSError as e:
        raise OutputError(f"cannot write {path}: cannot create a file in {folder}: {e.strerror}") from None
    os.close(fd)
    os.unlink(probe)
    return target


def write_atomic(path: str, data: bytes) -> None:
    """Replace ``path`` with ``data`` whole or not at all (``-``: write to standard output).

    The data go to a temporary file in the same folder, flushed to disk, which is then renamed
    over the target; an existing target keeps its permissions (and, where the user may give
    it, its owner).

    :raises OutputError: when the data cannot be written (a full disk, ...): the target is
        left as it was and the temporary file removed.
    """
    if path == "-":
        out = getattr(sys.stdout, "buffer", None)
        try:
            if out is None:  # a text stream (tests capture standard output as text)
                sys.stdout.write(data.decode("utf-8", errors="replace"))
            else:
                sys.stdout.flush()
                out.write(data)
                out.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            stdout_nowhere()  # what is left in the buffer would fail again at exit
            raise StdoutError(f"cannot write standard output: {e.strerror or e}") from None
        return
    target = check_writable(path)
    folder = os.path.dirname(os.path.abspath(target))
    try:
        st = os.stat(target)
        mode, owner = stat.S_IMODE(st.st_mode), (st.st_uid, st.st_gid)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode, owner = 0o666 & ~umask, None
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        if owner is not None and owner != (os.getuid(), os.getgid()):
            try:  # the file stays its owner's (possible for root only)
                os.chown(tmp, *owner)
            except OSError:
                pass
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise OutputError(f"cannot write {path}: {e.strerror or e}; it is left as it was") from None
        raise
