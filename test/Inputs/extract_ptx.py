"""Writes the PTX held by the gpu.binary ops of an MLIR file (vx-to-ptx with
format=isa) to OUT_DIR/<binary name>.ptx, one file per device module."""

import os
import re
import sys

BINARY = re.compile(r'gpu\.binary @(\w+)\s.*?assembly = "((?:[^"\\]|\\.)*)"', re.S)
ESCAPE = re.compile(r"\\(\\|[0-9A-Fa-f]{2})")


def unescape(text):
    return ESCAPE.sub(lambda m: "\\" if m.group(1) == "\\" else chr(int(m.group(1), 16)), text)


def main(path, out_dir):
    with open(path) as f:
        text = f.read()
    found = BINARY.findall(text)
    if not found:
        sys.exit(f"{path}: no gpu.binary with PTX assembly")
    os.makedirs(out_dir, exist_ok=True)
    for name, assembly in found:
        with open(os.path.join(out_dir, name + ".ptx"), "w") as f:
            f.write(unescape(assembly))
        print(os.path.join(out_dir, name + ".ptx"))


if __name__ == "__main__":
    main(*sys.argv[1:])
