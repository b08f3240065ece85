import pytest

from canary_infer.infer import Inferencer
from canary_infer.system import load_system


@pytest.fixture(scope="session")
def system():
    return load_system()


@pytest.fixture(scope="session")
def inferencer(system):
    return Inferencer(system)
