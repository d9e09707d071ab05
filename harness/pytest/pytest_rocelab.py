# SPDX-License-Identifier: MIT
"""pytest plugin: rocelab's journaled, verified faults inside a pytest suite.

A sonic-mgmt-style test suite asks for a fault, checks what it wants while the
fault is live, and trusts that it is gone afterwards::

    def test_monitor_sees_the_flap(rocelab_fault):
        with rocelab_fault("link-flap", "rail1:swp5", period="4s", down="2s") as f:
            assert f.applied             # verified by reading the lab back
            ...                          # what the test checks while it is live
        # reverted here, whatever happened in the block

Fixtures:

``rocelab_lab`` (session)
    The lab: ``--rocelab-inventory FILE`` (or ``$ROCELAB_INVENTORY``) names an
    existing one; without it the built-in virtual lab is brought up for the
    session and taken down at its end (one already up is used, and left up).
``rocelab_fault``
    ``rocelab_fault(kind, target, **options)``: a context manager that runs
    ``rocelab inject KIND --target TARGET --hold -j`` (each option as
    ``--name value``, ``name_with_underscores`` as ``--name-with-underscores``,
    ``True`` as a bare flag), waits until it is applied and verified, and
    yields a :class:`Fault` (its id, outcome, evidence, emulated).  On leaving
    the block, on a failed assertion, on an exception, on Ctrl-C and on
    SIGTERM to pytest, the injector is told to revert (SIGTERM) and must exit
    0; otherwise the test errors, naming ``rocelab revert``.  Should pytest be
    killed outright (kill -9), the kernel tells the injector (its parent-death
    signal, SIGTERM) and it reverts; were the injector killed too, each
    device's dead-man timer reverts its part, and the journal keeps the fault
    for ``rocelab revert``.  Each fault's evidence goes into the
    test's report (a section "rocelab", and a ``rocelab_fault`` property in
    pytest's JUnit XML).

The plugin uses the CLI only (its JSON output): ``--rocelab PROGRAM`` (or
``$ROCELAB``) names it, default ``rocelab`` on PATH.  Load it with
``-p pytest_rocelab`` from a checkout (``PYTHONPATH=harness/pytest``);
``make install`` installs it where pytest finds it on its own.
"""

import contextlib
import ctypes
import json
import os
import shutil
import signal
import subprocess
import threading

import pytest

__all__ = ["Fault", "Lab", "RocelabError"]

APPLY_TIMEOUT_S = 300  # logins, reads and verification on a real lab
REVERT_TIMEOUT_S = 300


class RocelabError(Exception):
    """rocelab refused, failed, or could not revert: its own words."""


class Fault:
    """A fault rocelab applied and verified: what its JSON line said."""

    def __init__(self, record):
        self.record = record
        self.id = record.get("id")
        self.kind = record.get("kind")
        self.target = record.get("target")
        self.outcome = record.get("outcome")
        self.evidence = record.get("evidence", "")
        self.emulated = bool(record.get("emulated"))
        self.reverted = False
        self.after = []  # lines the injector printed when it reverted (drift, ...)

    @property
    def applied(self):
        return self.outcome == "applied"

    def __repr__(self):
        return f"<Fault {self.id} {self.kind} {self.target}: {self.outcome}>"


def _options(options):
    args = []
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif value is False or value is None:
            continue
        else:
            args += [flag, str(value)]
    return args


class Lab:
    """A lab rocelab drives: its program and inventory (None: the built-in one)."""

    def __init__(self, program, inventory=None):
        self.program = program
        self.inventory = inventory

    def _inv(self):
        return ["-i", self.inventory] if self.inventory else []

    def run(self, *args, check=True):
        """rocelab ARGS... to completion: the CompletedProcess (RocelabError on failure)."""
        p = subprocess.run([self.program, *args], capture_output=True, text=True)
        if check and p.returncode:
            raise RocelabError(f"rocelab {' '.join(args)}: exit {p.returncode}: "
                               f"{p.stderr.strip() or p.stdout.strip()}")
        return p

    def faults(self):
        """The journal's outstanding faults ('rocelab faults -j'): a list of records."""
        return json.loads(self.run("faults", "-j").stdout)

    @contextlib.contextmanager
    def fault(self, kind, target, **options):
        """Apply and verify KIND on TARGET, yield a Fault, always revert it."""
        cmd = [self.program, "inject", kind, "--target", target, "--hold", "-j",
               *self._inv(), *_options(options)]
        # A session of its own: a Ctrl-C at the terminal reaches pytest, which reverts.
        # Told to revert (SIGTERM) by the kernel should pytest die outright.
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True,
                             preexec_fn=_die_with_parent)
        err = []
        reader = threading.Thread(target=lambda: err.extend(p.stderr), daemon=True)
        reader.start()
        fault = None
        try:
            line = _first_line(p, APPLY_TIMEOUT_S)
            if not line:
                p.wait(timeout=REVERT_TIMEOUT_S)
                reader.join(5)
                raise RocelabError(f"inject {kind} --target {target}: exit {p.returncode}: "
                                   f"{''.join(err).strip() or 'nothing said'}")
            fault = Fault(json.loads(line))
            if not fault.applied:
                raise RocelabError(f"inject {kind} --target {target}: {fault.outcome}: "
                                   f"{fault.evidence}")
            yield fault
        finally:
            _revert(p, fault, err, reader, kind, target)


def _die_with_parent():
    """In the injector before it runs: SIGTERM when pytest dies (PR_SET_PDEATHSIG)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() == 1:  # pytest died before the line above
        os.kill(os.getpid(), signal.SIGTERM)


def _first_line(p, timeout):
    """The injector's verdict line, or '' when it ended without one (or timed out)."""
    box = []
    t = threading.Thread(target=lambda: box.append(p.stdout.readline()), daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        p.terminate()
        t.join(REVERT_TIMEOUT_S)
    return box[0].strip() if box else ""


def _revert(p, fault, err, reader, kind, target):
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    try:
        rest, _ = p.communicate(timeout=REVERT_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        rest, _ = p.communicate()
        raise RocelabError(f"{kind} {target}: the injector did not revert within "
                           f"{REVERT_TIMEOUT_S} s: run 'rocelab revert'")
    reader.join(5)
    if fault is not None:
        fault.after = [json.loads(x) for x in (rest or "").splitlines() if x.startswith("{")]
        fault.reverted = p.returncode == 0
    if fault is not None and p.returncode != 0:
        raise RocelabError(f"{kind} {target}: not reverted cleanly (exit {p.returncode}): "
                           f"{''.join(err).strip()}; run 'rocelab revert'")


def pytest_addoption(parser):
    group = parser.getgroup("rocelab", "rocelab faults")
    group.addoption("--rocelab", default=os.environ.get("ROCELAB", "rocelab"),
                    help="the rocelab program (default $ROCELAB, else rocelab on PATH)")
    group.addoption("--rocelab-inventory", default=os.environ.get("ROCELAB_INVENTORY"),
                    help="an existing lab's inventory (default: the built-in virtual lab, "
                         "brought up for the session)")


def pytest_configure(config):
    config.addinivalue_line("markers", "rocelab: a test that injects faults with rocelab")
    # SIGTERM to pytest unwinds the test like Ctrl-C: every held fault's block reverts it
    if threading.current_thread() is threading.main_thread():
        def term(signum, frame):
            raise KeyboardInterrupt(f"signal {signum}")
        signal.signal(signal.SIGTERM, term)


@pytest.fixture(scope="session")
def rocelab_lab(request):
    """The lab the session's faults go to (see the module's help)."""
    program = request.config.getoption("--rocelab")
    inventory = request.config.getoption("--rocelab-inventory")
    if not shutil.which(program):
        pytest.fail(f"rocelab: no program {program} (give --rocelab or $ROCELAB)", False)
    lab = Lab(program, inventory)
    if inventory:
        lab.run("inventory", "check", "-i", inventory)
        yield lab
        return
    up = lab.run("lab", "status", check=False).returncode == 0
    if not up:
        lab.run("lab", "up", "-q")
    try:
        yield lab
    finally:
        if not up:
            lab.run("lab", "down", "-q")


@pytest.fixture
def rocelab_fault(rocelab_lab, request):
    """rocelab_fault(kind, target, **options): a fault held for a with-block."""

    @contextlib.contextmanager
    def fault(kind, target, **options):
        held = []
        try:
            with rocelab_lab.fault(kind, target, **options) as f:
                held.append(f)
                request.node.user_properties.append(
                    ("rocelab_fault", f"{f.kind} {f.target}: {f.outcome}: {f.evidence}"))
                yield f
        finally:
            # in the test's own report (its call phase: this block ends in it)
            for f in held:
                request.node.add_report_section(
                    "call", "rocelab",
                    f"fault {f.id} {f.kind} {f.target}: {f.outcome} ({f.evidence}); "
                    f"{'reverted' if f.reverted else 'NOT reverted: run rocelab revert'}")

    return fault
