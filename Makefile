# The two commands of the README: `make run` and `make test`.  Both
# install what is missing (Debian packages), build, and run.
BUILD      ?= build
BUILD_ASAN ?= build-asan
BUILD_TESTPOINTS ?= build-testpoints
CELL        = $(BUILD)/cell
DEMO_ROOT  ?= /tmp/cell-demo-state

.PHONY: all deps deps-test deps-engines compat build build-tests build-asan build-testpoints run test unit integration security bench bench-jails bench-rootless bench-net bench-oci bench-vm test-vm text-order install clean format

all: build

deps:
	@./scripts/install-deps.sh build

deps-test:
	@./scripts/install-deps.sh test

# qemu for tests/vm; a failed install is not fatal: the VM suite is then
# one skip.
.PHONY: deps-vm
deps-vm:
	@./scripts/install-deps.sh vm || echo "cell: qemu could not be installed; the VM suite is skipped" >&2

# The engines of tests/engines; a failed install is not fatal: run.sh
# counts those suites as skipped.
deps-engines:
	@./scripts/install-deps.sh engines || echo "cell: the engines (podman, containerd, docker.io) could not be installed; their suites are skipped" >&2

$(BUILD)/build.ninja:
	@meson setup $(BUILD) >$(BUILD).log || { cat $(BUILD).log; rm -rf $(BUILD); exit 1; }

build: deps $(BUILD)/build.ninja
	@ninja -C $(BUILD) --quiet

$(BUILD_ASAN)/build.ninja:
	@CC=clang meson setup $(BUILD_ASAN) -Dbuildtype=debug -Db_sanitize=address,undefined \
		-Db_lundef=false -Dstatic_deps=false -Dstatic=false >$(BUILD_ASAN).log || { cat $(BUILD_ASAN).log; rm -rf $(BUILD_ASAN); exit 1; }

build-asan: deps-test $(BUILD_ASAN)/build.ninja
	@ninja -C $(BUILD_ASAN) --quiet

# cell with the pause points of the reliability tests (src/lib/testpoint.h);
# never installed.
$(BUILD_TESTPOINTS)/build.ninja:
	@meson setup $(BUILD_TESTPOINTS) -Dtestpoints=true >$(BUILD_TESTPOINTS).log || { cat $(BUILD_TESTPOINTS).log; rm -rf $(BUILD_TESTPOINTS); exit 1; }

build-testpoints: deps $(BUILD_TESTPOINTS)/build.ninja
	@ninja -C $(BUILD_TESTPOINTS) --quiet cell cell-net

# A demo jail on the embedded root: the host's files read-only, fresh
# /proc /dev /tmp, its own hostname, pid 1.
run: build
	@$(CELL) --root $(DEMO_ROOT) run --name demo --hostname demo -- /bin/sh -c '\
		echo "inside jail: hostname=$$(hostname) pid=$$$$ uid=$$(id -u)"; \
		echo "uname: $$(uname -srm)"; \
		echo "processes:"; ps -e -o pid,comm 2>/dev/null || ls /proc | grep -E "^[0-9]+$$"; \
		echo "mounts:"; cut -d" " -f5,9 /proc/self/mountinfo; \
		if touch /etc/cell-demo 2>/dev/null; then echo "/ is writable?!"; else echo "/ is read-only"; fi; \
		echo hello > /tmp/demo && echo "/tmp is a fresh tmpfs: $$(cat /tmp/demo)"'
	@echo "host: hostname=$$(hostname), unchanged"

# The test packages first: a build configured before cmocka was installed
# has no unit tests (and is configured again here if it was).
test: deps-test deps-engines deps-vm build-tests build-asan build-testpoints
	@./tests/run.sh $(BUILD) $(BUILD_ASAN) $(BUILD_TESTPOINTS)

build-tests: deps-test $(BUILD)/build.ninja
	@ninja -C $(BUILD) -t targets all | grep -q '^tests/unit/test_spec:' || \
		meson setup --reconfigure $(BUILD) >$(BUILD).log || { cat $(BUILD).log; exit 1; }
	@ninja -C $(BUILD) --quiet

unit: build-tests
	@meson test -C $(BUILD) --print-errorlogs

integration: build build-testpoints
	@CELL=$(abspath $(CELL)) CELL_TESTPOINTS=$(abspath $(BUILD_TESTPOINTS)/cell) bats tests/integration

security: build build-testpoints
	@CELL=$(abspath $(CELL)) CELL_TESTPOINTS=$(abspath $(BUILD_TESTPOINTS)/cell) bats tests/security

bench: build
	@./scripts/install-deps.sh bench
	@./tests/bench/startup.sh $(CELL)

# Named jails: run -d/stop/rm of 200, idle memory, ls of 200 and 1000,
# exec against runc and nsenter (tests/bench/jails.sh).  Root.
bench-jails: build
	@./scripts/install-deps.sh bench
	@./tests/bench/jails.sh $(CELL)

# Rootless: cell run as a plain user (single mapping, subordinate ranges)
# against cell as root, bwrap and rootless crun as the same user, and
# callgrind counts of the start (tests/bench/rootless.sh).  Root (it makes
# the throwaway users).
bench-rootless: build
	@./scripts/install-deps.sh bench
	@./tests/bench/rootless.sh $(CELL)

# The OCI runtime: cell-oci against crun and runc (run, create+start+delete,
# peak RSS, callgrind, 200 detached containers, podman run --rm with each;
# tests/bench/oci.sh).  Root.
# The network: --net bridge vs none vs host, bridge throughput against
# loopback, 1000 --net none jails (tests/bench/net.sh), in a network
# namespace of its own.  Root.
bench-net: build
	@./scripts/install-deps.sh bench
	@./tests/bench/net.sh $(CELL)

bench-oci: build
	@./scripts/install-deps.sh bench
	@./tests/bench/oci.sh $(BUILD)/cell-oci

# startup.sh's comparison in a cgroup v2 VM, where crun runs.
bench-vm: build
	@./tests/bench/vm-startup.sh $(CELL)

# The cgroup v2 backend and rootless cgroups, in a VM (qemu) booting a
# Debian kernel (tests/vm/kernel.sh) with cgroup2 mounted: for hosts
# whose own cgroups are v1 or hybrid.  Root.  Also part of `make test`.
test-vm: build
	@./scripts/install-deps.sh vm
	@./tests/vm/cgroup2.sh

# The OCI conformance suite (tests/oci) against Debian's runc and crun
# side by side (and cell-oci): counts in $(BUILD)/compat/summary.txt,
# the tests whose results differ in differences.txt.  Not in `make
# test`; docs/COMPATIBILITY.md records the counts.  Root.
compat: build
	@./scripts/install-deps.sh compat
	@./tests/oci/compat.sh $(BUILD)

# cell (and cell-oci), cell(8), the boot unit cell.service; DESTDIR
# stages them (make install DESTDIR=/tmp/pkg).
install: build
	@meson install -C $(BUILD) $(if $(DESTDIR),--destdir "$(DESTDIR)")

# src/text-order.ld again, from single-stepped starts of this tree
# (scripts/text-order.sh: about four minutes, as root); then make build.
text-order: deps
	@./scripts/install-deps.sh test
	@./scripts/text-order.sh

format:
	@clang-format -i src/lib/*.[ch] src/cli/*.[ch] tests/unit/*.c tests/bench/*.c tests/fuzz/*.c src/init/*.c src/gen/*.c scripts/*.c

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_TESTPOINTS)
