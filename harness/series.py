#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The mailing-list series, generated from series/manifest.

    series.py build     commits over tag "base" in build/series-tree (branch
                        "series"), git format-patch into build/series with
                        the cover letter filled in, checkpatch --strict
    series.py verify    is build/series-tree's "series" branch what the
                        manifest and the repo give today? (for series-check)

Run by harness/series.sh and harness/series-check.sh, which set REPO, BUILD,
BASE_TREE (build/linux) and OVERLAY (a file listing the repo's kernel-path
files, from lib.sh's overlay_files).
"""
import fnmatch
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

REPO = os.environ["REPO"]
BUILD = os.environ["BUILD"]
BASE_TREE = os.environ["BASE_TREE"]
OVERLAY = os.environ["OVERLAY"]
MANIFEST = os.path.join(REPO, "series/manifest")
COVER = os.path.join(REPO, "series/cover-letter.txt")
ALLOW = os.path.join(REPO, "series/checkpatch.allow")
STREE = os.path.join(BUILD, "series-tree")
OUT = os.path.join(BUILD, "series")
CPLOG = os.path.join(BUILD, "series-checkpatch")
BRANCH = "series"
DOC = "Documentation/bpf/tracing_multi.rst"


def die(msg):
    sys.stderr.write("error: %s\n" % msg)
    sys.exit(1)


def log(msg):
    sys.stderr.write("[series] %s\n" % msg)


def git(*args, cwd=STREE, env=None, inp=None, check=True):
    p = subprocess.run(["git", "-C", cwd] + list(args), input=inp,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if check and p.returncode:
        die("git %s: %s" % (" ".join(args), p.stderr.decode(errors="replace").strip()))
    return p.stdout.decode(errors="surrogateescape")


def read_text(path):
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        return f.read()


def write_text(path, text):
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
        f.write(text)


# ---------------------------------------------------------------- manifest

class Spec:
    """One file line of a manifest section."""
    def __init__(self, path, kind, regex, lineno):
        self.path, self.kind, self.regex, self.lineno = path, kind, regex, lineno


class Entry:
    def __init__(self, subject, lineno):
        self.subject, self.lineno = subject, lineno
        self.specs, self.body = [], []
        self.files = {}		# repo path -> Spec


def glob_re(pat):
    """* and ? within a path component, ** across components."""
    out, i = "", 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pat.startswith("**", i):
            out += ".*"
            i += 2
        elif pat[i] == "*":
            out += "[^/]*"
            i += 1
        elif pat[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pat[i])
            i += 1
    return re.compile(out + r"\Z")


def parse_manifest(overlay):
    entries, cur, in_body = [], None, False
    for n, line in enumerate(read_text(MANIFEST).split("\n"), 1):
        if line.startswith("=== "):
            cur = Entry(line[4:].strip(), n)
            entries.append(cur)
            in_body = False
            continue
        if cur is None:
            if line.strip() and not line.startswith("#"):
                die("%s:%d: text before the first '=== subject' line" % (MANIFEST, n))
            continue
        if in_body:
            cur.body.append(line.rstrip())
            continue
        if not line.strip():
            in_body = True
            continue
        if line.lstrip().startswith("#"):
            continue
        m = re.match(r"\s*(\S+)(?:\s+(.*?))?\s*$", line)
        path, sel = m.group(1), m.group(2)
        kind, regex = "whole", None
        if sel == "rest":
            kind = "rest"
        elif sel:
            m = re.match(r"(span)=/(.*)/\.\./(.*)/(?:\+(\d+))?$", sel) or \
                re.match(r"(hunks|lines)=/(.*)/$", sel)
            if not m:
                die("%s:%d: selector '%s': want hunks=/RE/, lines=/RE/, span=/RE/../RE/[+N] "
                    "or rest" % (MANIFEST, n, sel))
            kind = m.group(1)
            try:
                regex = [re.compile(r) for r in m.groups()[1:3]]
            except re.error as e:
                die("%s:%d: bad regular expression: %s" % (MANIFEST, n, e))
            regex = regex + [int(m.group(4) or 0)] if kind == "span" else regex[0]
        cur.specs.append(Spec(path, kind, regex, n))
    if not entries:
        die("%s has no '=== subject' section" % MANIFEST)

    # Expand globs, check every path.
    taken = {}		# path -> [(entry index, Spec)]
    for i, e in enumerate(entries):
        while e.body and not e.body[-1]:
            e.body.pop()
        while e.body and not e.body[0]:
            e.body.pop(0)
        if not e.specs:
            die("%s:%d: '%s' takes no files" % (MANIFEST, e.lineno, e.subject))
        for s in e.specs:
            if any(c in s.path for c in "*?["):
                if s.kind != "whole":
                    die("%s:%d: a glob takes whole files only" % (MANIFEST, s.lineno))
                rx = glob_re(s.path)
                paths = [f for f in overlay if rx.match(f)]
                if not paths:
                    die("%s:%d: %s matches no kernel-path file of the repo" % (MANIFEST, s.lineno, s.path))
            else:
                if s.path not in overlay:
                    die("%s:%d: %s is not a kernel-path file of the repo (added file or "
                        "<file>.patch)" % (MANIFEST, s.lineno, s.path))
                paths = [s.path]
            for p in paths:
                if s.kind != "whole" and not p.endswith(".patch"):
                    die("%s:%d: selectors apply to .patch files only" % (MANIFEST, s.lineno))
                if p in e.files:
                    prev = e.files[p]
                    if s.kind in ("whole", "rest") or prev.kind in ("whole", "rest"):
                        die("%s:%d: %s is taken twice by '%s' (only selectors add up)"
                            % (MANIFEST, s.lineno, p, e.subject))
                    subs = prev.regex if prev.kind == "union" else \
                        [Spec(p, prev.kind, prev.regex, prev.lineno)]
                    prev.kind, prev.regex = "union", subs + [Spec(p, s.kind, s.regex, s.lineno)]
                    continue
                e.files[p] = Spec(p, s.kind, s.regex, s.lineno)
                taken.setdefault(p, []).append((i, e.files[p]))

    missing = [f for f in overlay if f not in taken]
    if missing:
        die("kernel-path files in no manifest entry (add them to series/manifest):\n  "
            + "\n  ".join(missing))
    for p, uses in taken.items():
        kinds = [s.kind for _, s in uses]
        if len(uses) > 1 and "whole" in kinds:
            die("%s is taken by more than one entry (manifest lines %s); only hunks=, "
                "lines= and rest can share a file" % (p, ", ".join(str(s.lineno) for _, s in uses)))
        if kinds.count("rest") > 1:
            die("%s: more than one 'rest' entry" % p)
    return entries, taken


# ---------------------------------------------------------------- patches

class FilePatch:
    """A repo <file>.patch: a unified diff of one base file."""
    def __init__(self, repo_path):
        self.repo_path = repo_path
        self.path = repo_path[:-len(".patch")]
        self.hunks = []		# [old_start, old_len, header, [[op, text], ...]]
        self.delete = False
        lines = read_text(os.path.join(REPO, repo_path)).splitlines(keepends=True)
        i = 0
        while i < len(lines) and not lines[i].startswith("@@"):
            l = lines[i]
            if l.startswith("+++ /dev/null"):
                self.delete = True
            elif l.startswith(("new file mode", "old mode", "new mode", "rename ", "copy ",
                               "Binary files", "GIT binary patch")):
                die("%s: '%s' is not supported by make series" % (repo_path, l.strip()))
            i += 1
        hunk, nold, nnew = None, 0, 0	# lines the current hunk still has
        for l in lines[i:]:
            if l.startswith("\\"):	# "\ No newline at end of file"
                if hunk and hunk[3]:
                    hunk[3][-1][1] = hunk[3][-1][1].rstrip("\r\n")
            elif nold or nnew:
                op = l[0] if l[:1] in (" ", "-", "+") else " " if l in ("\n", "\r\n") else None
                if op is None or (op != "+" and not nold) or (op != "-" and not nnew):
                    die("%s: hunk %s: line %r does not fit its counts"
                        % (repo_path, hunk[2].strip(), l))
                hunk[3].append([op, l[1:] if l[:1] in (" ", "-", "+") else l])
                nold -= op != "+"
                nnew -= op != "-"
            elif l.startswith("@@"):
                m = re.match(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", l)
                if not m:
                    die("%s: bad hunk header %s" % (repo_path, l.strip()))
                nold = int(m.group(2) if m.group(2) is not None else 1)
                nnew = int(m.group(4) if m.group(4) is not None else 1)
                hunk = [int(m.group(1)), nold, l, []]
                self.hunks.append(hunk)
            elif l.startswith("diff --git"):
                die("%s: holds more than one file" % repo_path)
            elif l.strip():
                die("%s: unexpected line %r" % (repo_path, l))
        if nold or nnew:
            die("%s: the last hunk is cut short" % repo_path)

    def changed(self):
        """(hunk index, line index) of every changed line."""
        return [(hi, li) for hi, h in enumerate(self.hunks)
                for li, (op, _) in enumerate(h[3]) if op != " "]

    def select(self, spec):
        if spec.kind == "whole":
            return set(self.changed())
        if spec.kind == "hunks":
            sel = set()
            for hi, h in enumerate(self.hunks):
                text = h[2] + "".join(op + t for op, t in h[3])
                if spec.regex.search(text):
                    sel |= {(hi, li) for li, (op, _) in enumerate(h[3]) if op != " "}
            return sel
        if spec.kind == "lines":
            return {(hi, li) for hi, li in self.changed()
                    if spec.regex.search(self.hunks[hi][3][li][1].rstrip("\r\n"))}
        if spec.kind == "span":
            start, end, extra = spec.regex
            sel = set()
            for hi, h in enumerate(self.hunks):
                span, more = None, 0	# the open span's lines
                for li, (op, t) in enumerate(h[3]):
                    if op == " ":
                        continue
                    t = t.rstrip("\r\n")
                    if more:
                        sel.add((hi, li))
                        more -= 1
                    elif span is not None:
                        span.append((hi, li))
                        if end.search(t):
                            sel.update(span)
                            span, more = None, extra
                    elif start.search(t):
                        span = [(hi, li)]
            return sel
        if spec.kind == "union":
            sel = set()
            for sub in spec.regex:
                part = self.select(sub)
                if not part:
                    die("%s:%d: %s %s selects nothing" % (MANIFEST, sub.lineno, self.repo_path, sub.kind))
                sel |= part
            return sel
        raise AssertionError(spec.kind)

    def describe(self, hi, li):
        op, t = self.hunks[hi][3][li]
        return "%s %s%s" % (self.hunks[hi][2].split("@@")[1].strip(), op, t.rstrip("\r\n"))

    def apply(self, base_text, selected):
        """base_text with the changed lines in @selected applied; a "-" line
        not selected stays, a "+" line not selected is left out."""
        base = base_text.splitlines(keepends=True)
        out, pos = [], 0
        for hi, (start, olen, header, hl) in enumerate(self.hunks):
            old = [t for op, t in hl if op != "+"]
            want = start - 1 if olen else start
            at = None
            for d in range(0, len(base) + 1):	# nearest exact match, as patch does
                for cand in (want + d, want - d) if d else (want,):
                    if pos <= cand <= len(base) - len(old) and base[cand:cand + len(old)] == old:
                        at = cand
                        break
                if at is not None:
                    break
            if at is None:
                die("%s: hunk %s does not apply to the base" % (self.repo_path, header.strip()))
            out += base[pos:at]
            for li, (op, t) in enumerate(hl):
                if op == " " or (op == "-" and (hi, li) not in selected) \
                        or (op == "+" and (hi, li) in selected):
                    out.append(t)
            pos = at + len(old)
        out += base[pos:]
        return "".join(out)


def assign_lines(entries, taken):
    """For each .patch: owner entry index of every changed line."""
    owners = {}
    for p, uses in taken.items():
        if not p.endswith(".patch"):
            continue
        fp = FilePatch(p)
        if fp.delete and (len(uses) > 1 or uses[0][1].kind != "whole"):
            die("%s deletes the file: it cannot be split" % p)
        owner, rest = {}, None
        for i, spec in uses:
            if spec.kind == "rest":
                rest = i
                continue
            sel = fp.select(spec)
            if not sel:
                die("%s:%d: %s %s selects nothing" % (MANIFEST, spec.lineno, p, spec.kind))
            for k in sel:
                if k in owner and owner[k] != i:
                    die("%s: line taken by two entries ('%s' and '%s'):\n  %s"
                        % (p, entries[owner[k]].subject, entries[i].subject, fp.describe(*k)))
                owner[k] = i
        left = [k for k in fp.changed() if k not in owner]
        if left and rest is None:
            die("%s: changed lines no entry takes (add a 'rest' entry or widen a selector):\n  %s"
                % (p, "\n  ".join(fp.describe(*k) for k in left)))
        if rest is not None:
            if not left:
                die("%s: the 'rest' entry ('%s') gets nothing" % (p, entries[rest].subject))
            for k in left:
                owner[k] = rest
        owners[p] = (fp, owner)
    return owners


# ---------------------------------------------------------------- the tree

def identity():
    name = git("config", "user.name", cwd=REPO, check=False).strip()
    email = git("config", "user.email", cwd=REPO, check=False).strip()
    if not name or not email:
        die("git config user.name/user.email of the repo are not set")
    return name, email


def prepare_tree():
    base = git("rev-parse", "base^{commit}", cwd=BASE_TREE).strip()
    if os.path.isdir(os.path.join(STREE, ".git")):
        have = git("rev-parse", "-q", "--verify", "base^{commit}", check=False).strip()
        if have != base:
            log("build/series-tree is on another base: cloning it again")
            shutil.rmtree(STREE)
    if not os.path.isdir(os.path.join(STREE, ".git")):
        log("cloning build/linux at tag base into build/series-tree")
        tmp = STREE + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        git("clone", "-q", "--local", "--no-checkout", "--branch", "base", BASE_TREE, tmp, cwd=BUILD)
        git("config", "core.autocrlf", "false", cwd=tmp)
        git("config", "gc.auto", "0", cwd=tmp)
        os.rename(tmp, STREE)
    # Debian's top-level .gitignore ignores every path: add with -f.
    git("checkout", "-q", "-f", "-B", BRANCH, "base")
    git("clean", "-q", "-f", "-d", "-x")
    return base


def commit_env(name, email):
    date = git("log", "-1", "--format=%cI", cwd=REPO).strip()
    env = dict(os.environ)
    env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_AUTHOR_DATE=date,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email, GIT_COMMITTER_DATE=date)
    return env


def message(e, name, email):
    msg = e.subject + "\n\n"
    if e.body:
        msg += "\n".join(e.body) + "\n\n"
    return msg + "Signed-off-by: %s <%s>\n" % (name, email)


def build_commits(entries, owners, name, email):
    env = commit_env(name, email)
    for i, e in enumerate(entries):
        for p in sorted(e.files):
            dst = os.path.join(STREE, p[:-len(".patch")] if p.endswith(".patch") else p)
            if not p.endswith(".patch"):
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copyfile(os.path.join(REPO, p), dst)
                os.chmod(dst, 0o755 if os.access(os.path.join(REPO, p), os.X_OK) else 0o644)
                continue
            fp, owner = owners[p]
            if fp.delete:
                os.unlink(dst)
                continue
            upto = {k for k, o in owner.items() if o <= i}
            base_text = git("show", "base:" + fp.path)
            write_text(dst, fp.apply(base_text, upto))
        git("add", "-A", "-f", "--", *sorted({(p[:-6] if p.endswith(".patch") else p)
                                            for p in e.files}))
        if subprocess.run(["git", "-C", STREE, "diff", "--cached", "--quiet"]).returncode == 0:
            die("%s:%d: '%s' changes nothing" % (MANIFEST, e.lineno, e.subject))
        git("commit", "-q", "--no-verify", "-F", "-", env=env, inp=message(e, name, email).encode())
        log("%02d %s" % (i + 1, e.subject))


def expected_tree(overlay):
    """base + every repo patch + every added file, built independently of the
    manifest (git apply of each whole .patch on a scratch index)."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, GIT_INDEX_FILE=os.path.join(d, "index"))
        git("read-tree", "base", env=env)
        for f in overlay:
            if f.endswith(".patch"):
                p = subprocess.run(["git", "-C", STREE, "apply", "--cached", "--whitespace=nowarn",
                                    os.path.join(REPO, f)], env=env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                if p.returncode:
                    die("%s does not apply to the base: %s" % (f, p.stderr.decode().strip()))
            else:
                sha = git("hash-object", "-w", "--", os.path.join(REPO, f)).strip()
                mode = "100755" if os.access(os.path.join(REPO, f), os.X_OK) else "100644"
                git("update-index", "--add", "--cacheinfo", "%s,%s,%s" % (mode, sha, f), env=env)
        return git("write-tree", env=env).strip()


def check_final(overlay):
    want = expected_tree(overlay)
    have = git("rev-parse", BRANCH + "^{tree}").strip()
    if want != have:
        diff = git("diff", "--stat", want, have)
        die("the series' last commit is not base + every repo patch + every added file.\n"
            "Differences (expected -> series):\n" + diff)


# ---------------------------------------------------------------- mail

def rst_plain(text):
    text = re.sub(r"``([^`]+)``", r"\1", text)
    text = re.sub(r"`([^`<]+)`_", r"\1", text)
    return re.sub(r"(\S)::$", r"\1:", text, flags=re.M)


def doc_section(title):
    lines = read_text(os.path.join(REPO, DOC)).split("\n")
    for i in range(len(lines) - 1):
        if lines[i] == title and re.fullmatch(r"=+", lines[i + 1]):
            j, out = i + 2, []
            while j < len(lines):
                if j + 1 < len(lines) and lines[j].strip() and \
                        re.fullmatch(r"=+", lines[j + 1]) and len(lines[j + 1]) >= len(lines[j]):
                    break
                out.append(lines[j])
                j += 1
            return "\n".join(out).strip("\n")
    die("%s has no section '%s'" % (DOC, title))


def doc_table(title):
    """The first table of section @title of DOC: a simple table, from its
    top border to its bottom one (the third border line)."""
    lines = doc_section(title).split("\n")
    borders = [i for i, line in enumerate(lines) if re.fullmatch(r"=+( +=+)+", line)]
    if len(borders) < 3:
        die("%s: section '%s' has no table" % (DOC, title))
    return "\n".join(lines[borders[0]:borders[2] + 1])


def patch_of(entries, path):
    for i, e in enumerate(entries):
        if path in e.files:
            return str(i + 1)
    die("series/cover-letter.txt: @PATCHOF:%s@: no patch takes that repo path" % path)


def patch_named(entries, prefix):
    found = [str(i + 1) for i, e in enumerate(entries) if e.subject.startswith(prefix)]
    if len(found) != 1:
        die("series/cover-letter.txt: @PATCHNAMED:%s@: %d patches have that subject"
            % (prefix, len(found)))
    return found[0]


def cover_letter(entries, base_subject):
    lines = read_text(COVER).split("\n")
    while lines and lines[0].startswith("#"):
        lines.pop(0)
    subject = lines[0].strip()
    blurb = "\n".join(lines[2:] if len(lines) > 1 and not lines[1].strip() else lines[1:]).strip("\n")
    base = re.sub(r"^base:\s*", "", base_subject)
    blurb = (blurb.replace("@BASE@", base).replace("@NPATCHES@", str(len(entries)))
             .replace("@NUMBERS@", rst_plain(doc_table("Measured numbers"))))
    blurb = re.sub(r"@PATCHOF:([^@\s]+)@", lambda m: patch_of(entries, m.group(1)), blurb)
    blurb = re.sub(r"@PATCHNAMED:([^@\n]+)@", lambda m: patch_named(entries, m.group(1)), blurb)
    left = re.findall(r"@[A-Z]+@", blurb + subject)
    if left:
        die("series/cover-letter.txt: unknown placeholder(s) %s" % " ".join(left))
    cl = glob.glob(os.path.join(OUT, "0000-cover-letter.patch"))[0]
    text = read_text(cl)
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        die("git format-patch wrote a cover letter without its placeholders")
    # git dates the cover letter now; the commits' date keeps the output reproducible
    text = re.sub(r"^Date: .*$", "Date: " + git("log", "-1", "--format=%aD", BRANCH).strip(),
                  text, count=1, flags=re.M)
    write_text(cl, text.replace("*** SUBJECT HERE ***", subject)
               .replace("*** BLURB HERE ***", blurb))


def format_patches(entries, base):
    os.makedirs(OUT, exist_ok=True)
    for f in glob.glob(os.path.join(OUT, "*.patch")):
        os.unlink(f)
    prefix = os.environ.get("SERIES_PREFIX", "PATCH")
    # --minimal: as make refresh writes the patches (harness/refresh-lib.sh)
    git("format-patch", "-q", "--minimal", "--cover-letter", "--subject-prefix=" + prefix,
        "-o", OUT, "base.." + BRANCH)
    cover_letter(entries, git("log", "-1", "--format=%s", "base").strip())
    return sorted(glob.glob(os.path.join(OUT, "*.patch")))


# ---------------------------------------------------------------- checkpatch

def read_allow():
    rules = []
    if os.path.exists(ALLOW):
        for n, line in enumerate(read_text(ALLOW).split("\n"), 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            f = line.split(None, 2)
            if len(f) < 3:
                die("%s:%d: want TYPE WHERE REASON" % (ALLOW, n))
            rules.append((f[0], f[1], n))
    return rules


def allowed(rules, typ, path, subject):
    for rtyp, where, _ in rules:
        if rtyp != typ:
            continue
        if where.startswith("subject:"):
            if fnmatch.fnmatchcase(subject, where[len("subject:"):]):
                return True
        elif path and glob_re(where).match(path):
            return True
    return False


def checkpatch(patches):
    """checkpatch.pl --strict on each patch; returns the number of findings
    series/checkpatch.allow does not allow."""
    rules = read_allow()
    os.makedirs(CPLOG, exist_ok=True)
    for f in glob.glob(os.path.join(CPLOG, "*.log")):
        os.unlink(f)
    bad, report = 0, []
    for p in patches:
        name = os.path.basename(p)
        if name.startswith("0000-"):
            continue
        subject = re.search(r"^Subject: \[[^]]*\] (.*)$", read_text(p), re.M).group(1)
        # scripts/spdxcheck.py runs under "env python3": Debian's, which
        # has python3-ply and python3-git, not a pyenv one.
        env = dict(os.environ, PATH="/usr/bin:" + os.environ.get("PATH", ""))
        r = subprocess.run(["perl", "scripts/checkpatch.pl", "--strict", "--show-types",
                            "--color=never", p], cwd=STREE, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = r.stdout.decode(errors="replace")
        write_text(os.path.join(CPLOG, name[:-len(".patch")] + ".log"), out)
        counts = {"ERROR": 0, "WARNING": 0, "CHECK": 0}
        nallowed, shown, blocks, cur = 0, [], [], None
        for line in out.split("\n"):
            if re.match(r"(ERROR|WARNING|CHECK):[A-Z0-9_]+: ", line):
                cur = [line]
                blocks.append(cur)
            elif cur is not None and line.strip():
                cur.append(line)
            else:
                cur = None
        if "Traceback (most recent call last)" in out:
            blocks.append(["ERROR:SERIES_TOOL: a checkpatch helper script failed (see the log)"])
        for block in map("\n".join, blocks):
            m = re.match(r"(ERROR|WARNING|CHECK):([A-Z0-9_]+): ", block)
            fm = re.search(r"FILE: (\S+?):\d+:", block)
            path = fm.group(1) if fm else None
            if allowed(rules, m.group(2), path, subject):
                nallowed += 1
                continue
            counts[m.group(1)] += 1
            shown.append(block.strip())
        if not re.search(r"^total: \d+ errors, \d+ warnings, \d+ checks", out, re.M):
            shown.append("checkpatch.pl did not finish (exit %d):\n%s" % (r.returncode, out[-2000:]))
            counts["ERROR"] += 1
        n = sum(counts.values())
        bad += n
        state = "clean" if not n else "%d errors, %d warnings, %d checks" % (
            counts["ERROR"], counts["WARNING"], counts["CHECK"])
        if nallowed:
            state += " (%d allowed)" % nallowed
        report.append("  %-72s %s" % (name, state))
        for b in shown:
            report.append("      " + b.replace("\n", "\n      "))
    print("checkpatch --strict (allowed: series/checkpatch.allow; logs: %s):"
          % os.path.relpath(CPLOG, REPO))
    print("\n".join(report))
    return bad


# ---------------------------------------------------------------- main

def overlay_list():
    return [l for l in read_text(OVERLAY).split("\n") if l]


def cmd_build():
    overlay = overlay_list()
    entries, taken = parse_manifest(overlay)
    owners = assign_lines(entries, taken)
    name, email = identity()
    base = prepare_tree()
    build_commits(entries, owners, name, email)
    check_final(overlay)
    log("last commit = base + %d repo patches + %d added files"
        % (sum(f.endswith(".patch") for f in overlay), sum(not f.endswith(".patch") for f in overlay)))
    patches = format_patches(entries, base)
    print("%s: %d patches and a cover letter, on %s"
          % (os.path.relpath(OUT, REPO), len(patches) - 1,
             re.sub(r"^base:\s*", "", git("log", "-1", "--format=%s", "base").strip())))
    for i, e in enumerate(entries):
        print("  %02d %s" % (i + 1, e.subject))
    if os.environ.get("SERIES_CHECKPATCH", "1") == "0":
        return 0
    bad = checkpatch(patches)
    if bad:
        print("checkpatch: %d finding(s) not allowed by series/checkpatch.allow" % bad)
        return 1
    return 0


def cmd_verify():
    """Exit 0 if the series branch holds the manifest's commits over today's
    repo files; print why not otherwise."""
    overlay = overlay_list()
    entries, taken = parse_manifest(overlay)
    assign_lines(entries, taken)
    if not os.path.isdir(os.path.join(STREE, ".git")) or \
            git("rev-parse", "-q", "--verify", BRANCH, check=False).strip() == "":
        print("build/series-tree has no series: run make series")
        return 1
    name, email = identity()
    msgs = git("log", "--reverse", "--format=%B%x00", "base.." + BRANCH).split("\x00")
    msgs = [m.strip("\n") for m in msgs if m.strip("\n")]
    if msgs != [message(e, name, email).strip("\n") for e in entries]:
        print("the series' commits are not the manifest's patches: run make series")
        return 1
    if expected_tree(overlay) != git("rev-parse", BRANCH + "^{tree}").strip():
        print("the repo's files changed since make series: run make series")
        return 1
    return 0


if __name__ == "__main__":
    cmds = {"build": cmd_build, "verify": cmd_verify}
    if len(sys.argv) != 2 or sys.argv[1] not in cmds:
        die("usage: series.py build|verify")
    sys.exit(cmds[sys.argv[1]]())
