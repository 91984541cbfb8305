#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""qemu-monitor.py SOCKET COMMAND: run one command on a QEMU human monitor
listening on the unix socket SOCKET (-monitor unix:SOCKET,server,nowait) and
print its output, without the banner, the echo and the prompts. Exits 1 if
the monitor cannot be reached or does not answer within 10 s."""
import socket
import sys
import time

PROMPT = b"(qemu) "


def read_until_prompt(s, deadline):
    buf = b""
    while not buf.endswith(PROMPT):
        s.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("monitor closed")
        buf += chunk
    return buf


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, cmd = sys.argv[1], sys.argv[2]
    deadline = time.monotonic() + 10
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(path)
            read_until_prompt(s, deadline)
            s.sendall(cmd.encode() + b"\n")
            out = read_until_prompt(s, deadline)
    except OSError:
        sys.exit(1)
    # The monitor echoes the command with terminal escapes; drop that line.
    lines = out[: -len(PROMPT)].decode(errors="replace").replace("\r", "").split("\n")
    print("\n".join(lines[1:]).rstrip("\n"))


main()
