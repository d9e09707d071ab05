# SPDX-License-Identifier: MIT
"""Holds a fault until interrupted (pytest_test.sh signals pytest, or kills it)."""
import os
import time


def test_held_until_interrupted(rocelab_fault):
    with rocelab_fault("rnic-route-missing", "host2:rnic3") as f:
        with open(os.environ["HELD_MARK"], "w") as m:
            m.write(f"{f.id}\n")
        time.sleep(120)
