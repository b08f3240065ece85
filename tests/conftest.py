import os

import pytest

# The tests compute everything afresh: no results from an earlier run's disk cache.
os.environ["CANARY_INFER_CACHE"] = "off"
# ... and read the built-in system unless a test says otherwise, whatever the developer's shell says.
os.environ.pop("CANARY_SYSTEM", None)
# the engine's walk of a whole system of one's own at load (minutes for a copy of the built-in
# files) is tested on small systems where it is on (test_systemdir, test_format)
os.environ["CANARY_SYSTEM_CHECK"] = "off"

from canary_infer.infer import Inferencer
from canary_infer.system import load_system


@pytest.fixture(scope="session")
def system():
    return load_system()


@pytest.fixture(scope="session")
def inferencer(system):
    return Inferencer(system)
