# SPDX-License-Identifier: GPL-2.0
# Read after the selftests Makefile (make -f Makefile -f this) by
# selftests.sh. The compiler's .d files name light skeletons by basename,
# like skeletons; upstream maps only "%.skel.h" basenames to $(OUTPUT), so
# with OUTPUT outside the source directory a rebuild stops with "No rule to
# make target 'x.lskel.h'". Map light skeletons the same way.
%.lskel.h: $(OUTPUT)/%.lskel.h
	@true
