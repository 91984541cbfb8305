#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# harness/uapi-check.sh: the series' UAPI against upstream's, at compile
# time. Upstream's include/uapi/linux/bpf.h is the one shipped in the
# vendored libbpf (../shared/vendor, unmodified). A program built against
# that header writes one _Static_assert per fact: the value of every
# enum bpf_attach_type and enum bpf_link_type name upstream has, and the
# offset and size of every field of bpf_attr.link_create.tracing_multi and
# bpf_link_info.tracing_multi. Those asserts are then compiled against the
# tree's two copies of the header (include/uapi, tools/include/uapi): a name
# missing, a number or a layout that drifted fails the compile, and make
# check with it. Names only the series has (BPF_MODIFY_RETURN_MULTI) must
# come after upstream's last value.
. "$(dirname "$0")/lib.sh"

VENDOR_TGZ=${VENDOR_TGZ:-$REPO/../shared/vendor/libbpf-f7081a6b.tar.gz}
[ -f "$VENDOR_TGZ" ] || die "no vendored libbpf at $VENDOR_TGZ (../shared/vendor)"
[ -d "$TREE/.git" ] || "$HARNESS/tree.sh"
out=$BUILD/uapi-check
mkdir -p "$out"
vdir=$out/$(basename "$VENDOR_TGZ" .tar.gz)
[ -d "$vdir" ] || tar -C "$out" -xzf "$VENDOR_TGZ"
up=$vdir/include/uapi/linux/bpf.h
[ -f "$up" ] || die "no include/uapi/linux/bpf.h in $VENDOR_TGZ"

# enumerators of "enum NAME {" in upstream's header, __MAX_* left out
enum_names() {
	sed -n "/^enum $1 {/,/^};/p" "$up" | sed -nE 's/^[[:space:]]+(BPF_[A-Z0-9_]+).*/\1/p'
}

# this run's files: make check for two arches at once runs it twice
run=$(mktemp -d "$out/run.XXXXXX")
trap 'rm -rf "$run"' EXIT
gen=$run/gen.c
{
	echo '#include <stdio.h>'
	echo '#include <stddef.h>'
	echo '#include <linux/bpf.h>'
	echo '#define A(x) printf("_Static_assert(%s == %lld, \"%s: %lld upstream\");\n", #x, (long long)(x), #x, (long long)(x))'
	echo '#define L(s, f) printf("_Static_assert(offsetof(%s, %s) == %zu && sizeof(((%s *)0)->%s) == %zu, \"%s.%s: offset %zu size %zu upstream\");\n", #s, #f, offsetof(s, f), #s, #f, sizeof(((s *)0)->f), #s, #f, offsetof(s, f), sizeof(((s *)0)->f))'
	echo 'int main(void)'
	echo '{'
	echo '	printf("#include <stddef.h>\n#include <linux/bpf.h>\n");'
	for n in $(enum_names bpf_attach_type) $(enum_names bpf_link_type); do
		echo "	A($n);"
	done
	echo '	printf("_Static_assert(BPF_MODIFY_RETURN_MULTI >= %d, \"series-only values after upstream'"'"'s\");\n", __MAX_BPF_ATTACH_TYPE);'
	for f in ids cookies cnt; do
		echo "	L(union bpf_attr, link_create.tracing_multi.$f);"
	done
	echo '	L(union bpf_attr, link_create.target_fd);'
	echo '	L(union bpf_attr, link_create.attach_type);'
	echo '	L(union bpf_attr, link_create.flags);'
	for f in attach_type count btf_obj_id ids addrs cookies; do
		echo "	L(struct bpf_link_info, tracing_multi.$f);"
	done
	echo '	L(struct bpf_link_info, type);'
	echo '	L(struct bpf_link_info, id);'
	echo '	L(struct bpf_link_info, prog_id);'
	echo '	L(struct bpf_prog_info, attach_btf_obj_id);'
	echo '	L(struct bpf_prog_info, attach_btf_id);'
	echo '	L(union bpf_attr, attach_btf_obj_fd);'
	echo '	L(union bpf_attr, attach_btf_id);'
	echo '	L(union bpf_attr, expected_attach_type);'
	echo '	return 0;'
	echo '}'
} > "$gen"
cc -o "$run/gen" -I "$vdir/include/uapi" -I "$vdir/include" "$gen" || die "uapi-check: generator does not build"
"$run/gen" > "$run/asserts.c"
n=$(grep -c _Static_assert "$run/asserts.c")
# Each header alone (its other includes from the system's linux-libc-dev).
for inc in include/uapi tools/include/uapi; do
	rm -rf "$run/inc"; mkdir -p "$run/inc/linux"
	cp "$TREE/$inc/linux/bpf.h" "$run/inc/linux/bpf.h"
	if ! cc -fsyntax-only -I "$run/inc" "$run/asserts.c" 2> "$run/errors.log"; then
		grep -E 'error' "$run/errors.log" | head -n 20 >&2
		die "uapi-check: $inc/linux/bpf.h differs from upstream's (vendored libbpf)"
	fi
done
log "uapi-check: $n facts of upstream's bpf.h hold in include/uapi and tools/include/uapi"
