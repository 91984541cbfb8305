# SPDX-License-Identifier: GPL-2.0
# fentry.multi for Linux 6.12: the harness. See README.md.
#
#   make run                 build, boot the x86-64 kernel, run the demo
#   make check [ARCH=...]    build the kernels (x86-64, its mitigations variant, arm64) and selftests, run them in QEMU
#   make bench [ARCH=...]    attach benchmark in QEMU (prints numbers)
#   make stress [ARCH=...] [ROUNDS=n]  attach/detach stress loop in QEMU
#   make canary [ARCH=...]   does the emulator run cross-modified code right?
#   make regress [ARCH=...] [SUITES=...]  the kernel's own suites, base vs patched
#   make kallsyms-test [ARCH=...]  the kernel's kallsyms selftest in QEMU
#   make series              the series as format-patch files in build/series
#   make series-check        build every patch of the series (x86-64)
#   make tree | refresh | status | kernel | selftests

ARCH ?= all
ARCHES := $(if $(filter all,$(ARCH)),x86_64 arm64,$(ARCH))
H := harness

.PHONY: all run check bench stress canary regress kallsyms-test tree refresh status kernel selftests series series-check clean help
all: help
help:
	@sed -n '2,14p' Makefile | sed 's/^# \{0,1\}//'

tree:
	@$(H)/tree.sh
refresh:
	@$(H)/refresh.sh
status:
	@$(H)/status.sh
kernel:
	@set -e; for a in $(ARCHES); do $(H)/kernel.sh $$a; done
selftests:
	@set -e; for a in $(ARCHES); do $(H)/selftests.sh $$a; done
check:
	@$(H)/check.sh $(ARCHES)
run:
	@$(H)/run.sh
bench:
	@set -e; for a in $(if $(filter all,$(ARCH)),x86_64,$(ARCH)); do $(H)/bench.sh $$a; done
stress:
	@set -e; for a in $(if $(filter all,$(ARCH)),x86_64,$(ARCH)); do $(H)/stress.sh $$a; done
regress:
	@rc=0; for a in $(ARCHES); do $(H)/regress.sh $$a || rc=1; done; exit $$rc
kallsyms-test:
	@set -e; for a in $(ARCHES); do $(H)/kallsyms-test.sh $$a; done
canary:
	@set -e; for a in $(ARCHES); do $(H)/canary.sh $$a; done
series:
	@$(H)/series.sh
series-check:
	@$(H)/series-check.sh
clean:
	rm -rf build/x86_64 build/arm64 build/selftests-* build/check build/bench build/stress build/canary build/run build/demo-* \
		build/series build/series-* build/regress
