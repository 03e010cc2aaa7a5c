"""Writes the code held by the gpu.binary ops of an MLIR file (vx-to-ptx) to
OUT_DIR, one file per device module: <binary name>.ptx for PTX (format=isa),
<binary name>.cubin for a cubin (format=bin)."""

import os
import re
import sys

BINARY = re.compile(r'gpu\.binary @(\w+)\s.*?(assembly|bin) = "((?:[^"\\]|\\.)*)"', re.S)
ESCAPE = re.compile(r"\\(\\|[0-9A-Fa-f]{2})")
EXTENSIONS = {"assembly": ".ptx", "bin": ".cubin"}


def unescape(text):
    """The bytes of an MLIR string literal (\\XX escapes, \\\\)."""
    return ESCAPE.sub(lambda m: "\\" if m.group(1) == "\\" else chr(int(m.group(1), 16)),
                      text).encode("latin-1")


def main(path, out_dir):
    with open(path, encoding="latin-1") as f:
        text = f.read()
    found = BINARY.findall(text)
    if not found:
        sys.exit(f"{path}: no gpu.binary with PTX assembly or a cubin")
    os.makedirs(out_dir, exist_ok=True)
    for name, kind, data in found:
        out = os.path.join(out_dir, name + EXTENSIONS[kind])
        with open(out, "wb") as f:
            f.write(unescape(data))
        print(out)


if __name__ == "__main__":
    main(*sys.argv[1:])
