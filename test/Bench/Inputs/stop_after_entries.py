"""python3 stop_after_entries.py RESULTS N COMMAND...

Runs COMMAND (the GPU benchmark driver) in its own process group and kills
the group as soon as RESULTS (its results.json) lists N entries: a run
stopped between two entries, whatever the machine's speed. Exits 0 when
the command was stopped that way, 1 when it ended first."""

import json
import os
import signal
import subprocess
import sys
import time


def listed(results):
    try:
        with open(results) as source:
            return len(json.load(source)["kernels"])
    except (OSError, ValueError, KeyError):
        return 0


def main(results, count, *command):
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL,
                               start_new_session=True)
    while process.poll() is None:
        if listed(results) >= int(count):
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return 0
        time.sleep(0.05)
    print(f"the command ended (status {process.returncode}) before {results} "
          f"listed {count} entries", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
