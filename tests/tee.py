"""Run a command with its stdio copied to a log: `python -m tests.tee LOG -- CMD...`.

Sits between the MCP SDK client and the real `noru mcp` so that the suite can
validate every message the SDK exchanged against the official schema. Each log
line is `>` (to the server) or `<` (from the server) and the raw JSON line.
"""

from __future__ import annotations

import subprocess
import sys
import threading


def main() -> int:
    log_path, separator, *command = sys.argv[1:]
    assert separator == "--" and command
    log = open(log_path, "ab", buffering=0)  # noqa: SIM115 - closed at exit
    lock = threading.Lock()
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None

    def record(direction: bytes, line: bytes) -> None:
        with lock:
            log.write(direction + b" " + line.rstrip(b"\n") + b"\n")

    def pump_in() -> None:
        assert child.stdin is not None
        for line in sys.stdin.buffer:
            record(b">", line)
            child.stdin.write(line)
            child.stdin.flush()
        child.stdin.close()

    threading.Thread(target=pump_in, daemon=True).start()
    for line in child.stdout:
        record(b"<", line)
        sys.stdout.buffer.write(line)
        sys.stdout.buffer.flush()
    code = child.wait()
    log.close()
    return code


if __name__ == "__main__":
    sys.exit(main())
