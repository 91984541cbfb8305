#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""regress.py: the guest jobs of make regress, their results, the report.

  regress.py job SUITE KERNEL ARCH OUT RES
      print the guest's shell job for the tests of SUITE without a result
      in RES yet
  regress.py collect SUITE KERNEL ARCH OUT RES BOOT GUEST_OK
      add the results of boot BOOT (BOOT.log, BOOT.console) to RES; a test
      the guest died in fails ("crash"); print "done" or what is left.
      GUEST_OK "interrupted": a boot whose make regress was stopped; the
      test it was in has no result and runs again
  regress.py report ARCH OUT SECONDS SUITE...
      compare base and patched per suite; last line
      "regress ARCH: N regressions"

RES holds one "STATUS NAME" line per test (PASS, FAIL, SKIP), and
"SPLAT text" lines for the kernel's splats during the suite. "RETRY NAME":
the test failed in a guest that could not calibrate its TSC (NOCLOCK), and
is not counted: it runs again in another boot, and what it does there counts.
"""
import os
import re
import sys

HARNESS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HARNESS)
from results import SPLAT  # noqa: E402

BUILD = os.environ["BUILD"]	# regress.sh's build/, /work in the guest


def guest(path):
    return "/work" + path[len(BUILD):]


def kout(kernel, arch):
    if kernel == "base":
        return os.path.join(BUILD, "regress", arch + "-base")
    if kernel == "patched":
        return os.path.join(BUILD, arch + "-regress")
    return os.path.join(BUILD, arch)	# "check": make check's kernel


def read_res(res, status=None):
    """The tests of RES with their status; with STATUS, the names with it."""
    done = {}
    if os.path.exists(res):
        for line in open(res):
            st, _, name = line.rstrip("\n").partition(" ")
            if status is not None:
                if st == status:
                    done[name] = st
            elif st not in ("SPLAT", "RETRY"):
                done[name] = st
    return done


def todo_list(suite, kernel, out):
    path = os.path.join(out, "%s-%s.list" % (suite, kernel))
    if not os.path.exists(path):
        return None
    return [x.strip() for x in open(path) if x.strip()]


def job(suite, kernel, arch, out, res):
    o = guest(out)
    k = guest(kout(kernel, arch))
    lst = "%s/%s-%s.list" % (o, suite, kernel)
    left = todo_list(suite, kernel, out)
    done = read_res(res)
    boot = 1 + sum(1 for f in os.listdir(out)
                   if f.startswith("%s-%s." % (suite, kernel)) and f.endswith(".console"))
    g = "%s/%s-%s.%d" % (o, suite, kernel, boot)
    print("set -o pipefail")
    print("export PATH=/bin:/sbin:/usr/sbin:/usr/bin")
    # The host's tools where they run (x86-64): bash, util-linux.
    print("bash -c true 2>/dev/null && export PATH=/usr/sbin:/usr/bin:/sbin:/bin")
    # The links /usr has into the host's / (awk, kmod's tools), where the
    # guest has busybox or nothing; and the kernel's modules.
    print("mkdir -p /tmp/bin")
    print("/usr/bin/mawk -W version >/dev/null 2>&1 && ln -sf /usr/bin/mawk /tmp/bin/awk")
    # /lib/modules is the host's /usr/lib/modules, read-only and maybe
    # absent: modprobe and modinfo read this kernel's from its build
    print("if /usr/bin/kmod --version >/dev/null 2>&1; then")
    print("  for t in insmod rmmod lsmod; do ln -sf /usr/bin/kmod /tmp/bin/$t; done")
    # (bash: busybox's sh runs its own applet of a command's name)
    print("  printf '#!/usr/bin/bash\\nexec -a modprobe /usr/bin/kmod -d %s/mods \"$@\"\\n' > /tmp/bin/modprobe" % k)
    print("  printf '#!/usr/bin/bash\\nexec -a modinfo /usr/bin/kmod -b %s/mods \"$@\"\\n' > /tmp/bin/modinfo" % k)
    print("  chmod +x /tmp/bin/modprobe /tmp/bin/modinfo")
    # arm64: the host's kmod does not run; busybox's modprobe reads
    # /lib/modules, a link into the host's /usr/lib, which has no modules
    # directory and is read-only: put a /usr/lib of links to the host's
    # entries and to this kernel's modules over it
    print("else")
    print("  mkdir -p /tmp/usrlib && for e in /host/usr/lib/*; do ln -s \"$e\" /tmp/usrlib/; done")
    print("  ln -s %s/mods/lib/modules /tmp/usrlib/modules && mount -o bind /tmp/usrlib /usr/lib" % k)
    print("fi")
    # the host's which is a link into its /etc/alternatives, which the
    # guest does not have: busybox's (ftracetest's "requires: X:program")
    print("ln -sf /bin/busybox /tmp/bin/which")
    print("export PATH=/tmp/bin:$PATH")
    # livepatch's functions.sh calls /bin/stat --format: the host's stat
    print("/usr/bin/stat --version >/dev/null 2>&1 && ln -sf /usr/bin/stat /bin/stat")
    print("echo 'regress: %s on %s' > %s.log" % (suite, kernel, g))
    if left is not None:
        todo = [t for t in left if t not in done]
        with open(os.path.join(out, "%s-%s.todo" % (suite, kernel)), "w") as f:
            f.write("".join(t + "\n" for t in todo))
    if suite in ("test_progs", "parallel"):
        if suite == "test_progs":
            print("cd %s/run-%s" % (o, kernel))
            args = ""
        else:
            sout = guest(os.path.join(BUILD, "selftests-" + arch))
            print("cd %s" % sout)
            args = "-j -d @%s/parallel.deny" % o
        if left is None:
            print("./test_progs %s -l 2>/dev/null | sort > %s" % (args, lst) if suite == "test_progs"
                  else "cp %s/parallel.allow %s" % (o, lst))
            print("./test_progs %s -a @%s 2>&1 | tee -a %s.log" % (args, lst, g))
        else:
            print("./test_progs %s -a @%s/%s-%s.todo 2>&1 | tee -a %s.log" % (args, o, suite, kernel, g))
        print("echo \"REGRESS-END $?\" >> %s.log" % g)
    elif suite == "test_verifier":
        print("cd %s/run-%s" % (o, kernel))
        start = 0
        nums = [int(n.split("/")[0]) for n in done]
        if nums:
            start = max(nums) + 1
        print("./test_verifier %s 2>&1 | tee -a %s.log" % (str(start) if start else "", g))
        print("echo \"REGRESS-END $?\" >> %s.log" % g)
    elif suite == "ftrace":
        base = guest(os.path.join(BUILD, "regress", "linux-base"))
        print("cd %s/tools/testing/selftests/ftrace" % base)
        if left is None:
            print("find test.d -name '*.tc' | sort > %s" % lst)
            src = lst
        else:
            src = "%s/%s-%s.todo" % (o, suite, kernel)
        print("SH=sh; bash -c true 2>/dev/null && SH=bash")
        print("for tc in $(cat %s); do" % src)
        print("  echo \"REGRESS-START $tc\" >> %s.log" % g)
        # each test's log (its xtrace) kept beside the results
        print("  timeout 900 $SH ./ftracetest -l %s/ftlogs-%s $tc 2>&1 | tee -a %s.log"
              % (o, kernel, g))
        print("  echo \"REGRESS-TC $tc $?\" >> %s.log" % g)
        print("done")
        print("echo \"REGRESS-END 0\" >> %s.log" % g)
    elif suite == "livepatch":
        print("cd %s/livepatch-%s" % (o, kernel))
        if left is None:
            print("ls -1 test-*.sh | sort > %s" % lst)
            src = lst
        else:
            src = "%s/%s-%s.todo" % (o, suite, kernel)
        print("for t in $(cat %s); do" % src)
        print("  echo \"REGRESS-START $t\" >> %s.log" % g)
        print("  KDIR=%s timeout 900 bash ./$t 2>&1 | tee -a %s.log" % (k, g))
        print("  echo \"REGRESS-TC $t $?\" >> %s.log" % g)
        print("done")
        print("echo \"REGRESS-END 0\" >> %s.log" % g)
    print("dmesg > %s.dmesg" % g)


TP = re.compile(r"^#(\d+)(?:/(\d+))?\s+(\S.*?):(OK|FAIL|SKIP)\s*$")
TV = re.compile(r"^#(\d+/\w+) (.*) (OK|FAIL|SKIP)(?: .*)?$")
FT = re.compile(r"^\[\d+\] (.*)\t\[(PASS|FAIL|UNSUPPORTED|UNRESOLVED|UNTESTED|XFAIL)\]")
FT_MAP = {"PASS": "PASS", "XFAIL": "PASS", "FAIL": "FAIL", "UNRESOLVED": "FAIL",
          "UNSUPPORTED": "SKIP", "UNTESTED": "SKIP"}


# An x86-64 guest booted while the host was too loaded to calibrate its
# TSC: sched_clock() then counts jiffies (4 ms), and a test that times
# something short (enable_stats: a program's run time) reads 0.
NOCLOCK = re.compile(r"could not calculate TSC khz")


def top_test(suite, name):
    """The test of the suite's list that NAME is, or is a subtest of."""
    return name.split("/")[0] if suite in ("test_progs", "parallel") else name


def collect(suite, kernel, arch, out, res, boot, guest_ok):
    log = boot + ".log"
    lines = open(log, errors="replace").read().splitlines() if os.path.exists(log) else []
    done = read_res(res)
    new = []
    ended = any(x.startswith("REGRESS-END") for x in lines)
    if suite in ("test_progs", "parallel"):
        for x in lines:
            m = TP.match(x)
            if m:
                new.append(({"OK": "PASS"}.get(m.group(4), m.group(4)), m.group(3)))
    elif suite == "test_verifier":
        for x in lines:
            m = TV.match(x)
            if m:
                new.append((m.group(3).replace("OK", "PASS"), m.group(1) + " " + m.group(2)))
    else:
        cur, st = None, None
        for x in lines:
            if x.startswith("REGRESS-START "):
                cur, st = x.split(" ", 1)[1], None
                continue
            m = FT.match(x)
            if m and cur:
                st = FT_MAP[m.group(2)]
                continue
            if x.startswith("REGRESS-TC ") and cur:
                rc = int(x.split()[-1])
                if suite == "livepatch":
                    st = "PASS" if rc == 0 else "SKIP" if rc == 4 else "FAIL"
                elif rc == 124:
                    st = "FAIL"
                new.append((st or ("PASS" if rc == 0 else "FAIL"), cur))
                cur = None
    splats = []
    noclock = False
    con = boot + ".console"
    if os.path.exists(con):
        for x in open(con, errors="replace"):
            if SPLAT.search(x):
                splats.append(re.sub(r"^\[[ 0-9.]+\] ", "", x.strip())[:160])
            noclock = noclock or bool(NOCLOCK.search(x))
    left = todo_list(suite, kernel, out)
    # without a clock, a failed test of the list runs again, once
    retry = set()
    if noclock and left is not None:
        retried = read_res(res, "RETRY")
        retry = set(top_test(suite, name) for st, name in new if st == "FAIL") & set(left)
        retry -= set(retried) | set(done)
    with open(res, "a") as f:
        for t in sorted(retry):
            f.write("RETRY %s\n" % t)
        for st, name in new:
            if name not in done and top_test(suite, name) not in retry:
                f.write("%s %s\n" % (st, name))
                done[name] = st
        for s in splats[:20]:
            f.write("SPLAT %s\n" % s)
    if guest_ok == "interrupted":
        return "salvaged %d results" % len(new)
    again = "%d to run again (the guest could not calibrate its TSC)" % len(retry)
    if suite == "test_verifier":
        if ended or not lines:
            return "done"
        return "resume after #%s" % max(int(n.split("/")[0]) for n in done) if done else "nothing ran"
    if left is None:
        return "done" if ended else "no test list"
    rest = [t for t in left if t not in done and t not in retry]
    if not rest:
        return again if retry else "done"
    if ended and guest_ok == "1":
        # the suite ended without a result for these: they did not run
        with open(res, "a") as f:
            for t in rest:
                f.write("SKIP %s\n" % t)
        return again if retry else "done"
    # the guest died in the first test without a result
    with open(res, "a") as f:
        f.write("FAIL %s\n" % rest[0])
    with open(boot + ".crash", "w") as f:
        f.write(rest[0] + "\n")
    if len(rest) > 1 or retry:
        return "%d tests left, %s failed (crash)%s" % (len(rest) - 1, rest[0],
                                                        ", " + again if retry else "")
    return "done"


def causes(name="regress.causes"):
    """harness/regress.causes: SUITE REGEX CAUSE, for tests failing on both;
    harness/regress.expected: SUITE REGEX REASON, for a test whose failure
    on the patched kernel only is the series' intended change."""
    out = []
    path = os.path.join(HARNESS, name)
    if os.path.exists(path):
        for line in open(path):
            line = line.split("#", 1)[0].strip()
            if line:
                suite, rx, cause = line.split(None, 2)
                out.append((suite, re.compile(rx), cause))
    return out


def report(arch, out, secs, suites):
    cs = causes()
    xs = causes("regress.expected")
    total = 0
    print("== make regress %s (%d s)" % (arch, int(secs)))
    print("%-14s %6s %7s %7s %11s %9s %12s %6s" %
          ("suite", "run", "pass", "fail", "regressions", "expected", "improvements", "skip"))
    details = []
    for s in suites:
        kernels = ["check"] if s == "parallel" else ["base", "patched"]
        rs = {k: read_res(os.path.join(out, "%s-%s.res" % (s, k))) for k in kernels}
        if not all(os.path.exists(os.path.join(out, "%s-%s.res" % (s, k))) for k in kernels):
            print("%-14s not run" % s)
            continue
        p = rs[kernels[-1]]
        b = rs.get("base", p)
        names = sorted(set(b) | set(p))
        # a test with a result on one kernel only (REGRESS_KERNELS, a run
        # not finished) compares with nothing: listed, not counted
        lone = [n for n in names if s != "parallel" and (n in b) != (n in p)]
        names = [n for n in names if n not in lone]
        both_pass = [n for n in names if b.get(n) == "PASS" and p.get(n) == "PASS"]
        both_fail = [n for n in names if b.get(n) == "FAIL" and p.get(n) == "FAIL"]
        reg = [n for n in names if b.get(n) == "PASS" and p.get(n) != "PASS"]
        imp = [n for n in names if b.get(n) in ("FAIL", None) and p.get(n) == "PASS" and s != "parallel"]
        skip = [n for n in names if b.get(n) == "SKIP" and p.get(n) == "SKIP"]
        if s == "parallel":
            reg = [n for n in names if p.get(n) == "FAIL"]
            both_fail = []
        # differences the series means to make (regress.expected)
        expected = {}
        for n in reg:
            why = next((c for (xs_s, rx, c) in xs if xs_s in (s, "*") and rx.search(n)), None)
            if why:
                expected[n] = why
        reg = [n for n in reg if n not in expected]
        # splats the patched kernel printed and the base did not
        bs = set(splat_keys(out, s, "base")) if s != "parallel" else set()
        ps = splat_keys(out, s, kernels[-1])
        new_splats = sorted(set(x for x in ps if x not in bs))
        print("%-14s %6d %7d %7d %11d %9d %12d %6d" %
              (s, len(names), len(both_pass), len(both_fail), len(reg) + len(new_splats),
               len(expected), len(imp), len(skip)))
        total += len(reg) + len(new_splats)
        by_cause = {}
        for n in both_fail:
            cause = next((c for (cs_s, rx, c) in cs if cs_s in (s, "*") and rx.search(n)),
                         "unexplained")
            by_cause.setdefault(cause, []).append(n)
        for c, ns in sorted(by_cause.items()):
            details.append("%s: failed on both (%s): %d: %s" % (s, c, len(ns), " ".join(ns[:12]) +
                                                                (" ..." if len(ns) > 12 else "")))
        if lone:
            details.append("%s: %d with a result on one kernel only (make regress again): %s" %
                           (s, len(lone), " ".join(lone[:12]) + (" ..." if len(lone) > 12 else "")))
        for n in reg:
            details.append("%s: REGRESSION: %s (base %s, patched %s)" % (s, n, b.get(n, "-"), p.get(n, "-")))
        for why in sorted(set(expected.values())):
            ns = sorted(n for n in expected if expected[n] == why)
            details.append("%s: expected (pass on base, fail patched): %d: %s: %s" %
                           (s, len(ns), " ".join(ns), why))
        for x in new_splats:
            details.append("%s: REGRESSION: patched kernel splat: %s" % (s, x))
        for n in imp:
            details.append("%s: improvement: %s (base %s)" % (s, n, b.get(n, "not run")))
    for d in details:
        print(d)
    print("regress %s: %d regressions" % (arch, total))
    return 1 if total else 0


def splat_keys(out, suite, kernel):
    keys = []
    path = os.path.join(out, "%s-%s.res" % (suite, kernel))
    if os.path.exists(path):
        for line in open(path):
            if line.startswith("SPLAT "):
                # the message without addresses, numbers and task names
                # (and the source tree's path, ../linux-base/ or ../linux/)
                keys.append(re.sub(r"0x[0-9a-f]+|\b\d+\b|\[.*?\]|\.\./linux[-\w]*/", "",
                                   line[6:].strip()))
    return keys


def main():
    cmd = sys.argv[1]
    if cmd == "job":
        job(*sys.argv[2:7])
    elif cmd == "collect":
        print(collect(*sys.argv[2:9]))
    elif cmd == "report":
        sys.exit(report(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5:]))


if __name__ == "__main__":
    main()
