# SPDX-License-Identifier: GPL-2.0
# Read after the selftests Makefile (make -f Makefile -f this) by
# selftests.sh. The compiler's .d files name light skeletons by basename,
# like skeletons; upstream maps only "%.skel.h" basenames to $(OUTPUT), so
# with OUTPUT outside the source directory a rebuild stops with "No rule to
# make target 'x.lskel.h'". Map light skeletons the same way.
%.lskel.h: $(OUTPUT)/%.lskel.h
	@true

# bpf_test_livepatch.ko, built as upstream builds bpf_test_no_cfi.ko.
$(OUTPUT)/bpf_test_livepatch.ko: $(VMLINUX_BTF) $(RESOLVE_BTFIDS) $(wildcard bpf_test_livepatch/Makefile bpf_test_livepatch/*.[ch])
	$(call msg,MOD,,$@)
	$(Q)$(RM) bpf_test_livepatch/bpf_test_livepatch.ko # force re-compilation
	$(Q)$(MAKE) $(submake_extras) RESOLVE_BTFIDS=$(RESOLVE_BTFIDS) -C bpf_test_livepatch
	$(Q)cp bpf_test_livepatch/bpf_test_livepatch.ko $@
