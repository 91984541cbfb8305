# SPDX-License-Identifier: GPL-2.0
# Read after the selftests Makefile (make -f Makefile -f this) by
# selftests.sh. The compiler's .d files name light skeletons by basename,
# like skeletons; upstream maps only "%.skel.h" basenames to $(OUTPUT), so
# with OUTPUT outside the source directory a rebuild stops with "No rule to
# make target 'x.lskel.h'". Map light skeletons the same way.
%.lskel.h: $(OUTPUT)/%.lskel.h
	@true

# The test modules bpf_test_livepatch.ko and bpf_test_ipmodify.ko, built as
# upstream builds bpf_test_no_cfi.ko.
define test_module
$$(OUTPUT)/$(1).ko: $$(VMLINUX_BTF) $$(RESOLVE_BTFIDS) $$(wildcard $(1)/Makefile $(1)/*.[ch])
	$$(call msg,MOD,,$$@)
	$$(Q)$$(RM) $(1)/$(1).ko # force re-compilation
	$$(Q)$$(MAKE) $$(submake_extras) RESOLVE_BTFIDS=$$(RESOLVE_BTFIDS) -C $(1)
	$$(Q)cp $(1)/$(1).ko $$@
endef
$(foreach m,bpf_test_livepatch bpf_test_ipmodify,$(eval $(call test_module,$(m))))
