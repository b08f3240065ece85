import os

import pytest

# The tests compute everything afresh: no results from an earlier run's disk cache.
os.environ["CANARY_INFER_CACHE"] = "off"

from canary_infer.infer import Inferencer
from canary_infer.system import load_system


@pytest.fixture(scope="session")
def system():
    return load_system()


@pytest.fixture(scope="session")
def inferencer(system):
    return Inferencer(system)
