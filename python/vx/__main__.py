"""python3 -m vx FILE --stage STAGE [-o OUT] [--launches] [--OPTION=VALUE ...]
python3 -m vx FILE --compile cpu|cuda -o LIB.so [--functions F,G] [--OPTION=VALUE ...]
python3 -m vx FILE --report [--OPTION=VALUE ...]
python3 -m vx --version

Lowers FILE to STAGE and writes the result: the module's IR, or for stage
ptx the PTX (one file per device module when there are several: OUT's stem
plus the module's name). With --compile, writes a shared library that runs
without MLIR (vx.compile; its runtime libraries beside it). With --report,
prints what the compiler does with each kernel (vx.Module.report). Any other
--name=value is an option of the stage's pipeline (--chip=sm_100a,
--threads-per-block=128, --openmp); a bare --name means true. Errors, those
of the command line included, print their diagnostics and exit with status
1; warnings and remarks are printed on stderr, with the source line, as
vx-opt prints them.
"""

import argparse
import os
import sys

import vx


def _parse_stage_options(extra):
    """{option: value} from leftover `--name=value`, `--name value` and
    `--name` arguments."""
    options = {}
    position = 0
    while position < len(extra):
        argument = extra[position]
        if not argument.startswith("--") or len(argument) == 2:
            raise SystemExit(f"vx: unexpected argument {argument!r}")
        name, has_value, value = argument[2:].partition("=")
        if not has_value:
            following = extra[position + 1] if position + 1 < len(extra) else None
            if following is not None and not following.startswith("--"):
                value = following
                position += 1
            else:
                value = "true"
        options[name.replace("-", "_")] = _option_value(value)
        position += 1
    return options


def _option_value(text):
    if text in ("true", "false"):
        return text == "true"
    if text.lstrip("-").isdigit():
        return int(text)
    return text


def _write(path, text):
    if path is None or path == "-":
        sys.stdout.write(text)
        return
    with open(path, "w") as output:
        output.write(text)


def _write_ptx(ptx, output):
    if output is None or output == "-" or len(ptx) == 1:
        texts = list(ptx.values())
        if output is None or output == "-":
            texts = [f"// device module {name}\n{text}" for name, text in ptx.items()]
        _write(output, "".join(texts))
        return
    stem, suffix = os.path.splitext(output)
    for name, text in ptx.items():
        path = f"{stem}.{name}{suffix or '.ptx'}"
        _write(path, text)
        print(f"vx: wrote {path}", file=sys.stderr)


def _format_report(reports) -> str:
    """A table of KernelReports, one line per kernel; `-` where unknown."""
    header = ("kernel", "grid", "block", "instances/CTA", "shared bytes",
              "stages", "registers", "spill bytes", "stack bytes")

    def cell(value):
        if value is None:
            return "-"
        if isinstance(value, tuple):
            return "x".join("?" if v is None else str(v) for v in value)
        return str(value)

    rows = [header] + [tuple(cell(v) for v in report) for report in reports]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()
                   + "\n" for row in rows)


class _ArgumentParser(argparse.ArgumentParser):
    """Command-line errors exit with status 1, like every other error
    (argparse's own is 2)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


class _PrintVersion(argparse.Action):
    """--version: Vx's and LLVM's, in the two lines of `vx-opt --version`
    (argparse's own version action would join them)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        from vx import _config
        print(f"Vx version {vx.__version__}\n"
              f"  built with LLVM {_config.LLVM_VERSION}")
        parser.exit()


def main(argv=None):
    parser = _ArgumentParser(
        prog="python3 -m vx", description=__doc__.split("\n\n")[1],
        epilog="stages: " + ", ".join(vx.STAGES))
    parser.add_argument("--version", action=_PrintVersion,
                        help="print the Vx and LLVM versions and exit")
    parser.add_argument("file", help="vx IR ('-' for standard input)")
    parser.add_argument("--stage", default="vx", choices=vx.STAGES,
                        help="the stage to lower to (default: vx, i.e. "
                             "parse, verify and vx-verify-semantics)")
    parser.add_argument("-o", "--output", help="output file (default: stdout)")
    parser.add_argument("--launches", action="store_true",
                        help="print the launch geometry of the stage "
                             "(gpu when the stage is vx) instead of its IR")
    parser.add_argument("--report", action="store_true",
                        help="print, per kernel, the launch geometry, "
                             "instances per CTA, shared memory, stages and "
                             "ptxas's registers, spills and stack")
    parser.add_argument("--compile", choices=("cpu", "cuda"),
                        help="write a shared library for this target to -o")
    parser.add_argument("--functions",
                        help="with --compile: the functions to keep "
                             "(comma-separated; default all public ones)")
    arguments, extra = parser.parse_known_args(argv)
    options = _parse_stage_options(extra)
    if arguments.compile and (not arguments.output or arguments.output == "-"):
        parser.error("--compile writes a library: give it a path with -o")
    if arguments.report and (arguments.compile or arguments.launches):
        parser.error("--report prints the report alone: not with --compile "
                     "or --launches")
    if arguments.functions and not arguments.compile:
        parser.error("--functions applies only with --compile")
    try:
        if arguments.file == "-":
            text, filename = sys.stdin.read(), "<stdin>"
        else:
            with open(arguments.file) as source:
                text, filename = source.read(), arguments.file
    except OSError as error:
        print(f"vx: cannot read {arguments.file}: {error.strerror}", file=sys.stderr)
        return 1
    try:
        module = vx.parse(text, filename)
        if arguments.compile:
            functions = arguments.functions.split(",") if arguments.functions else None
            library = vx.compile(module, arguments.compile,
                                 output=arguments.output, functions=functions,
                                 **options)
            print(f"vx: wrote {library.path} ({', '.join(library.functions)})",
                  file=sys.stderr)
            return 0
        if arguments.report:
            _write(arguments.output, _format_report(module.report(**options)))
            return 0
        stage = arguments.stage
        if arguments.launches and stage == "vx":
            stage = "gpu"
        lowered = module.lower(stage, **options)
        sys.stderr.write(lowered.render_diagnostics())
        if arguments.launches:
            _write(arguments.output, "".join(
                f"{launch.kernel} grid={launch.grid} block={launch.block} "
                f"at {launch.location}\n"
                for launch in lowered.launches()))
        elif stage == "ptx":
            _write_ptx(lowered.ptx(), arguments.output)
        else:
            _write(arguments.output, str(lowered) + "\n")
    except vx.VxError as error:
        print(f"vx: {error}", file=sys.stderr)
        return 1
    except (TypeError, ValueError) as error:
        print(f"vx: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
