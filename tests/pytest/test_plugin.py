# SPDX-License-Identifier: MIT
"""The pytest plugin against the virtual lab (tests/vlab/pytest_test.sh runs it)."""
import subprocess

import pytest

from pytest_rocelab import RocelabError

TARGET = "host2:rnic3"


def route_via(lab):
    """Where host2 sends rnic3's traffic: the interface 'ip route get' names."""
    out = subprocess.run(["ip", "-n", "rl-host2", "-j", "route", "get", "198.18.1.1",
                          "from", "198.18.3.2"], capture_output=True, text=True).stdout
    return out


def test_a_fault_is_applied_verified_and_reverted(rocelab_lab, rocelab_fault):
    before = route_via(rocelab_lab)
    with rocelab_fault("rnic-route-missing", TARGET) as f:
        assert f.applied and f.kind == "rnic-route-missing" and f.target == TARGET
        assert f.evidence, "its verification says what it read"
        assert [x["id"] for x in rocelab_lab.faults()] == [f.id]
        assert route_via(rocelab_lab) != before
    assert f.reverted
    assert rocelab_lab.faults() == []
    assert route_via(rocelab_lab) == before


def test_options_go_to_the_injector(rocelab_lab, rocelab_fault):
    with rocelab_fault("link-degrade", "rail1:swp5", rate="50mbit") as f:
        assert f.applied and "50" in f.evidence, f.evidence
    assert rocelab_lab.faults() == []


def test_a_refused_fault_raises_with_rocelabs_words_and_changes_nothing(rocelab_lab,
                                                                          rocelab_fault):
    with pytest.raises(RocelabError, match="no-such-option"):
        with rocelab_fault("rnic-route-missing", TARGET, no_such_option=1):
            pytest.fail("a fault with an unknown option was applied")
    with pytest.raises(RocelabError, match="nowhere:rnic9"):
        with rocelab_fault("rnic-route-missing", "nowhere:rnic9"):
            pytest.fail("a fault on no device was applied")
    assert rocelab_lab.faults() == []
