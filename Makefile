# SPDX-License-Identifier: GPL-2.0
# pidx: out-of-tree build of pidx.ko, plus the project's own jobs.
# The module's objects are listed in Kbuild; this file only drives Kbuild
# and the scripts.

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build

.PHONY: all module clean install help check check-debug check-matrix bench user \
	system-kernel systest sysbench

# Without headers, one line that says what to do, instead of Kbuild's errors.
ifneq ($(filter all module install,$(or $(MAKECMDGOALS),all)),)
ifeq ($(wildcard $(KDIR)/Makefile),)
$(error pidx: no kernel headers at $(KDIR): as root, apt-get install linux-headers-$(KVER) (the running kernel's), or pass KDIR=/path/to/headers)
endif
endif

all: module

module:
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" modules

clean:
	@if [ -f "$(KDIR)/Makefile" ]; then $(MAKE) -C "$(KDIR)" M="$(CURDIR)" clean; \
	else rm -f ./*.o ./*.ko ./*.mod ./*.mod.c ./.*.cmd ./selftest/*.o ./selftest/.*.cmd \
		Module.symvers modules.order; fi
	@$(MAKE) -s -C user clean
	@$(MAKE) -s -C system/systest clean
	@$(MAKE) -s -C system/sysbench clean

install:
	$(MAKE) -C "$(KDIR)" M="$(CURDIR)" modules_install

# The index files built natively with the kernel's own lib/ files: user/pidx-user.
user:
	$(MAKE) -C user KDIR="$(KDIR)"

# The system kernel: Debian's 6.1 with system/patches/, this tree's indexes in
# kernel/pidx/ (docs/system.md); built once and cached.  Its last line of
# output is the bzImage's path.
system-kernel:
	@paths=$$(scripts/build-debug-kernel.sh --system) && \
		echo "$$paths" | sed -n 's/^KERNEL=//p'

# The static test program that checks the kernel's PID rules with each index.
systest:
	$(MAKE) -C system/systest

# The system benchmark's static workload program (docs/measuring.md, "The
# system view").  Its last line of output is the program's path.
sysbench:
	@$(MAKE) -s -C system/sysbench && echo "$(CURDIR)/system/sysbench/pidx-sysbench"

# The test suite: every check, ends with "N passed, N failed".
check:
	@tests/run-all.sh

# The guest suite again under the KASAN and the KCSAN kernel (each built once, cached).
check-debug:
	@tests/run-all.sh --debug-kernel-only

# Build and guest-test pidx.ko on Debian 11, 12 and 13 stock kernels (chroots, cached).
check-matrix:
	@scripts/check-matrix.sh

# The main job: sweep, record, plot (natively, or in a stock kernel under QEMU;
# there also natively in user space and under cachegrind: scripts/bench.sh --help).
bench:
	@scripts/bench.sh $(if $(filter 1 yes true,$(FULL)),--full) \
		$(if $(filter 1 yes true,$(REFERENCE)),--reference) \
		$(if $(filter 1 yes true,$(SYSTEM)),--system) $(if $(filter 0 no false,$(SYSTEM)),--no-system)

help:
	@echo "pidx targets:"
	@echo "  make [all]      build pidx.ko against KDIR (default /lib/modules/\$$(uname -r)/build)"
	@echo "  make clean      remove build outputs"
	@echo "  make install    modules_install into /lib/modules/<release>/"
	@echo "  make check      the whole test suite (installs prerequisites as root)"
	@echo "  make check-debug the guest tests again under the KASAN/lockdep and KCSAN kernels (built once)"
	@echo "  make check-matrix build + guest suite on Debian 11/12/13 stock kernels (root; chroots cached)"
	@echo "  make bench      benchmark sweep and plots (FULL=1 for the full sweep); under QEMU also"
	@echo "                  the user-space and cachegrind sweeps; see scripts/bench.sh --help"
	@echo "  make user       user/pidx-user: the index files and the kernel's lib/ built natively"
	@echo "  make system-kernel  Debian's 6.1 with pidx's indexes as its PID index (pidx.index=);"
	@echo "                  prints the bzImage's path last (docs/system.md)"
	@echo "  make systest    system/systest/pidx-systest, the system kernel's static test program"
	@echo "  make sysbench   system/sysbench/pidx-sysbench, the system benchmark's workloads;"
	@echo "                  prints its path last"
	@echo "  make bench SYSTEM=1  also the system kernel once per index under QEMU (builds it)"
	@echo "variables: KDIR=<headers dir>  KVER=<kernel release>  W=1  C=1"
