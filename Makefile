# SPDX-License-Identifier: MIT
# rocelab build: GNU make + pkg-config.  `make help` lists the targets.

PREFIX    ?= /usr/local
DESTDIR   ?=
CC        ?= cc
NPROC     := $(shell nproc 2>/dev/null || echo 1)
BUILD     ?= build
PKGS      := yaml-0.1 libnl-3.0 libnl-route-3.0 libssh jansson zlib libibverbs libcrypto sqlite3 libbpf
OPT       ?= -O2 -g
WARN      := -Wall -Wextra -Wshadow -Wformat=2 -Wno-missing-field-initializers
# Includes name their layer: #include "harness/lib/common.h".
CPPFLAGS  += -I.
CFLAGS    += -std=gnu17 $(OPT) $(WARN) -pthread
CPPFLAGS  += -DROCELAB_DATADIR=\"$(PREFIX)/share/rocelab\"
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libibverbs is not linked: probe/verbs_dl.c loads it when a verbs transport first asks for
# an RNIC, so that an agent probing over UDP maps neither it nor the libnl it brings.
PKG_LIBS   = $(shell pkg-config --libs $(filter-out libibverbs,$(PKGS)) 2>/dev/null)
LDLIBS    += $(PKG_LIBS) -lm

SRC_DIRS  := harness injectors probe transport reports
MAIN_SRC  := harness/cli/main.c
# The agents alone (rocelab-agent): the same objects, only those an agent uses linked in.
AGENT_SRC := harness/cli/agent_main.c
LIB_SRC   := $(filter-out $(MAIN_SRC) $(AGENT_SRC) %.bpf.c,$(sort $(shell find $(SRC_DIRS) -name '*.c' 2>/dev/null)))
TEST_SRC  := $(sort $(shell find tests -name '*_test.c' -not -path 'tests/bench/*'))
FMT_SRC   := $(sort $(shell find $(SRC_DIRS) tests -name '*.[ch]' 2>/dev/null))
TOOL_SRC  := $(wildcard tests/tools/*.c)

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN  := $(TEST_SRC:tests/%_test.c=$(BUILD)/tests/%_test)
TOOL_BIN  := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)

.PHONY: all check unit integration vm-check demo nightly deps bench install clean help format format-check layers \
	fuzz fuzz-check fuzz-nightly install-check flake bench-check bench-record figures-table \
	figures-check
all: $(BUILD)/rocelab $(BUILD)/rocelab-agent

help:
	@echo "make            build build/rocelab"
	@echo "make demo       install deps, bring up the built-in virtual lab, show it, take it down"
	@echo "make check      install deps, run unit tests (ASan/UBSan), virtual-lab integration tests and vm-check"
	@echo "make vm-check   install deps, boot Debian's kernel under qemu (tcg): Soft-RoCE, verbs tests, VM scenarios"
	@echo "make bench      lab up/down, Hostmesh agent overhead (udp; verbs vs udp in the VM), analyzer throughput,"
	@echo "                R-Pingmesh agent beside Hostmesh's and its analyzer, MP-RDMA rig ceiling, inventories"
	@echo "                and identifiability classes at 1k-10k hosts x 8 RNICs, a run's start and end over"
	@echo "                SSH on 8-64 hosts (fanned out and one host after another), the MP-RDMA paper's"
	@echo "                figures on the simulator beside the paper's values"
	@echo "make figures-table  the MP-RDMA paper's figures on the simulator, over 5 seeds and 6 sender"
	@echo "                variants, into transport/README.md's table (make figures-check: it is current)"
	@echo "make bench-check  make bench, then each figure against tests/bench/baseline.txt: exit 1 when one"
	@echo "                regressed more than 25% (BENCH_TOLERANCE) or is no longer printed"
	@echo "make bench-record  make bench, its figures as the new tests/bench/baseline.txt (review the diff)"
	@echo "make nightly    install deps, run scenarios/nightly/*.yaml on the built-in lab (results in build/nightly),"
	@echo "                every transport scenario, the injector suite with every kind's dead-man timer,"
	@echo "                then the whole CI suite on the lab reached over SSH, every VM scenario (Soft-RoCE"
	@echo "                under qemu), then the randomized Hostmesh"
	@echo "                sweep (scenarios/nightly/random/sweep: 3 fixed shapes and 2 drawn, the date as seed)"
	@echo "make flake      the CI suites N times (N=10) without retries: pass rates, verdicts that changed;"
	@echo "                LOAD=1 beside stress-ng --cpu 1"
	@echo "make fuzz       every libFuzzer harness in tests/fuzz for FUZZ_S seconds each (default 60)"
	@echo "make fuzz-nightly  each harness for FUZZ_NIGHTLY_S (1800) or 10^7 executions, new inputs in build/fuzz"
	@echo "make deps       apt-get install what rocelab needs (idempotent)"
	@echo "make format     apply .clang-format; make format-check checks it (in make check)"
	@echo "make layers     check that each folder includes only from layers below it"
	@echo "make install    install rocelab, its data, man page and bash completion to \$$(DESTDIR)\$$(PREFIX)"

# BPF programs (*.bpf.c): clang -target bpf; a C file links each one in with .incbin.
BPF_CC    ?= clang
BPF_OBJ   := $(BUILD)/bpf/ecn_mark.bpf.o
$(BUILD)/bpf/%.bpf.o: injectors/bpf/%.bpf.c injectors/bpf/ecn_vq.h
	@mkdir -p $(@D)
	$(BPF_CC) -target bpf -O2 -g -Wall -I. -I/usr/include/$(shell $(CC) -dumpmachine) -c -o $@ $<
$(foreach t,obj fuzz/obj,$(BUILD)/$(t)/injectors/ecn_mark.o): $(BPF_OBJ)
CPPFLAGS  += -DECN_MARK_OBJ=\"$(BPF_OBJ)\"

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/rocelab: $(BUILD)/obj/$(MAIN_SRC:.c=.o) $(LIB_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

# An archive, so that the agent links only the objects it reaches, and --as-needed only their
# libraries.
$(BUILD)/librocelab.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/rocelab-agent: $(BUILD)/obj/$(AGENT_SRC:.c=.o) $(BUILD)/librocelab.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) -Wl,--as-needed $(LDLIBS)

$(BUILD)/tools/%: tests/tools/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LDFLAGS)

# Fuzzing harnesses (tests/fuzz/*_fuzz.c): libFuzzer, clang, ASan and UBSan, the library rebuilt
# with clang's coverage instrumentation.
FUZZ_CC	  ?= clang
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# clang also flags vsnprintf of a format parameter (plan.c's two-format helper), gcc does not.
FUZZ_WARN := $(WARN) -Wno-format-nonliteral
FUZZ_SRC  := $(sort $(wildcard tests/fuzz/*_fuzz.c))
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%_fuzz.c=$(BUILD)/fuzz/%)
FUZZ_OBJ  := $(LIB_SRC:%.c=$(BUILD)/fuzz/obj/%.o)
FUZZ_LIB  := $(BUILD)/fuzz/librocelab.a
FUZZ_S	  ?= 60
FUZZ_NIGHTLY_S ?= 1800

$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(@D)
	@echo "fuzz: cc $<"
	@$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) -std=gnu17 -O1 -g $(FUZZ_WARN) -pthread $(FUZZ_SAN) \
		-fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<

# An archive: a harness or test links only the objects it reaches.
$(FUZZ_LIB): $(FUZZ_OBJ)
	@rm -f $@
	@ar rcs $@ $^

$(BUILD)/fuzz/%: tests/fuzz/%_fuzz.c $(wildcard tests/fuzz/*.h) $(FUZZ_LIB)
	@mkdir -p $(@D)
	@echo "fuzz: link $@"
	@$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) -std=gnu17 -O1 -g $(FUZZ_WARN) -pthread $(FUZZ_SAN) \
		-fsanitize=fuzzer -o $@ $< $(FUZZ_LIB) $(LDFLAGS) $(LDLIBS)

# Unit tests: clang, ASan and UBSan, on the library the fuzzing harnesses use (above): one
# sanitized build of it, not two (gcc's took 40 s of every make check on 2 cores).
$(BUILD)/tests/%_test: tests/%_test.c $(FUZZ_LIB)
	@mkdir -p $(@D)
	@echo "test: cc $<"
	@$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) -std=gnu17 -O1 -g $(FUZZ_WARN) -pthread $(FUZZ_SAN) \
		-o $@ $^ $(LDFLAGS) $(LDLIBS) -lcriterion

# The MP-RDMA paper's figures in miniature are numbers from the deterministic simulator, not
# memory checks: on the library the binaries use (gcc -O2, no sanitizers), where under ASan,
# UBSan and coverage they took 48 s of unit's CPU (4 s here).  The simulator's code runs
# sanitized in pathsim_test and the transport tests beside it.
$(BUILD)/tests/transport/sim/figures_test: tests/transport/sim/figures_test.c $(BUILD)/librocelab.a
	@mkdir -p $(@D)
	@echo "test: cc $< (unsanitized)"
	@$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS) -lcriterion

# Kept: make deletes a chain's intermediates, and the next make (make unit after the build)
# compiled every sanitized object again.
.SECONDARY: $(FUZZ_OBJ) $(FUZZ_LIB)

# Every harness for FUZZ_S seconds; new inputs go to build/fuzz/corpus, findings are printed.
fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@tests/fuzz/run.sh fuzz $(FUZZ_S) $(FUZZ_BIN)

fuzz-nightly: deps
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@tests/fuzz/run.sh fuzz $(FUZZ_NIGHTLY_S) $(FUZZ_BIN)

# In make check: every corpus and reproducer replayed, then a short fuzz of each harness (2 s:
# make check's 30 minutes; make fuzz and make fuzz-nightly fuzz for real).
fuzz-check: $(FUZZ_BIN)
	@tests/fuzz/run.sh check 2 $(FUZZ_BIN)

# Benchmark drivers link the library (optimized, no sanitizers).
$(BUILD)/bench/%: tests/bench/%.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

deps:
	@scripts/deps.sh

# Unit tests need no root; integration tests build real namespaces and need root.
unit: $(TEST_BIN)
	@tests/unit.sh $(TEST_BIN)

# BESIDE_TIERS: make targets run on one CPU beside the Hostmesh CI suite, as its busy core
# (tests/beside.sh; make check sets it).
integration: $(BUILD)/rocelab $(BUILD)/rocelab-agent $(TOOL_BIN)
	@BESIDE_TIERS='$(BESIDE_TIERS)' tests/vlab/run.sh

# Each step says how long it took: make check has 30 minutes on the 2-core CI machine.  Its
# CPU-bound tiers (unit, fuzz-check, figures-check) run on one CPU beside the Hostmesh CI suite,
# the busy core that suite is graded beside (tests/beside.sh); any that did not run there
# (ONLY=) run after the integration tier.  Their sanitized build stays in the build step: built
# beside the first suites at nice 19 it saved about 10 s of 1777 and loaded those suites.
STEP = t=$$(date +%s); $(MAKE) --no-print-directory $(1) && echo "check: $(2) took $$(($$(date +%s) - t)) s"
CHECK_BESIDE := unit fuzz-check figures-check
check: deps
	@$(call STEP,format-check layers,format and layers)
	@$(call STEP,-j$(NPROC) all $(TEST_BIN) $(TOOL_BIN) $(FUZZ_BIN),the build)
	@$(call STEP,install-check,install-check)
	@rm -rf $(BUILD)/beside
	@$(call STEP,integration BESIDE_TIERS="$(CHECK_BESIDE)",integration)
	@tests/beside.sh rest $(BUILD)/beside $(CHECK_BESIDE)
	@$(call STEP,vm-check,vm-check)

# Tier 3: Soft-RoCE in a qemu VM (needs root: it builds namespaces inside the VM only).
vm-check: deps
	@$(MAKE) --no-print-directory all $(BUILD)/tests/probe/verbs_test
	@tests/vm/run.sh

# The CI suites N times without retries (N=10; LOAD=1 beside stress-ng --cpu 1): each
# scenario's pass rate and the runs its verdict changed in (tests/flake.sh).
flake: deps
	@$(MAKE) --no-print-directory all $(TOOL_BIN)
	@N=$(or $(N),10) tests/flake.sh

# The long scenarios (minutes each), for a nightly job: results.json, junit.xml and reports.
nightly: deps
	@$(MAKE) --no-print-directory all $(TOOL_BIN)
	@rm -rf $(BUILD)/nightly
	@$(BUILD)/rocelab run -o $(BUILD)/nightly --seed 7 scenarios/nightly/*.yaml
	@# every transport scenario, CI's and the nightly's, and the paper's figures side by side
	@TRANSPORT_SUITE=all ONLY=transport tests/vlab/run.sh
	@# the injector suite with every kind's dead-man timer (make check runs one of each undo)
	@INJECT_SUITE=all ONLY=inject tests/vlab/run.sh
	@# the lab reached over SSH, with every CI scenario (make check runs one of each kind)
	@SSH_SUITE=all ONLY=ssh_lab tests/vlab/run.sh
	@# the Soft-RoCE VM tier with every VM scenario (make check leaves out the two silent ones)
	@$(MAKE) --no-print-directory $(BUILD)/tests/probe/verbs_test
	@VM_ENV="VM_SUITE=all" VM_LABEL=vm-nightly tests/vm/run.sh
	@# the randomized Hostmesh sweep: three fixed shapes and two drawn from the date as seed (printed)
	@tests/random/suite.sh -o $(BUILD)/nightly/random $$(grep -v '^#' scenarios/nightly/random/sweep)
	@# the CI suite on a thin lab (12 hosts, 2 rails, 2 spines), graded against what each
	@# monitor can tell apart there (issue 64: rocelab observe -i build/nightly/thin.yaml)
	@$(BUILD)/rocelab inventory gen --hosts 12 --rnics 2 --spines 2 --name thin >$(BUILD)/nightly/thin.yaml
	@$(BUILD)/rocelab run -i $(BUILD)/nightly/thin.yaml -o $(BUILD)/nightly/thin --seed 7 scenarios/ci/*.yaml

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all $(BUILD)/bench/az_bench $(BUILD)/bench/rpa_bench $(BUILD)/bench/wake_replay \
		$(BUILD)/bench/wire_bench
	@tests/bench/lab_bench.sh
	@tests/bench/hostmesh_bench.sh
	@tests/bench/rpm_bench.sh
	@tests/bench/verbs_bench.sh
	@tests/bench/transport_bench.sh
	@tests/bench/scale_bench.sh
	@tests/bench/fanout_bench.sh
	@tests/bench/sim_bench.sh

# The paper's figures table in transport/README.md: generated from the simulator, checked in make check.
figures-table: $(BUILD)/rocelab
	@tests/bench/sim_readme.sh --write

figures-check: $(BUILD)/rocelab
	@tests/bench/sim_readme.sh --check

# The benches' figures against the baseline kept in the tree (issue 59): a regression past 25%
# fails, loudly; bench-record writes a new one from a run on this machine.
bench-check: deps
	@bash -o pipefail -c '$(MAKE) --no-print-directory bench | tee $(BUILD)/bench.out'
	@tests/bench/check.sh tests/bench/baseline.txt $(BUILD)/bench.out

bench-record: deps
	@bash -o pipefail -c '$(MAKE) --no-print-directory bench | tee $(BUILD)/bench.out'
	@tests/bench/check.sh --record $(BUILD)/bench.out >tests/bench/baseline.txt
	@echo "bench-record: tests/bench/baseline.txt written; review 'git diff tests/bench/baseline.txt'"

SHARE     := $(DESTDIR)$(PREFIX)/share
# The pytest plugin: where this python3 looks under PREFIX (Debian: lib/python3.N/dist-packages),
# with the entry point pytest loads it by, so that it needs no -p there.
PYDIR     := $(DESTDIR)$(PREFIX)/$(shell /usr/bin/python3 -c 'import sys; print("lib/python%d.%d/dist-packages" % sys.version_info[:2])' 2>/dev/null)
VERSION   := $(shell sed -n 's/^\#define ROCELAB_VERSION "\(.*\)"$$/\1/p' harness/lib/version.h)
# The man page: what each command is for (harness/cli/rocelab.1), then every command's usage as
# this build prints it with --help (scripts/man.sh): the installed page cannot drift from it.
$(BUILD)/rocelab.1: harness/cli/rocelab.1 scripts/man.sh $(BUILD)/rocelab
	scripts/man.sh $(BUILD)/rocelab harness/cli/rocelab.1 >$@.tmp && mv $@.tmp $@

# The binary, the inventories, every scenario folder (qualification's links copied as files),
# the results schema, the Grafana dashboard, the man page, bash completion and the pytest plugin.
install: $(BUILD)/rocelab $(BUILD)/rocelab-agent $(BUILD)/rocelab.1
	install -d $(DESTDIR)$(PREFIX)/bin $(SHARE)/rocelab/lab-inventory $(SHARE)/man/man1 \
		$(SHARE)/bash-completion/completions
	install -m 0755 $(BUILD)/rocelab $(DESTDIR)$(PREFIX)/bin/rocelab
	install -m 0755 $(BUILD)/rocelab-agent $(DESTDIR)$(PREFIX)/bin/rocelab-agent
	install -m 0644 lab-inventory/*.yaml $(SHARE)/rocelab/lab-inventory/
	for d in $$(cd scenarios && find . -type d); do \
		install -d $(SHARE)/rocelab/scenarios/$$d && \
		find scenarios/$$d -maxdepth 1 -name '*.yaml' -exec install -m 0644 {} \
			$(SHARE)/rocelab/scenarios/$$d/ \; || exit 1; \
	done
	install -m 0644 reports/results.schema.json $(SHARE)/rocelab/
	install -d $(SHARE)/rocelab/grafana
	install -m 0644 reports/grafana/rocelab-dashboard.json $(SHARE)/rocelab/grafana/
	install -m 0644 $(BUILD)/rocelab.1 $(SHARE)/man/man1/rocelab.1
	install -m 0644 harness/cli/rocelab.bash-completion $(SHARE)/bash-completion/completions/rocelab
	install -d $(PYDIR)/pytest_rocelab-$(VERSION).dist-info
	install -m 0644 harness/pytest/pytest_rocelab.py $(PYDIR)/
	printf 'Metadata-Version: 2.1\nName: pytest-rocelab\nVersion: %s\nSummary: rocelab faults in pytest\n' \
		'$(VERSION)' >$(PYDIR)/pytest_rocelab-$(VERSION).dist-info/METADATA
	printf '[pytest11]\nrocelab = pytest_rocelab\n' >$(PYDIR)/pytest_rocelab-$(VERSION).dist-info/entry_points.txt

# In make check: install into build/inst and check what was installed (scripts/install-check.sh).
install-check: $(BUILD)/rocelab $(BUILD)/rocelab-agent
	@scripts/install-check.sh $(BUILD)/inst

format:
	clang-format -i $(FMT_SRC)

# The project's .clang-format, checked (make format applies it).
format-check:
	@clang-format --dry-run --Werror $(FMT_SRC) && echo "format-check: $(words $(FMT_SRC)) files follow .clang-format"

# Each folder includes only from layers below it (scripts/layers.sh lists them).
layers:
	@scripts/layers.sh

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
