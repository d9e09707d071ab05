# SPDX-License-Identifier: MIT
"""Fails on purpose while a fault is held: the plugin must still revert it."""


def test_fails_while_the_fault_is_live(rocelab_fault):
    with rocelab_fault("rnic-route-missing", "host2:rnic3"):
        assert 1 == 2, "failed on purpose inside the fault"
