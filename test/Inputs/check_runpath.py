"""Prints the RPATH/RUNPATH of every ELF executable and shared object under
the given files and directories (`readelf -d`), one line each, sorted:
`NAME: [ENTRY:ENTRY]` (NAME relative to its argument) or `NAME: none`.
Exits 1 naming each file whose search path has an entry that depends on
the working directory: an empty one (which glibc reads as ".") or a
relative one. `$ORIGIN` and absolute entries are accepted."""

import os
import re
import subprocess
import sys

DYNAMIC_PATH = re.compile(
    r"\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[(.*)\]")


def is_linked_elf(path):
    """An ELF executable or shared object (not an object file)."""
    with open(path, "rb") as f:
        header = f.read(18)
    return header[:4] == b"\x7fELF" and header[16] in (2, 3)


def elf_files(argument):
    if os.path.isfile(argument):
        yield os.path.basename(argument), argument
        return
    for directory, _, names in os.walk(argument):
        for name in names:
            path = os.path.join(directory, name)
            if (os.path.isfile(path) and not os.path.islink(path) and
                    is_linked_elf(path)):
                yield os.path.relpath(path, argument), path


def main(arguments):
    lines, bad = [], []
    for argument in arguments:
        for name, path in elf_files(argument):
            dynamic = subprocess.run(["readelf", "-d", path], check=True,
                                     capture_output=True, text=True).stdout
            paths = DYNAMIC_PATH.findall(dynamic)
            shown = " ".join(f"[{p}]" for p in paths) or "none"
            lines.append(f"{name}: {shown}")
            entries = ":".join(paths).split(":") if paths else []
            if any(not e.startswith(("/", "$ORIGIN")) for e in entries):
                bad.append(f"{path}: the search path [{':'.join(entries)}] "
                           f"has entries relative to the working directory")
    print("\n".join(sorted(lines)))
    for message in bad:
        print(message, file=sys.stderr)
    return 1 if bad or not lines else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
