"""Runs every command of README.md: each line of its ```sh blocks (with `\\`
and `|` continuations) as a bash command from a scratch directory laid out
like the repository (build/ is the build under test), and its ```pycon
blocks as doctests there. A command fails the run when it exits non-zero;
a doctest when its output differs. A ```mlir or ```text block right after a
```sh block shows the output of the block's last command: its lines (with
surrounding whitespace and runs of spaces ignored) are consecutive lines of
the real output, a line `...` stands for any number of lines and `...`
within a line for any text; groups of lines match in order. Without a CUDA
toolkit the commands and examples that need one (the PTX stage, ptxas,
libdevice) are skipped.

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


FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
OUTPUT_LANGUAGES = ("mlir", "text")


def blocks(text, language):
    """The bodies of the fenced blocks of `language`."""
    return [m.group(2) for m in FENCE.finditer(text) if m.group(1) == language]


def sh_blocks(text):
    """(commands, shown output or None) of each ```sh block."""
    fences = list(FENCE.finditer(text))
    result = []
    for index, fence in enumerate(fences):
        if fence.group(1) != "sh":
            continue
        shown = None
        if index + 1 < len(fences):
            following = fences[index + 1]
            if (following.group(1) in OUTPUT_LANGUAGES and
                    not text[fence.end():following.start()].strip()):
                shown = following.group(2)
        result.append((fence.group(2), shown))
    return result


def normalized(line):
    return " ".join(line.split())


def line_pattern(line):
    return re.compile(".*".join(re.escape(part)
                                for part in normalized(line).split("...")))


def output_mismatch(shown, output):
    """None when `output` has the lines `shown` shows (see the module
    docstring), else the first group of lines it lacks."""
    groups, group = [], []
    for line in shown.splitlines() + ["..."]:
        if normalized(line) == "...":
            if group:
                groups.append(group)
            group = []
        else:
            group.append((line.strip(), line_pattern(line)))
    lines = [normalized(line) for line in output.splitlines()]
    position = 0
    for group in groups:
        for start in range(position, len(lines) - len(group) + 1):
            if all(pattern.fullmatch(lines[start + i])
                   for i, (_, pattern) in enumerate(group)):
                position = start + len(group)
                break
        else:
            return "\n".join(line for line, _ in group)
    return None


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

    ran = skipped = checked = 0
    for block, shown in sh_blocks(text):
        block_commands = commands(block)
        for command in block_commands:
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
            if shown is not None and command == block_commands[-1]:
                missing = output_mismatch(shown, result.stdout)
                if missing is not None:
                    sys.exit(f"README shows output that this command does not "
                             f"give:\n{command}\nno lines match:\n{missing}\n"
                             f"output:\n{result.stdout[:3000]}")
                checked += 1

    sys.path.insert(0, os.path.join(build_root, "python_packages"))
    os.chdir(work_dir)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    examples = 0
    for index, block in enumerate(blocks(text, "pycon")):
        test = parser.get_doctest(block, {}, f"README pycon block {index}",
                                  readme, 0)
        if not cuda:
            # The examples after one that needs CUDA may use its results.
            first = next((i for i, e in enumerate(test.examples)
                          if NEEDS_CUDA.search(e.source)), len(test.examples))
            test.examples = test.examples[:first]
        examples += len(test.examples)
        runner.run(test)
    if runner.failures:
        sys.exit(f"{runner.failures} README Python example(s) failed")
    print(f"ran {ran} commands and {examples} Python examples; "
          f"skipped {skipped} commands; checked {checked} outputs")


if __name__ == "__main__":
    main(*sys.argv[1:5], cuda="--cuda" in sys.argv[5:])
