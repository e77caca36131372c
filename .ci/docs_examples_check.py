#!/usr/bin/env python3
"""Runs the console examples of README.md and docs/*.md against a real server and compares
their output, so no example in the documentation can go stale.

A console example is a fenced block marked `console`: lines starting with `$ ` are commands,
the lines after each (up to the next command or the end of the block) its expected output,
stdout and stderr together. Every command of the matchgrid client (`./target/release/matchgrid
swap ...`, `collapse ...` or `level ...`) is run with bash, the binary replaced by MATCHGRID_BIN and the
server by a fresh `matchgrid serve` on free loopback ports (MATCHGRID_SERVER). Commands that
name their own server, TLS files, or another program (curl, grpcurl, python, kubectl, ...) and
`serve` itself are listed as not run, with the reason; everything else must match.

In expected output, a line `...` stands for any number of lines, `[..]` inside a line for any
text, and every timing (`0.012 s`) for any other. Usage:

    MATCHGRID_BIN=target/debug/matchgrid python3 .ci/docs_examples_check.py

Exit 1 when an example does not match or no example ran.
"""

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
CLIENT = re.compile(r"^(\./target/release/matchgrid|matchgrid)( --server \S+)? (swap|collapse|level)\b")
OPERATIONS = ROOT / "docs" / "operations.md"


def examples(path: Path):
    """(line number, command, expected output lines) of every console block of `path`."""
    lines = path.read_text(encoding="utf-8").splitlines()
    inside = False
    current = None
    for number, line in enumerate(lines, 1):
        if not inside:
            inside = line.strip() == "```console"
            continue
        if line.strip() == "```":
            inside = False
            if current:
                yield current
            current = None
            continue
        if line.startswith("$ "):
            if current:
                yield current
            current = (number, line[2:], [])
        elif current and not current[2] and current[1].endswith("\\"):
            # A command continued on the next line.
            current = (number, current[1][:-1] + " " + line.strip(), [])
        elif current:
            current[2].append(line)


def skip_reason(command: str):
    if not CLIENT.match(command):
        return "not a matchgrid client command"
    return None


def sh_block(path: Path, marker: str) -> str:
    """The first `sh` block of `path` that contains `marker`, as one bash script."""
    text = path.read_text(encoding="utf-8")
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        if marker in block:
            return block
    sys.exit(f"docs-examples-check: no sh block with {marker!r} in {path}")


TIMING = re.compile(r"\b\d+\.\d{3} s\b")


def normal(line: str) -> str:
    """`line` with its timings (`0.012 s`) made alike: they vary from run to run."""
    return TIMING.sub("N.NNN s", line)


def matches(expected, actual) -> bool:
    """True when `actual` lines match `expected` lines (with `...` and `[..]` wildcards)."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, actual[i:]) for i in range(len(actual) + 1))
    if not actual:
        return False
    pattern = "^" + ".*".join(re.escape(part) for part in normal(head).split("[..]")) + "$"
    return re.match(pattern, normal(actual[0])) is not None and matches(rest, actual[1:])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(server, port: int, what: str):
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if server.poll() is not None:
                sys.exit(f"docs-examples-check: {what} exited at start")
            time.sleep(0.2)
    server.kill()
    sys.exit(f"docs-examples-check: {what} did not listen on {port} within 60 s")


def start_servers(binary: str):
    """The tour's server on a free port, its metrics on 9090 (the metrics-port example calls
    it there), and the TLS server of docs/operations.md (its certificates made by that page's
    openssl block, its ports 50052, 9091 and 8081) for the TLS examples."""
    port = free_port()
    tour = subprocess.Popen(
        [binary, "serve", "--listen", f"127.0.0.1:{port}", "--metrics-listen", "127.0.0.1:9090"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(tour, port, "the server")
    wait_listening(tour, 9090, "the server's metrics")
    subprocess.run(["bash", "-c", sh_block(OPERATIONS, "mkdir -p /tmp/mg-tls")], cwd=ROOT,
                   check=True, capture_output=True)
    serve = sh_block(OPERATIONS, "--tls-client-ca").replace("./target/release/matchgrid", binary)
    tls = subprocess.Popen(["bash", "-c", "exec " + serve.strip()], cwd=ROOT,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_listening(tls, 50052, "the TLS server")
    return [tour, tls], f"http://127.0.0.1:{port}"


def main() -> int:
    binary = os.environ.get("MATCHGRID_BIN", str(ROOT / "target" / "debug" / "matchgrid"))
    if not os.access(binary, os.X_OK):
        sys.exit(f"docs-examples-check: no binary at {binary} (set MATCHGRID_BIN)")
    servers, url = start_servers(binary)
    env = dict(os.environ, MATCHGRID_SERVER=url, NO_COLOR="1")
    ran, skipped, failed = 0, [], []
    try:
        for path in FILES:
            name = path.relative_to(ROOT)
            for number, command, expected in examples(path):
                reason = skip_reason(command)
                if reason:
                    skipped.append(f"{name}:{number}: {reason}: {command}")
                    continue
                script = CLIENT.sub(lambda m: f"{binary}{m.group(2) or ''} {m.group(3)}", command,
                                    count=1)
                result = subprocess.run(["bash", "-c", "exec 2>&1\n" + script], cwd=ROOT, env=env,
                                        capture_output=True, text=True, timeout=120)
                actual = result.stdout.rstrip("\n").split("\n") if result.stdout else []
                while expected and expected[-1] == "":
                    expected = expected[:-1]
                ran += 1
                if not matches(expected, actual):
                    failed.append((f"{name}:{number}", command, expected, actual))
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=10)
    for place, command, expected, actual in failed:
        print(f"docs-examples-check: {place}: $ {command}")
        print("  expected:\n    " + "\n    ".join(expected))
        print("  got:\n    " + "\n    ".join(actual))
    for line in skipped:
        print(f"docs-examples-check: not run: {line}")
    print(f"docs-examples-check: {ran} examples run, {len(failed)} differ, {len(skipped)} not run")
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
