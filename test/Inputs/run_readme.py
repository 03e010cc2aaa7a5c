"""Runs every command of README.md: each line of its ```sh blocks (with `\\`
and `|` continuations) as a bash command from a scratch directory laid out
like the repository (build/ is the build under test), and its ```pycon
blocks as doctests there. A command fails the run when it exits non-zero;
a doctest when its output differs. Without a CUDA toolkit the commands and
examples that need one (the PTX stage, ptxas, libdevice) are skipped.

usage: run_readme.py README SOURCE_ROOT BUILD_ROOT WORK_DIR [--cuda]"""

import doctest
import os
import re
import subprocess
import sys

# Run elsewhere: the test suite itself (.ci/run) and the demo, which
# scripts/test.sh runs after the suites (both build and install).
RUN_BY_CI = {"scripts/demo.sh", "scripts/test.sh"}
NEEDS_CUDA = re.compile(r"ptx|libdevice|cuda")


def blocks(text, language):
    """The bodies of the fenced blocks of `language`."""
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.M | re.S)


def commands(block):
    """The shell commands of a block: lines joined over `\\` and `|` ends."""
    result, current = [], ""
    for line in block.splitlines():
        current += line + "\n"
        stripped = line.split(" #")[0].rstrip()
        if stripped.endswith("\\") or stripped.endswith("|"):
            continue
        if current.strip():
            result.append(current.strip())
        current = ""
    return result


def main(readme, source_root, build_root, work_dir, cuda):
    with open(readme) as f:
        text = f.read()
    os.makedirs(work_dir, exist_ok=True)
    for name in ("examples", "python", "scripts", "test"):
        link = os.path.join(work_dir, name)
        if not os.path.lexists(link):
            os.symlink(os.path.join(source_root, name), link)
    if not os.path.lexists(os.path.join(work_dir, "build")):
        os.symlink(build_root, os.path.join(work_dir, "build"))

    ran = skipped = 0
    for block in blocks(text, "sh"):
        for command in commands(block):
            program = command.split()[0]
            if program in RUN_BY_CI:
                skipped += 1
                continue
            if NEEDS_CUDA.search(command) and not cuda:
                skipped += 1
                continue
            result = subprocess.run(["bash", "-o", "pipefail", "-c", command],
                                    cwd=work_dir, stdin=subprocess.DEVNULL,
                                    capture_output=True, text=True)
            if result.returncode != 0:
                sys.exit(f"README command failed ({result.returncode}):\n{command}\n"
                         f"{result.stderr[-3000:]}")
            ran += 1

    sys.path.insert(0, os.path.join(build_root, "python_packages"))
    os.chdir(work_dir)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    examples = 0
    for index, block in enumerate(blocks(text, "pycon")):
        test = parser.get_doctest(block, {}, f"README pycon block {index}",
                                  readme, 0)
        if not cuda:
            test.examples = [e for e in test.examples
                             if not NEEDS_CUDA.search(e.source)]
        examples += len(test.examples)
        runner.run(test)
    if runner.failures:
        sys.exit(f"{runner.failures} README Python example(s) failed")
    print(f"ran {ran} commands and {examples} Python examples; "
          f"skipped {skipped} commands")


if __name__ == "__main__":
    main(*sys.argv[1:5], cuda="--cuda" in sys.argv[5:])
