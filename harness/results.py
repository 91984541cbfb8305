#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""results.py ARCH TEST_PROGS_LOG CONSOLE_LOG [DMESG_LOG [ALLOW_FILE [FAILURES]]]

Reads a test_progs log and the guest's kernel logs. Prints one line per
test, the kernel splats found, and last a line "ARCH: N passed, N failed,
N skipped, N splats". With FAILURES, writes there the failed subtests and
assertions. Exit status 1 when a test failed, a listed test did
not run, or the kernel splatted.
"""
import os
import re
import sys

HARNESS = os.path.dirname(os.path.abspath(__file__))

# Kernel messages that fail a run, whatever the tests say.
# kmemleak's own failures are splats; the leaks it suspects are judged by
# tracing_multi_fault/kmemleak, which fails on objects of the series (a
# kernel with kmemleak also suspects objects of boot code). Not a failure:
# "Cannot allocate a scan area, scanning the full object" (mm/kmemleak.c:
# an injected slab failure hit kmemleak's own scan-area allocation; it then
# scans the whole object, which can hide no leak and report no false one).
SPLAT = re.compile(
    r"WARNING:|BUG:|Oops|Kernel panic|general protection fault|"
    r"Unable to handle kernel|Internal error:|cut here|Call [Tt]race:|"
    r"INFO: task .* blocked|rcu: INFO|INFO: rcu|possible circular locking|"
    r"possible recursive locking|inconsistent lock state|suspicious RCU usage|"
    r"sleeping function called from invalid context|DEBUG_LOCKS_WARN_ON|"
    r"UBSAN:|KASAN:|kmemleak: Cannot (?!allocate a scan area)|kmemleak: .*disabled|refcount_t:|"
    r"list_(add|del) corruption|"
    r"hung_task|soft lockup|hard LOCKUP|stack-protector")


def listed(name):
    out = []
    with open(os.path.join(HARNESS, "tests", name)) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line and not line.startswith("@"):
                out.append(line)
    return out


def deny_reasons(arch):
    reasons = {}
    path = os.path.join(HARNESS, "tests", "deny." + arch)
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                if line.startswith("#") or not line.strip():
                    continue
                name, _, why = line.partition("#")
                reasons[name.strip()] = why.strip()
    return reasons


def write_failures(arch, tlog, path):
    """Write to @path the failed subtests and assertions of @tlog (at most
    30 lines): make check prints them after its summary, so that the end
    of its output says what failed."""
    out = []
    if os.path.exists(tlog):
        with open(tlog, errors="replace") as f:
            for line in f:
                line = line.rstrip()
                if re.match(r"^#\d+(/\d+)?\s+\S+:FAIL", line) or \
                   re.search(r":FAIL:", line):
                    out.append(f"  {arch} {line[:200]}")
    with open(path, "w") as f:
        f.write("\n".join(out[:30]) + ("\n" if out else ""))


def main():
    arch, tlog, clog = sys.argv[1:4]
    dlog = sys.argv[4] if len(sys.argv) > 4 else None
    want = listed("list")
    if len(sys.argv) > 5:	# the tests this run was to run (a variant's list, TESTS=)
        with open(sys.argv[5]) as f:
            want = [line.strip() for line in f if line.strip()]
    deny = deny_reasons(arch)
    got = {}
    if os.path.exists(tlog):
        with open(tlog, errors="replace") as f:
            for line in f:
                m = re.match(r"^#\d+\s+([^/\s:]+):(OK|FAIL|SKIP)", line)
                if m:
                    got[m.group(1)] = m.group(2)
    passed = failed = skipped = 0
    for t, why in deny.items():
        if "/" in t and t.split("/")[0] in want:
            print(f"  {arch} {t}: DENIED ({why})")
    for t in want:
        if t in deny:
            print(f"  {arch} {t}: DENIED ({deny[t]})")
            skipped += 1
            continue
        r = got.get(t, "NOT RUN")
        print(f"  {arch} {t}: {r}")
        if r == "OK":
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
    splats = []
    seen = set()
    for path in (clog, dlog):
        if not path or not os.path.exists(path):
            continue
        with open(path, errors="replace") as f:
            for line in f:
                if line.startswith("TP: "):
                    continue
                text = re.sub(r"^\[\s*[\d.]+\]\s*", "", line.rstrip())
                if SPLAT.search(text) and text not in seen:
                    seen.add(text)
                    splats.append(text)
    for s in splats[:40]:
        print(f"  {arch} kernel: {s}")
    if failed and len(sys.argv) > 6:
        write_failures(arch, tlog, sys.argv[6])
    print(f"{arch}: {passed} passed, {failed} failed, {skipped} skipped, "
          f"{len(splats)} splats")
    return 1 if failed or splats else 0


if __name__ == "__main__":
    sys.exit(main())
