import os

import pytest

# The tests compute everything afresh: no results from an earlier run's disk cache.
os.environ["CANARY_INFER_CACHE"] = "off"
# ... and read the built-in system unless a test says otherwise, whatever the developer's shell says.
os.environ.pop("CANARY_SYSTEM", None)

import canary_infer.system  # noqa: E402
from canary_infer.infer import Inferencer  # noqa: E402
from canary_infer.system import load_system  # noqa: E402
from canary_infer.systemdir import builtin_folder  # noqa: E402

# The tests read this checkout's system files, not those of another copy of the package that
# may be installed (an editable install of another checkout maps canary_infer.constraints there).
canary_infer.system.builtin_dir = builtin_folder


@pytest.fixture(scope="session")
def system():
    return load_system()


@pytest.fixture(scope="session")
def inferencer(system):
    return Inferencer(system)
