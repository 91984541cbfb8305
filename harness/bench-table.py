#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-table.py CLOCK ARCH LOG...: one table from the BENCH lines of
several runs of the benchmarks (harness/bench.sh), each figure with its
median over the runs and its spread, (max - min) / median.

CLOCK is icount or wall. With icount, QEMU advances guest time by 1 ns per
executed instruction (-icount shift=0), so a time is a count of
instructions: "ns/call" reads "instructions per call".
"""
import re
import statistics
import sys

clock, arch, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = []  # one dict per log: figure -> value
lock_rows = set()  # a lock no wait was for in a run waited 0 ms in it
order = []


def put(d, key, val):
    if key not in order:
        order.append(key)
    d[key] = val


def put_groups(d, m, keys):
    """Put m's groups under keys, in order (None skips a group): a count
    (no decimal point, as the benchmarks print counts) as an int, else a float."""
    for i, key in enumerate(keys, 1):
        g = m.group(i)
        if key is None or g is None:
            continue
        put(d, key, int(g) if "." not in g else float(g))


for path in logs:
    d = {}
    rates = {}
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            m = re.match(r"BENCH tracing_multi_attach: functions (\d+), fentry.multi attach "
                         r"([\d.]+) s detach ([\d.]+) s images (\d+); (.*)", line)
            if m:
                put(d, "functions", int(m.group(1)))
                put(d, "images", int(m.group(4)))
                put(d, "fentry.multi attach (s)", float(m.group(2)))
                put(d, "fentry.multi detach (s)", float(m.group(3)))
                k = re.match(r"kprobe.multi attach ([\d.]+) s detach ([\d.]+) s", m.group(5))
                if k:
                    put(d, "kprobe.multi attach (s)", float(k.group(1)))
                    put(d, "kprobe.multi detach (s)", float(k.group(2)))
                    put(d, "attach fentry.multi/kprobe.multi", float(m.group(2)) / float(k.group(1)))
                    put(d, "detach fentry.multi/kprobe.multi", float(m.group(3)) / float(k.group(2)))
                continue
            m = re.match(r"BENCH tracing_multi_attach phases: attach ([\d.]+) ms \(resolve ([\d.]+), "
                         r"route ([\d.]+), ftrace ([\d.]+)\); detach ([\d.]+) ms \(route ([\d.]+), "
                         r"ftrace ([\d.]+), wait ([\d.]+)\)"
                         r"(?:; release work ([\d.]+) ms \(wait ([\d.]+)\))?", line)
            if m:
                put_groups(d, m, ("by phase: attach (ms)", "  resolve (ms)", "  route (ms)",
                                  "  ftrace update (ms)", "by phase: detach (ms)",
                                  "  detach route (ms)", "  detach ftrace update (ms)",
                                  "  detach wait for a grace period (ms)",
                                  "  then the release work (ms)",
                                  "  its wait for grace periods (ms)"))
                if float(m.group(4)) and float(m.group(7)):
                    put(d, "  attach/its ftrace update", float(m.group(1)) / float(m.group(4)))
                    put(d, "  detach/its ftrace update", float(m.group(5)) / float(m.group(7)))
                    put(d, "  detach less the wait/its ftrace update",
                        (float(m.group(5)) - float(m.group(8))) / float(m.group(7)))
                continue
            m = re.match(r"BENCH ordinary_attach: fentry attach ([\d.]+) ms detach ([\d.]+) ms; "
                         r"(?:with (\d+) fentry.multi links elsewhere attach ([\d.]+) ms "
                         r"detach ([\d.]+) ms)?", line)
            if m:
                a0, d0 = float(m.group(1)), float(m.group(2))
                put(d, "ordinary fentry attach (ms)", a0)
                put(d, "ordinary fentry detach (ms)", d0)
                if m.group(3):	# not on the base kernel
                    n, a1, d1 = m.group(3), float(m.group(4)), float(m.group(5))
                    put(d, "  with %s multi links: attach (ms)" % n, a1)
                    put(d, "  with %s multi links: detach (ms)" % n, d1)
                    put(d, "  attach with/without", a1 / a0)
                    put(d, "  detach with/without", d1 / d0)
                continue
            m = re.match(r"BENCH ordinary_calls: (.*)", line)
            if m:
                # ordinary programs per call, here or on the base kernel
                calls = dict((k.group(1), float(k.group(2))) for k in
                             re.finditer(r"([\w-]+) ([\d.]+) M/s", m.group(1)))
                for name, rate in calls.items():
                    put(d, "ordinary: %s ns/call" % name, 1e3 / rate)
                for name, rate in calls.items():
                    base = calls.get("base-kfunc" if name == "fmodret" else "base")
                    if base and not name.startswith("base"):
                        put(d, "ordinary: %s +ns/call" % name, 1e3 / rate - 1e3 / base)
                continue
            m = re.match(r"BENCH memory slab: (fentry\.multi(?: again)?): (.*)", line)
            if m:
                # the caches that grew most, bytes per function
                for part in m.group(2).split(", "):
                    k = re.match(r"\s*(\S+) ([+-][\d.]+) B/func", part)
                    if k:
                        put(d, "mem slab%s: %s (B/func)" % (m.group(1)[12:], k.group(1)),
                            float(k.group(2)))
                continue
            m = re.match(r"BENCH memory objects: (fentry\.multi(?: again)?): ([\d.-]+) B/func", line)
            if m:
                put(d, "mem objects: %s (B/func)" % m.group(1), float(m.group(2)))
                continue
            m = re.match(r"BENCH memory: functions (\d+); (.*)", line)
            if m:
                # per part: jit and data, in KiB and bytes per function
                mem = {}
                for part in m.group(2).split("; "):
                    k = re.match(r"(fentry\.multi again|fentry\.multi|kprobe\.multi|"
                                 r"fentry trampolines, (\d+) sampled[^:]*:) "
                                 r"jit ([\d.-]+) KiB \(([\d.-]+) B/func\) "
                                 r"data ([\d.-]+) KiB \(([\d.-]+) B/func\)", part)
                    if k:
                        name = "fentry trampolines" if k.group(2) else k.group(1)
                        if k.group(2):
                            put(d, "mem: fentry functions sampled", int(k.group(2)))
                        mem[name] = float(k.group(4)) + float(k.group(6))
                        put(d, "mem: %s jit (KiB)" % name, float(k.group(3)))
                        put(d, "mem: %s data (KiB)" % name, float(k.group(5)))
                        put(d, "mem: %s jit (B/func)" % name, float(k.group(4)))
                        put(d, "mem: %s data (B/func)" % name, float(k.group(6)))
                        continue
                    k = re.match(r"fentry programs jit ([\d.-]+) B/prog data ([\d.-]+) B/prog",
                                 part)
                    if k:
                        put(d, "mem: fentry program jit (B/prog)", float(k.group(1)))
                        put(d, "mem: fentry program data (B/prog)", float(k.group(2)))
                for name in ("kprobe.multi", "fentry trampolines"):
                    if name in mem and mem.get("fentry.multi"):
                        put(d, "mem: %s/fentry.multi jit+data" % name,
                            mem[name] / mem["fentry.multi"])
                continue
            m = re.match(r"BENCH inflight: functions \d+; (.*)", line)
            if m:
                # per part: mean and longest attach and detach, their lock waits, ms
                t = {}
                for part in m.group(1).split("; "):
                    k = re.match(r"(ordinary fentry alone|beside fentry\.multi in flight|"
                                 r"beside kprobe\.multi in flight) attach ([\d.]+) ms "
                                 r"\(max ([\d.]+)\) detach ([\d.]+) ms \(max ([\d.]+)\) "
                                 r"lock waits ([\d.]+)/([\d.]+) ms", part)
                    if not k:
                        continue
                    t[k.group(1)] = [float(k.group(i)) for i in range(2, 8)]
                    for i, what in enumerate(("attach", "attach max", "detach", "detach max",
                                              "attach lock waits", "detach lock waits")):
                        put(d, "inflight: %s %s (ms)" % (k.group(1), what), t[k.group(1)][i])
                alone = t.get("ordinary fentry alone")
                for name in ("beside fentry.multi in flight", "beside kprobe.multi in flight"):
                    if alone and name in t and alone[0] and alone[2]:
                        put(d, "inflight: %s attach/alone" % name, t[name][0] / alone[0])
                        put(d, "inflight: %s detach/alone" % name, t[name][2] / alone[2])
                continue
            m = re.match(r"BENCH inflight locks: [^;]*; (.*)", line)
            if m:
                # per part: each lock's waits of an attach and a detach, ms
                for part in m.group(1).split("; "):
                    k = re.match(r"(beside fentry\.multi in flight|beside kprobe\.multi in flight):"
                                 r"((?: \S+ [\d.]+)*) ms", part)
                    if not k:
                        continue
                    w = k.group(2).split()
                    for name, ms in zip(w[0::2], w[1::2]):
                        put(d, "inflight: %s lock waits, %s (ms)" % (k.group(1), name), float(ms))
                        lock_rows.add("inflight: %s lock waits, %s (ms)" % (k.group(1), name))
                continue
            m = re.match(r"BENCH beside_all: functions (\d+); ordinary fentry alone attach "
                         r"([\d.]+) ms detach ([\d.]+) ms sites (\d+)/(\d+); beside fentry.multi "
                         r"on all attach ([\d.]+) ms detach ([\d.]+) ms sites (\d+)/(\d+)", line)
            if m:
                a0, d0, a1, d1 = (float(m.group(i)) for i in (2, 3, 6, 7))
                put(d, "beside all: alone attach (ms)", a0)
                put(d, "beside all: alone detach (ms)", d0)
                put(d, "beside all: alone sites attach/detach",
                    "%s/%s" % (m.group(4), m.group(5)))
                put(d, "beside all: beside attach (ms)", a1)
                put(d, "beside all: beside detach (ms)", d1)
                put(d, "beside all: beside sites attach/detach",
                    "%s/%s" % (m.group(8), m.group(9)))
                put(d, "beside all: attach beside/alone", a1 / a0)
                put(d, "beside all: detach beside/alone", d1 / d0)
                continue
            m = re.match(r"BENCH sets: functions (\d+), links (\d+), images (\d+); attach first "
                         r"([\d.]+) ms, last ([\d.]+) ms \(([\d.]+)x\), median ([\d.]+) ms, "
                         r"max ([\d.]+) ms; detach all ([\d.]+) s(?:; packs ([-+\d]+) KiB)?"
                         r"(?:; left out (\d+) of)?", line)
            if m:
                put_groups(d, m, (None, "sets: links over %s functions" % m.group(1),
                                  "sets: images", "sets: attach first (ms)",
                                  "sets: attach last (ms)", "sets: attach last/first",
                                  "sets: attach median (ms)", "sets: attach max (ms)",
                                  "sets: detach all (s)", "sets: packs added by the links (KiB)",
                                  "sets: functions left out (attach calls them)"))
                continue
            m = re.match(r"BENCH ibt: functions (\d+), images (\d+) shared (\d+) own; "
                         r"fexit.multi attach ([\d.]+) s detach ([\d.]+) s; (.*)", line)
            if m:
                put_groups(d, m, ("ibt: functions", "ibt: shared images", "ibt: own images",
                                  "ibt: fexit.multi attach (s)", "ibt: fexit.multi detach (s)"))
                k = re.match(r"kprobe.multi attach ([\d.]+) s detach ([\d.]+) s", m.group(6))
                if k:
                    put(d, "ibt: kprobe.multi attach (s)", float(k.group(1)))
                    put(d, "ibt: kprobe.multi detach (s)", float(k.group(2)))
                    put(d, "ibt: attach fexit.multi/kprobe.multi",
                        float(m.group(4)) / float(k.group(1)))
                    put(d, "ibt: detach fexit.multi/kprobe.multi",
                        float(m.group(5)) / float(k.group(2)))
                continue
            m = re.match(r"BENCH ibt-plain: fexit.multi attach ([\d.]+) s detach ([\d.]+) s; "
                         r"fentry.multi attach ([\d.]+) s detach ([\d.]+) s", line)
            if m:
                put_groups(d, m, ("ibt: same, switch off: fexit.multi attach (s)",
                                  "ibt: same, switch off: fexit.multi detach (s)",
                                  "ibt: same functions: fentry.multi attach (s)",
                                  "ibt: same functions: fentry.multi detach (s)"))
                continue
            m = re.match(r"BENCH typed-wide: link of (\d+) functions", line)
            if m:
                put(d, "wide link: functions", m.group(1))
                continue
            m = re.match(r"BENCH trig-([\w-]+): ([\d.]+) M/s", line)
            if m:
                rates[m.group(1)] = float(m.group(2))
    # ns per call (instructions per call with icount): the driver's loop
    # included; "+" rows: what the traced call adds over the bare loop
    for name, rate in rates.items():
        put(d, "%s ns/call" % name, 1e3 / rate)
    def base_of(name):
        if name.startswith("fmodret"):
            return "base-kfunc"
        return "base-typed" if name.startswith("typed-") else "base"
    for name, rate in rates.items():
        base = rates.get(base_of(name))
        if base and not name.startswith("base"):
            put(d, "%s +ns/call" % name, 1e3 / rate - 1e3 / base)
    # typed arguments (bpf_cpumask_test_cpu()): what the kfunc adds to a
    # call over the bare program, and against what the cookie adds; on a
    # link of that one function, and of many ("wide")
    typed = ("cookie", "arg-btf", "arg-find", "arg-first", "arg-find-as")
    for prefix, label in (("typed-", ""), ("typed-wide-", "wide ")):
        bare = prefix + "fentry-multi"
        for name in typed:
            full = prefix + name
            if full in rates and bare in rates:
                put(d, "%s%s +ns/call over fentry-multi" % (label, name),
                    1e3 / rates[full] - 1e3 / rates[bare])
        cookie = d.get("%scookie +ns/call over fentry-multi" % label)
        for name in typed[1:]:
            added = d.get("%s%s +ns/call over fentry-multi" % (label, name))
            if cookie and added is not None:
                put(d, "%s%s/cookie added" % (label, name), added / cookie)
    if "typed-fentry-arg-btf" in rates and "typed-fentry" in rates:
        put(d, "ordinary arg-btf +ns/call over fentry",
            1e3 / rates["typed-fentry-arg-btf"] - 1e3 / rates["typed-fentry"])
    for a, b in (("fentry-multi", "fentry"), ("typed-fentry-multi", "typed-fentry"),
                 ("fexit-multi", "fexit"),
                 ("fexit-multi-by-return", "fexit"),
                 ("fexit-multi-by-return", "fexit-multi"),
                 ("fmodret-multi", "fmodret"), ("fsession-multi", "fsession"),
                 ("fsession", "fexit"), ("kprobe-multi", "fentry-multi"),
                 ("kprobe", "fentry")):
        if a in rates and b in rates:
            put(d, "%s/%s per call" % (a, b), rates[b] / rates[a])
            ba = base_of(a)
            if ba in rates:
                xa = 1e3 / rates[a] - 1e3 / rates[ba]
                xb = 1e3 / rates[b] - 1e3 / rates[ba]
                if xb > 0:
                    put(d, "%s/%s added" % (a, b), xa / xb)
    runs.append(d)

for d in runs:
    if any(key in d for key in lock_rows):
        for key in lock_rows:
            d.setdefault(key, 0.0)

unit = "instructions" if clock == "icount" else "wall-clock ns"
print("%s, %d run(s), clock %s (ns/call = %s per call; ratios are of that)"
      % (arch, len(runs), clock, unit))
print("%-40s %12s %8s  %s" % ("figure", "median", "spread", "runs"))
for key in order:
    vals = [d[key] for d in runs if key in d]
    if not vals:
        continue
    if isinstance(vals[0], str):	# counts that must not vary: as they are
        print("%-40s %12s %8s  %s" % (key, vals[0], "", " ".join(vals)))
        continue
    med = statistics.median(vals)
    spread = (max(vals) - min(vals)) / abs(med) * 100 if med else 0.0
    fmt = "%.0f" if isinstance(vals[0], int) else \
        ("%.1f" if "ns/call" in key or "KiB" in key or "B/" in key else "%.3f")
    print("%-40s %12s %7.1f%%  %s" % (key, fmt % med, spread, " ".join(fmt % v for v in vals)))
