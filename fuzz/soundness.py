#!/usr/bin/env python3
"""Soundness fuzzer of vx-verify-semantics: random kernels, the static
verdict against the dynamic race detector (detect-races=true).

Each kernel is a function with one spawn over a random grid whose body
stores, loads, updates atomically, copies and transfers through index
expressions over grid coordinates, loop variables, captured scalars and
read-only loaded indices, with casts, divisions and remainders of negative
values, wrap-around, shifts, masks, selects, and guards of every kind
(scf.if, scf.index_switch, affine.if, loop bounds, scf.while), thread
loops over scratch, views, aliasing arguments and tokens; with `--grammar`,
the constructs of issue 27 too (CONSTRUCTS: allocas, private and smem
scratch, affine loops, memrefs chosen by select / if / iter_args, `threads`
clauses of any count, transposed tiles, writes into pipelined transfers'
sources). A Python model of the integer semantics sizes every buffer so that
every access is in bounds.

A batch of kernels is one module, checked and run by one process each:
vx-opt --vx-verify-semantics gives each kernel's verdict (proven race,
warning, silence), while beside it a second vx-opt lowers the module with
vx-to-llvm's pipeline (allow-races, detect-races, one of the CPU paths by
batch) minus the check, and mlir-runner -O0 runs it with the race detector
(VX_RACE_CONTINUE=1 reports the first race of every spawn). A disagreement
is

  - silence where the run races (the checker's proof is wrong);
  - numbers that differ from those of the sequential CPU path (run beside
    it, without the detector) for a kernel with no proven race whose run
    does not race (wrong code);
  - a proven race (an error) where the run does not race;
  - a token error on the generator's correct token code;
  - a crash, or a module the pipeline cannot run.

    soundness.py VX_OPT [--seconds S | --kernels N] [--seed K] [--batch B]
                 [--out DIR] [--progress N] [--jobs N] [--skip K]
                 [--grammar all|base|CONSTRUCT,...] [--compare OLD_VX_OPT]

Exit status 1 on any disagreement (the kernel is written to DIR).

With --compare, nothing runs: each batch (kernels and twins) is checked by
VX_OPT and by OLD_VX_OPT, one after the other (in turn which goes first),
and their diagnostics must be identical, text, locations and witnesses; the
CPU time of each checker is reported.
"""

import argparse
import collections
import concurrent.futures
import ctypes.util
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time

INDEX = 64
MAX_STEPS = 96  # loop iterations an instance may run, all loops together


# -- integer semantics ---------------------------------------------------------

def wrap(value, width):
    return value & ((1 << width) - 1)


def signed(bits, width):
    return bits - (1 << width) if bits >> (width - 1) else bits


class Undefined(Exception):
    """The program would divide by zero, overflow a signed division, shift
    too far, or loop too long: the generator tries again."""


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# -- expressions ----------------------------------------------------------------

class Expr:
    """An integer expression: `ir` emits it and returns its SSA name,
    `ev` returns its bit pattern in an environment."""
    width = INDEX


class Grid(Expr):
    def __init__(self, dim):
        self.dim = dim

    def ir(self, b):
        return f"%g{self.dim}"

    def ev(self, env):
        return env["grid"][self.dim]


class Var(Expr):
    """A loop variable or a thread loop's iteration variable."""

    def __init__(self, name):
        self.name = name

    def ir(self, b):
        return f"%{self.name}"

    def ev(self, env):
        return env[self.name]


class Const(Expr):
    def __init__(self, value, width=INDEX):
        self.value, self.width = wrap(value, width), width

    def ir(self, b):
        return b.constant(signed(self.value, self.width), self.width)

    def ev(self, env):
        return self.value


class Scalar(Expr):
    """A captured index argument of the kernel."""

    def __init__(self, position):
        self.position = position

    def ir(self, b):
        return f"%s{self.position}"

    def ev(self, env):
        return env["scalars"][self.position]


class Loaded(Expr):
    """An index loaded from the read-only table argument."""

    def __init__(self, slot):
        self.slot = slot

    def ir(self, b):
        return b.emit(f"memref.load %table[{b.constant(self.slot)}] : memref<8xindex>")

    def ev(self, env):
        return env["table"][self.slot]


def type_of(width):
    return "index" if width == INDEX else f"i{width}"


BINARY = ["addi", "subi", "muli", "divsi", "divui", "remsi", "remui",
          "floordivsi", "ceildivsi", "ceildivui", "minsi", "maxsi", "minui",
          "maxui", "shli", "shrui", "shrsi", "andi", "xori"]


class Bin(Expr):
    def __init__(self, op, a, b):
        self.op, self.a, self.b, self.width = op, a, b, a.width

    def ir(self, b):
        x, y = self.a.ir(b), self.b.ir(b)
        return b.emit(f"arith.{self.op} {x}, {y} : {type_of(self.width)}")

    def ev(self, env):
        w = self.width
        x, y = self.a.ev(env), self.b.ev(env)
        sx, sy = signed(x, w), signed(y, w)
        op = self.op
        if op in ("divsi", "remsi", "floordivsi", "ceildivsi"):
            if sy == 0 or (sx == -(1 << (w - 1)) and sy == -1):
                raise Undefined()
        if op in ("divui", "remui", "ceildivui") and y == 0:
            raise Undefined()
        if op in ("shli", "shrui", "shrsi") and y >= w:
            raise Undefined()
        if op == "addi":
            return wrap(x + y, w)
        if op == "subi":
            return wrap(x - y, w)
        if op == "muli":
            return wrap(x * y, w)
        if op == "divsi":
            return wrap(trunc_div(sx, sy), w)
        if op == "remsi":
            return wrap(sx - sy * trunc_div(sx, sy), w)
        if op == "floordivsi":
            return wrap(sx // sy, w)
        if op == "ceildivsi":
            return wrap(-((-sx) // sy), w)
        if op == "divui":
            return x // y
        if op == "remui":
            return x % y
        if op == "ceildivui":
            return (x + y - 1) // y
        if op == "minsi":
            return x if sx <= sy else y
        if op == "maxsi":
            return x if sx >= sy else y
        if op == "minui":
            return min(x, y)
        if op == "maxui":
            return max(x, y)
        if op == "shli":
            return wrap(x << y, w)
        if op == "shrui":
            return x >> y
        if op == "shrsi":
            return wrap(sx >> y, w)
        if op == "andi":
            return x & y
        if op == "xori":
            return x ^ y
        raise AssertionError(op)


class Cast(Expr):
    """index_cast / index_castui between index and iN, trunci, extsi, extui."""

    def __init__(self, op, a, width, type_name=None):
        self.op, self.a, self.width = op, a, width
        # i64 has the width of index: named explicitly.
        self.type_name = type_name or type_of(width)

    def ir(self, b):
        x = self.a.ir(b)
        source = getattr(self.a, "type_name", type_of(self.a.width))
        return b.emit(f"arith.{self.op} {x} : {source} to {self.type_name}")

    def ev(self, env):
        x, w0, w1 = self.a.ev(env), self.a.width, self.width
        if w1 <= w0:
            return wrap(x, w1)
        if self.op in ("extui", "index_castui"):
            return x
        return wrap(signed(x, w0), w1)


PREDICATES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


class Cmp:
    def __init__(self, pred, a, b):
        self.pred, self.a, self.b = pred, a, b

    def ir(self, b):
        x, y = self.a.ir(b), self.b.ir(b)
        return b.emit(f"arith.cmpi {self.pred}, {x}, {y} : {type_of(self.a.width)}")

    def ev(self, env):
        w = self.a.width
        x, y = self.a.ev(env), self.b.ev(env)
        if self.pred[0] == "s":
            x, y = signed(x, w), signed(y, w)
        return {"eq": x == y, "ne": x != y, "slt": x < y, "sle": x <= y,
                "sgt": x > y, "sge": x >= y, "ult": x < y, "ule": x <= y,
                "ugt": x > y, "uge": x >= y}[self.pred]


class Logic:
    """andi / ori / xori of two conditions, or a condition as a captured i1."""

    def __init__(self, op, a, b):
        self.op, self.a, self.b = op, a, b

    def ir(self, b):
        x, y = self.a.ir(b), self.b.ir(b)
        return b.emit(f"arith.{self.op} {x}, {y} : i1")

    def ev(self, env):
        x, y = self.a.ev(env), self.b.ev(env)
        return {"andi": x and y, "ori": x or y, "xori": x != y}[self.op]


class Flag:
    """The captured i1 argument."""

    def ir(self, b):
        return "%flag"

    def ev(self, env):
        return env["flag"]


class Select(Expr):
    def __init__(self, cond, a, b):
        self.cond, self.a, self.b, self.width = cond, a, b, a.width

    def ir(self, b):
        c, x, y = self.cond.ir(b), self.a.ir(b), self.b.ir(b)
        return b.emit(f"arith.select {c}, {x}, {y} : {type_of(self.width)}")

    def ev(self, env):
        return self.a.ev(env) if self.cond.ev(env) else self.b.ev(env)


# -- the IR builder ---------------------------------------------------------------

class Builder:
    """`twin`: emit the kernel's twin, the same program in the forms the
    checker models best (scf.parallel for affine.parallel, an scf.if with
    the body once per candidate for a memref choice): its verdict bounds
    the kernel's."""

    def __init__(self, twin=False):
        self.lines, self.indent, self.counter = [], 4, 0
        self.twin, self.aliases = twin, {}

    def memref(self, name):
        return "%" + self.aliases.get(name, name)

    def fresh(self):
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, text):
        name = self.fresh()
        self.line(f"{name} = {text}")
        return name

    def line(self, text):
        self.lines.append(" " * self.indent + text)

    def constant(self, value, width=INDEX):
        return self.emit(f"arith.constant {value} : {type_of(width)}")

    def close(self):
        """Ends the region that the last `{` line opened."""
        self.indent -= 2
        self.line("}")

    def keep_result(self, value, index, offset):
        """Stores `value` at %res[%res_base + index + offset], this
        instance's part of the printed results."""
        at = self.emit(f"arith.addi %res_base, {index} : index")
        at = self.emit(f"arith.addi {at}, {self.constant(offset)} : index")
        self.line(f"memref.store {value}, %res[{at}] : memref<?xf32>")


# -- statements ---------------------------------------------------------------------

FIXED = 8  # elements of the per-instance buffers (alloca, scratch)
FIXED_TYPE = f"memref<{FIXED}xf32>"


class Access:
    """One memory access for sizing: the buffer (a captured one, a
    per-instance one of FIXED elements, or a memref chosen at run time
    among buffers of one type), and the expression of its index (possibly
    wrapped by the generator into range)."""

    def __init__(self, buffer, index, lanes=1, memref_type="memref<?xf32>"):
        self.buffer, self.index, self.lanes = buffer, index, lanes
        self.type = memref_type
        # The modulus the index is taken by, if any: always for the fixed
        # buffers, whose size the model cannot grow.
        self.wrapped = FIXED - lanes + 1 if memref_type == FIXED_TYPE else None
        self.values = []  # (buffer the access reached, index)

    def index_ir(self, b):
        name = self.index.ir(b)
        if self.wrapped:
            name = b.emit(f"arith.remui {name}, {b.constant(self.wrapped)} : index")
        return name

    def record(self, env):
        self.values.append((env["mem"].get(self.buffer, self.buffer),
                            self.index.ev(env)))


def tagged_value(b, tag):
    """An f32 that names its writer: the value of an index expression."""
    wide = b.emit(f"arith.index_cast {tag.ir(b)} : index to i64")
    return b.emit(f"arith.sitofp {wide} : i64 to f32")


class Store:
    def __init__(self, access, value="%value", tag=None):
        self.access, self.value, self.tag = access, value, tag

    def accesses(self):
        return [self.access]

    def ir(self, b):
        value = tagged_value(b, self.tag) if self.tag else self.value
        index = self.access.index_ir(b)
        buf, memref_type = self.access.buffer, self.access.type
        if self.access.lanes > 1:
            vector = f"vector<{self.access.lanes}xf32>"
            v = b.emit(f"vector.broadcast {value} : f32 to {vector}")
            b.line(f"vector.store {v}, {b.memref(buf)}[{index}] : {memref_type}, {vector}")
        else:
            b.line(f"memref.store {value}, {b.memref(buf)}[{index}] : {memref_type}")

    def ev(self, env):
        if self.tag:
            self.tag.ev(env)
        self.access.record(env)


class Copy:
    """A load from one access and a store to another."""

    def __init__(self, source, target):
        self.source, self.target = source, target

    def accesses(self):
        return [self.source, self.target]

    def ir(self, b):
        index = self.source.index_ir(b)
        if self.source.lanes > 1:
            vector = f"vector<{self.source.lanes}xf32>"
            v = b.emit(f"vector.load {b.memref(self.source.buffer)}[{index}] : "
                       f"{self.source.type}, {vector}")
            x = b.emit(f"vector.reduction <add>, {v} : {vector} into f32")
        else:
            x = b.emit(f"memref.load {b.memref(self.source.buffer)}[{index}] : "
                       f"{self.source.type}")
        Store(self.target, x).ir(b)

    def ev(self, env):
        self.source.record(env)
        self.target.record(env)


class Atomic:
    def __init__(self, access, kind, used):
        self.access, self.kind, self.used = access, kind, used

    def accesses(self):
        return [self.access]

    def ir(self, b):
        index = self.access.index_ir(b)
        r = b.emit(f"memref.atomic_rmw {self.kind} %value, "
                   f"{b.memref(self.access.buffer)}"
                   f"[{index}] : (f32, memref<?xf32>) -> f32")
        if self.used:
            b.line(f"memref.store {r}, %out[%linear] : memref<?xf32>")

    def ev(self, env):
        self.access.record(env)


class ViewStore:
    """A store through a subview with a static stride."""

    def __init__(self, access, offset, stride, length):
        self.access, self.offset, self.stride, self.length = \
            access, offset, stride, length

    def accesses(self):
        return [self.access]

    def ir(self, b):
        index = self.access.index_ir(b)
        layout = f"strided<[{self.stride}], offset: ?>"
        view = b.emit(f"memref.subview {b.memref(self.access.buffer)}"
                      f"[{self.offset.ir(b)}] "
                      f"[{self.length}] [{self.stride}] : memref<?xf32> to "
                      f"memref<{self.length}xf32, {layout}>")
        b.line(f"memref.store %value, {view}[{index}] : "
               f"memref<{self.length}xf32, {layout}>")

    def ev(self, env):
        self.access.record(env)
        env["view_offsets"].append(
            (self, env["mem"].get(self.access.buffer, self.access.buffer),
             signed(self.offset.ev(env), INDEX)))


class If:
    def __init__(self, cond, body, orelse):
        self.cond, self.body, self.orelse = cond, body, orelse

    def accesses(self):
        return [a for s in self.body + self.orelse for a in s.accesses()]

    def ir(self, b):
        c = self.cond.ir(b)
        b.line(f"scf.if {c} {{")
        b.indent += 2
        for s in self.body:
            s.ir(b)
        b.indent -= 2
        if self.orelse:
            b.line("} else {")
            b.indent += 2
            for s in self.orelse:
                s.ir(b)
            b.indent -= 2
        b.line("}")

    def ev(self, env):
        for s in (self.body if self.cond.ev(env) else self.orelse):
            s.ev(env)


class Switch:
    def __init__(self, selector, cases, bodies, default):
        self.selector, self.cases, self.bodies, self.default = \
            selector, cases, bodies, default

    def accesses(self):
        return [a for body in self.bodies + [self.default] for s in body
                for a in s.accesses()]

    def ir(self, b):
        s = self.selector.ir(b)
        b.line(f"scf.index_switch {s}")
        for case, body in zip(self.cases, self.bodies):
            b.line(f"case {case} {{")
            b.indent += 2
            for st in body:
                st.ir(b)
            b.line("scf.yield")
            b.close()
        b.line("default {")
        b.indent += 2
        for st in self.default:
            st.ir(b)
        b.close()

    def ev(self, env):
        value = signed(self.selector.ev(env), INDEX)
        for case, body in zip(self.cases, self.bodies):
            if value == case:
                for s in body:
                    s.ev(env)
                return
        for s in self.default:
            s.ev(env)


class AffineIf:
    """affine.if (d0 - c >= 0) or (d0 == c) on a grid coordinate (an
    operand the body computes is no valid affine dimension)."""

    def __init__(self, operand, constant, equality, body):
        self.operand, self.constant, self.equality, self.body = \
            operand, constant, equality, body

    def accesses(self):
        return [a for s in self.body for a in s.accesses()]

    def ir(self, b):
        x = self.operand.ir(b)
        relation = "==" if self.equality else ">="
        b.line(f"affine.if affine_set<(d0) : (d0 - {self.constant} {relation} 0)>({x}) {{")
        b.indent += 2
        for s in self.body:
            s.ir(b)
        b.close()

    def ev(self, env):
        value = signed(self.operand.ev(env), INDEX) - self.constant
        if (value == 0) if self.equality else (value >= 0):
            for s in self.body:
                s.ev(env)


class For:
    def __init__(self, name, lower, upper, step, unsigned, body):
        self.name, self.lower, self.upper, self.step, self.unsigned, self.body = \
            name, lower, upper, step, unsigned, body

    def accesses(self):
        return [a for s in self.body for a in s.accesses()]

    def ir(self, b):
        lo, hi, st = self.lower.ir(b), self.upper.ir(b), b.constant(self.step)
        unsigned = "unsigned " if self.unsigned else ""
        b.line(f"scf.for {unsigned}%{self.name} = {lo} to {hi} step {st} {{")
        b.indent += 2
        for s in self.body:
            s.ir(b)
        b.close()

    def ev(self, env):
        lo, hi = self.lower.ev(env), self.upper.ev(env)
        if not self.unsigned:
            lo, hi = signed(lo, INDEX), signed(hi, INDEX)
        k = lo
        while k < hi:
            env["steps"] += 1
            if env["steps"] > MAX_STEPS:
                raise Undefined()
            env[self.name] = wrap(k, INDEX)
            for s in self.body:
                s.ev(env)
            k += self.step
            # The lowered loop's induction variable wraps around.
            if k > ((1 << 64) - 1 if self.unsigned else (1 << 63) - 1):
                raise Undefined()


class While:
    """scf.while (%k = start) while k slt/ult bound, k += step."""

    def __init__(self, name, start, bound, unsigned, step, body):
        self.name, self.start, self.bound, self.unsigned, self.step, self.body = \
            name, start, bound, unsigned, step, body

    def accesses(self):
        return [a for s in self.body for a in s.accesses()]

    def ir(self, b):
        start, bound, step = self.start.ir(b), self.bound.ir(b), b.constant(self.step)
        pred = "ult" if self.unsigned else "slt"
        b.line(f"%w{self.name} = scf.while (%{self.name}b = {start}) : (index) -> index {{")
        b.indent += 2
        more = b.emit(f"arith.cmpi {pred}, %{self.name}b, {bound} : index")
        b.line(f"scf.condition({more}) %{self.name}b : index")
        b.indent -= 2
        b.line("} do {")
        b.line(f"^bb0(%{self.name}: index):")
        b.indent += 2
        for s in self.body:
            s.ir(b)
        nxt = b.emit(f"arith.addi %{self.name}, {step} : index")
        b.line(f"scf.yield {nxt} : index")
        b.close()

    def ev(self, env):
        k, bound = self.start.ev(env), self.bound.ev(env)
        read = (lambda v: v) if self.unsigned else (lambda v: signed(v, INDEX))
        while read(k) < read(bound):
            env["steps"] += 1
            if env["steps"] > MAX_STEPS:
                raise Undefined()
            env[self.name] = k
            for s in self.body:
                s.ev(env)
            k = wrap(k + self.step, INDEX)


class ThreadLoop:
    """A thread loop over [0, trips) per dimension: scf.parallel, or
    affine.parallel (a thread loop too, once affine is lowered)."""

    def __init__(self, names, trips, body, affine=False):
        self.names, self.trips, self.body, self.affine = names, trips, body, affine

    def accesses(self):
        return [a for s in self.body for a in s.accesses()]

    def ir(self, b):
        ivs = ", ".join(f"%{n}" for n in self.names)
        if self.affine and not b.twin:
            zeros = ", ".join("0" for _ in self.names)
            b.line(f"affine.parallel ({ivs}) = ({zeros}) to "
                   f"({', '.join(map(str, self.trips))}) {{")
        else:
            trips = ", ".join(b.constant(t) for t in self.trips)
            zeros = ", ".join("%c0" for _ in self.names)
            ones = ", ".join("%c1" for _ in self.names)
            b.line(f"scf.parallel ({ivs}) = ({zeros}) to ({trips}) step ({ones}) {{")
        b.indent += 2
        for s in self.body:
            s.ir(b)
        b.close()

    def ev(self, env):
        points = [[]]
        for trips in self.trips:
            points = [p + [k] for p in points for k in range(trips)]
        for point in points:
            for name, k in zip(self.names, point):
                env[name] = k
            for s in self.body:
                s.ev(env)


class AffineFor:
    """affine.for from a constant to a constant, or to a grid coordinate
    plus a constant (a dimension operand)."""

    def __init__(self, name, lower, upper, grid, step, body):
        self.name, self.lower, self.upper, self.grid, self.step, self.body = \
            name, lower, upper, grid, step, body

    def accesses(self):
        return [a for s in self.body for a in s.accesses()]

    def ir(self, b):
        upper = str(self.upper) if self.grid is None else \
            f"affine_map<(d0) -> (d0 + {self.upper})>(%g{self.grid})"
        b.line(f"affine.for %{self.name} = {self.lower} to {upper} "
               f"step {self.step} {{")
        b.indent += 2
        for s in self.body:
            s.ir(b)
        b.close()

    def ev(self, env):
        upper = self.upper + (0 if self.grid is None else env["grid"][self.grid])
        for k in range(self.lower, upper, self.step):
            env["steps"] += 1
            if env["steps"] > MAX_STEPS:
                raise Undefined()
            env[self.name] = k
            for s in self.body:
                s.ev(env)


class MemChoice:
    """A memref chosen at run time among buffers of one type, by
    arith.select, by an scf.if's result or by an scf.for's iter_args
    (the loop's result, or its iteration argument inside the loop), then
    the statements that access it."""

    def __init__(self, name, kind, cond, first, second, memref_type, body):
        self.name, self.kind, self.cond, self.first, self.second = \
            name, kind, cond, first, second
        self.type, self.body = memref_type, body

    def accesses(self):
        return [a for s in self.body for a in s.accesses()]

    def ir(self, b):
        c = self.cond.ir(b) if self.cond is not True else \
            b.emit("arith.constant true")
        t, x, y = self.type, b.memref(self.first), b.memref(self.second)
        if b.twin:
            # The body once per candidate, under the condition.
            b.line(f"scf.if {c} {{")
            for buffer, last in ((self.first, False), (self.second, True)):
                b.indent += 2
                b.aliases[self.name] = b.aliases.get(buffer, buffer)
                for s in self.body:
                    s.ir(b)
                del b.aliases[self.name]
                b.indent -= 2
                b.line("} else {" if not last else "}")
            return
        if self.kind == "select":
            b.line(f"%{self.name} = arith.select {c}, {x}, {y} : {t}")
        elif self.kind == "if":
            b.line(f"%{self.name} = scf.if {c} -> ({t}) {{")
            b.line(f"  scf.yield {x} : {t}")
            b.line("} else {")
            b.line(f"  scf.yield {y} : {t}")
            b.line("}")
        elif self.kind == "iter":
            # One trip whose iteration selects: the loop's result.
            b.line(f"%{self.name} = scf.for %{self.name}i = %c0 to %c1 step "
                   f"%c1 iter_args(%{self.name}a = {y}) -> ({t}) {{")
            b.line(f"  %{self.name}n = arith.select {c}, {x}, %{self.name}a : {t}")
            b.line(f"  scf.yield %{self.name}n : {t}")
            b.line("}")
        else:
            # "iter_body": the iteration argument's select accessed inside
            # the loop.
            b.line(f"%{self.name}r = scf.for %{self.name}i = %c0 to %c1 step "
                   f"%c1 iter_args(%{self.name}a = {y}) -> ({t}) {{")
            b.indent += 2
            b.line(f"%{self.name} = arith.select {c}, {x}, %{self.name}a : {t}")
            for s in self.body:
                s.ir(b)
            b.line(f"scf.yield %{self.name} : {t}")
            b.close()
            return
        for s in self.body:
            s.ir(b)

    def ev(self, env):
        chosen = True if self.cond is True else self.cond.ev(env)
        buffer = self.first if chosen else self.second
        env["mem"][self.name] = env["mem"].get(buffer, buffer)
        for s in self.body:
            s.ev(env)


class Transpose:
    """A square tile (private or smem scratch, or an alloca) written by one
    thread loop at (r, c) and read by the next at (c, r), the result kept
    in this instance's part of %res. Owned private scratch only where the
    threads of (r, c) and (c, r) agree: n * (r - c) + (c - r) = 0 modulo
    the CTA size."""

    def __init__(self, tile, size, affine, offset):
        self.tile, self.size, self.affine, self.offset = tile, size, affine, offset

    def accesses(self):
        return []

    def loop(self, b, header):
        n = self.size
        if self.affine and not b.twin:
            b.line(f"affine.parallel (%{header}r, %{header}c) = (0, 0) to ({n}, {n}) {{")
        else:
            cn = b.constant(n)
            b.line(f"scf.parallel (%{header}r, %{header}c) = (%c0, %c0) to "
                   f"({cn}, {cn}) step (%c1, %c1) {{")
        b.indent += 2

    def ir(self, b):
        t, tile_type = self.tile, "memref<4x4xf32>"
        self.loop(b, f"{t}w")
        row = b.emit(f"arith.muli %{t}wr, {b.constant(self.size)} : index")
        position = b.emit(f"arith.addi {row}, %{t}wc : index")
        tag = b.emit(f"arith.addi {position}, %tag : index")
        value = tagged_value(b, Var(tag[1:]))
        b.line(f"memref.store {value}, %{t}[%{t}wr, %{t}wc] : {tile_type}")
        b.close()
        self.loop(b, f"{t}x")
        x = b.emit(f"memref.load %{t}[%{t}xc, %{t}xr] : {tile_type}")
        row = b.emit(f"arith.muli %{t}xr, {b.constant(4)} : index")
        position = b.emit(f"arith.addi {row}, %{t}xc : index")
        b.keep_result(x, position, self.offset)
        b.close()

    def ev(self, env):
        pass


class TransferWrite:
    """A transfer of this instance's row of %rows into smem scratch
    (pipelined by the spawn's `stages` clause along the arbitrary dims),
    awaited and kept in %res, and a write into the row of instance
    `linear + ahead` (the source of a later step's transfer), before the
    transfer or after the await, directly or through a memref select."""

    def __init__(self, ahead, before, through, thread, offset):
        self.ahead, self.before, self.through, self.thread, self.offset = \
            ahead, before, through, thread, offset

    def accesses(self):
        return []

    def lanes(self, b, name, body):
        """Eight iterations: a thread loop or a once-per-instance loop."""
        c8 = b.constant(FIXED)
        if self.thread:
            b.line(f"scf.parallel (%{name}) = (%c0) to ({c8}) step (%c1) {{")
        else:
            b.line(f"scf.for %{name} = %c0 to {c8} step %c1 {{")
        b.indent += 2
        body()
        b.close()

    def write(self, b):
        rows = "%rows"
        if self.through:
            rows = b.emit(f"arith.select %flag, %rows, %rows : memref<?xf32>")
        row = b.emit(f"arith.addi %linear, {b.constant(self.ahead)} : index")
        base = b.emit(f"arith.muli {row}, {b.constant(FIXED)} : index")

        def body():
            at = b.emit(f"arith.addi {base}, %xw : index")
            tag = b.emit(f"arith.addi %tag, %xw : index")
            value = tagged_value(b, Var(tag[1:]))
            b.line(f"memref.store {value}, {rows}[{at}] : memref<?xf32>")
        self.lanes(b, "xw", body)

    def ir(self, b):
        if self.before:
            self.write(b)
        base = b.emit(f"arith.muli %linear, {b.constant(FIXED)} : index")
        view = f"memref<{FIXED}xf32, strided<[1], offset: ?>>"
        src = b.emit(f"memref.subview %rows[{base}] [{FIXED}] [1] : "
                     f"memref<?xf32> to {view}")
        t = b.emit(f"vx.transfer_async {src} to %xt : {view} to {FIXED_TYPE}")
        b.line(f"vx.await {t}")

        def keep():
            x = b.emit(f"memref.load %xt[%xk] : {FIXED_TYPE}")
            b.keep_result(x, "%xk", self.offset)
        self.lanes(b, "xk", keep)
        if not self.before:
            self.write(b)

    def ev(self, env):
        pass


class Transfer:
    """A transfer of a static slice of an input into scratch, awaited, then
    read: correct token code."""

    def __init__(self, offset, length, in_loop):
        self.offset, self.length, self.in_loop = offset, length, in_loop

    def accesses(self):
        return []

    def ir(self, b):
        view_type = f"memref<{self.length}xf32, strided<[1], offset: {self.offset}>>"
        src = b.emit(f"memref.subview %input[{self.offset}] [{self.length}] [1] : "
                     f"memref<64xf32> to {view_type}")
        slot = b.emit(f"memref.subview %stage[0] [{self.length}] [1] : "
                      f"memref<8xf32> to memref<{self.length}xf32, strided<[1]>>")
        t = b.emit(f"vx.transfer_async {src} to {slot} : {view_type} to "
                   f"memref<{self.length}xf32, strided<[1]>>")
        b.line(f"vx.await {t}")
        x = b.emit(f"memref.load %stage[%c0] : memref<8xf32>")
        b.line(f"memref.store {x}, %out[%linear] : memref<?xf32>")

    def ev(self, env):
        pass


class ThreadTransfer:
    """A thread loop whose every iteration transfers one element of the
    input into its own element of private scratch, awaits it and keeps it
    in %res: the token never leaves the iteration."""

    def __init__(self, trips, offset):
        self.trips, self.offset = trips, offset

    def accesses(self):
        return []

    def ir(self, b):
        view = "memref<1xf32, strided<[1], offset: ?>>"
        b.line(f"scf.parallel (%yi) = (%c0) to ({b.constant(self.trips)}) "
               f"step (%c1) {{")
        b.indent += 2
        src = b.emit(f"memref.subview %input[%yi] [1] [1] : memref<64xf32> "
                     f"to {view}")
        dst = b.emit(f"memref.subview %yt[%yi] [1] [1] : {FIXED_TYPE} to {view}")
        t = b.emit(f"vx.transfer_async {src} to {dst} : {view} to {view}")
        b.line(f"vx.await {t}")
        x = b.emit(f"memref.load %yt[%yi] : {FIXED_TYPE}")
        b.keep_result(x, "%yi", self.offset)
        b.close()

    def ev(self, env):
        pass


class FixedFill:
    """Eight iterations (a thread loop or a once-per-instance loop) over a
    per-instance buffer: its initial values (%tag + 8 k + j), or its
    contents kept in this instance's part of %res (`drain`)."""

    def __init__(self, buffer, slot, thread, drain):
        self.buffer, self.slot, self.thread, self.drain = \
            buffer, slot, thread, drain

    def accesses(self):
        return []

    def ir(self, b):
        j = f"%{self.buffer}{'d' if self.drain else 'i'}"
        c8 = b.constant(FIXED)
        if self.thread:
            b.line(f"scf.parallel ({j}) = (%c0) to ({c8}) step (%c1) {{")
        else:
            b.line(f"scf.for {j} = %c0 to {c8} step %c1 {{")
        b.indent += 2
        if self.drain:
            x = b.emit(f"memref.load %{self.buffer}[{j}] : {FIXED_TYPE}")
            b.keep_result(x, j, FIXED * self.slot)
        else:
            at = b.emit(f"arith.addi {j}, {b.constant(FIXED * self.slot)} "
                        f": index")
            tag = b.emit(f"arith.addi {at}, %tag : index")
            value = tagged_value(b, Var(tag[1:]))
            b.line(f"memref.store {value}, %{self.buffer}[{j}] : {FIXED_TYPE}")
        b.close()

    def ev(self, env):
        pass


# -- kernels ----------------------------------------------------------------------

# The constructs of the grammar beyond the base one, each switched on by
# `--grammar` (the classes of issue 27):
#   threads   `threads N` clauses (3, 5, 6, 7, ...) and thread loops of
#             1 to 12 iterations, 1-D and 2-D;
#   alloca    a body-level memref.alloca (per instance), used like a buffer;
#   scratch   private and smem vx.scratch used like buffers;
#   affine    affine.for loops and affine.parallel thread loops;
#   memroot   memrefs chosen by arith.select, scf.if results, scf.for
#             iter_args (after the loop and inside it);
#   transpose a square tile written at (r, c) and read at (c, r);
#   transfer  a transfer of the instance's row, pipelined (`stages 2/3`),
#             and writes into the rows of later steps' transfers;
#   tokens    a transfer awaited inside one thread-loop iteration;
#   tagged    stored values that name their writer.
CONSTRUCTS = ["threads", "alloca", "scratch", "affine", "memroot",
              "transpose", "transfer", "tokens", "tagged"]
# The per-instance buffers: name -> declaration and the slot of %res that
# keeps their contents.
FIXED_BUFFERS = {"p": ("memref.alloca()", 0),
                 "q": ("vx.scratch", 1),
                 "s": ("vx.scratch smem", 2)}
# %res elements per instance: 3 x 8 fixed, 16 tile, 8 transfer, 8 transfers
# in a thread loop
RES = 56
TILE_SLOT, TRANSFER_SLOT, THREAD_TRANSFER_SLOT = 24, 40, 48

BUFFERS = ["a", "b"]


class Kernel:
    def __init__(self, rng, number, grammar=()):
        self.rng, self.number, self.grammar = rng, number, set(grammar)
        self.rank = rng.choice([1, 1, 2, 2, 3])
        self.sizes = [rng.choice([1, 2, 2, 3, 4, 5]) for _ in range(self.rank)]
        self.semantics = [rng.choice(["parallel", "parallel", "arbitrary"])
                          for _ in range(self.rank)]
        self.dynamic = rng.random() < 0.2
        self.topology = rng.choice(["host", "tensor_core"])
        self.scalars = [self.scalar_value() for _ in range(2)]
        self.flag = rng.random() < 0.5
        self.table = [rng.randint(-2, 9) for _ in range(8)]
        self.alias = rng.random() < 0.1  # a and b are one buffer
        self.loops = 0
        # The new constructs draw from rng only when switched on: the base
        # grammar's kernels stay those of earlier runs, seed for seed.
        g = self.grammar
        self.threads = self.stages = None
        if "threads" in g and self.topology == "tensor_core":
            self.threads = rng.choice([None, 1, 2, 3, 3, 5, 6, 7, 7, 12])
        self.fixed = [name for name, construct in
                      (("p", "alloca"), ("q", "scratch"), ("s", "scratch"))
                      if construct in g and rng.random() < 0.5]
        self.mems = []  # memref choices in scope: (name, type)
        prologue = [FixedFill(name, FIXED_BUFFERS[name][1],
                              rng.random() < 0.5, False) for name in self.fixed]
        self.tile = tile = None
        if "transpose" in g and rng.random() < 0.35:
            self.tile = rng.choice(["memref.alloca()", "vx.scratch",
                                    "vx.scratch smem"])
            tile = Transpose("w", rng.choice([2, 3, 4, 4]),
                             "affine" in g and rng.random() < 0.4, TILE_SLOT)
        self.transfer = None
        if "transfer" in g and rng.random() < 0.35:
            self.transfer = TransferWrite(rng.choice([0, 1, 1, 2]),
                                          rng.random() < 0.5,
                                          "memroot" in g and rng.random() < 0.3,
                                          rng.random() < 0.5, TRANSFER_SLOT)
            # Pipelined: a device spawn whose last dim is arbitrary (mostly).
            if rng.random() < 0.7:
                self.topology = "tensor_core"
                self.semantics[-1] = "arbitrary"
            if self.topology == "tensor_core":
                self.stages = rng.choice([2, 3])
        self.thread_transfer = None
        if "tokens" in g and rng.random() < 0.25:
            self.thread_transfer = ThreadTransfer(rng.randint(1, FIXED),
                                                  THREAD_TRANSFER_SLOT)
        self.body = [self.statement(0) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.15:
            self.body.append(Transfer(rng.randint(0, 8), rng.randint(1, 8), False))
        for construct in (tile, self.transfer, self.thread_transfer):
            if construct:
                self.body.insert(rng.randint(0, len(self.body)), construct)
        epilogue = [FixedFill(name, FIXED_BUFFERS[name][1],
                              rng.random() < 0.5, True) for name in self.fixed]
        self.body = prologue + self.body + epilogue

    def scalar_value(self):
        r = self.rng.random()
        if r < 0.7:
            return self.rng.randint(-3, 6)
        if r < 0.85:
            return self.rng.choice([1 << 62, (1 << 63) - 1, -(1 << 63), 255, 256])
        return self.rng.randint(-100, 100)

    # Expressions.
    def leaf(self, scope):
        r = self.rng.random()
        if r < 0.45:
            return Grid(self.rng.randrange(self.rank))
        if r < 0.6 and scope:
            return Var(self.rng.choice(scope))
        if r < 0.75:
            return Const(self.rng.choice([0, 1, 2, 3, -1, -2, 5, 7, 8, 63, 64,
                                          1 << 62, -(1 << 63)]))
        if r < 0.88:
            return Scalar(self.rng.randrange(2))
        return Loaded(self.rng.randrange(8))

    def expr(self, scope, depth):
        if depth <= 0 or self.rng.random() < 0.3:
            return self.leaf(scope)
        r = self.rng.random()
        if r < 0.55:
            op = self.rng.choice(BINARY)
            a = self.expr(scope, depth - 1)
            if op in ("addi", "subi", "minsi", "maxsi", "minui", "maxui", "xori"):
                b = self.expr(scope, depth - 1)
            elif op in ("shli", "shrui", "shrsi"):
                b = Const(self.rng.randint(0, 3))
            elif op == "andi":
                b = Const(self.rng.choice([1, 3, 7, 15]))
            elif op == "muli":
                b = (Const(self.rng.choice([2, 3, 4, 8, -1, 1 << 62, 1 << 63]))
                     if self.rng.random() < 0.8 else self.expr(scope, depth - 1))
            else:
                b = Const(self.rng.choice([2, 3, 4, -2, -3, 5]) if op[-2:] == "si"
                          else self.rng.choice([2, 3, 4, 5]))
            return Bin(op, a, b)
        if r < 0.75:
            # A round trip through a narrow integer.
            width = self.rng.choice([1, 8, 16, 32])
            a = self.expr(scope, depth - 1)
            # Truncated by trunci: upstream's canonicalization folds
            # index_cast(index_cast(x : index to iN)) back to x (also through
            # an ext), a miscompile that is not the checker's.
            wide = Cast(self.rng.choice(["index_cast", "index_castui"]), a, 64,
                        "i64")
            narrow = Cast("trunci", wide, width)
            narrow = Cast(self.rng.choice(["extsi", "extui"]), narrow, 64, "i64")
            return Cast(self.rng.choice(["index_cast", "index_castui"]), narrow,
                        INDEX)
        if r < 0.9:
            return Select(self.cond(scope, depth - 1), self.expr(scope, depth - 1),
                          self.expr(scope, depth - 1))
        return self.leaf(scope)

    def cond(self, scope, depth):
        r = self.rng.random()
        if r < 0.1:
            return Flag()
        if r < 0.2 and depth > 0:
            return Logic(self.rng.choice(["andi", "ori", "xori"]),
                         self.cond(scope, depth - 1), self.cond(scope, depth - 1))
        return Cmp(self.rng.choice(PREDICATES), self.expr(scope, depth),
                   self.expr(scope, depth))

    def access(self, scope, lanes=1, dynamic=False):
        """An access to a captured buffer, to a per-instance one or to a
        memref choice in scope (`dynamic`: only buffers of memref<?xf32>)."""
        extra = [(name, FIXED_TYPE) for name in self.fixed] + self.mems
        if dynamic:
            extra = [(n, t) for n, t in extra if t != FIXED_TYPE]
        if not extra:
            return Access(self.rng.choice(BUFFERS), self.expr(scope, 3), lanes)
        # Mostly the new buffers: accesses to the captured ones race often,
        # and a race hides the numbers of the whole kernel.
        buffer, memref_type = self.rng.choice(extra) \
            if self.rng.random() < 0.6 else (self.rng.choice(BUFFERS), "memref<?xf32>")
        return Access(buffer, self.expr(scope, 3), lanes, memref_type)

    def mem_choice(self, scope, inner):
        """A memref chosen among two of one type, then statements using it."""
        self.loops += 1
        name = f"m{self.loops}"
        pools = [[(n, "memref<?xf32>") for n in BUFFERS] +
                 [m for m in self.mems if m[1] != FIXED_TYPE]]
        fixed = [(n, FIXED_TYPE) for n in self.fixed] + \
            [m for m in self.mems if m[1] == FIXED_TYPE]
        if fixed:
            pools.append(fixed)
        pool = self.rng.choice(pools)
        (first, memref_type), (second, _) = self.rng.choice(pool), self.rng.choice(pool)
        r = self.rng.random()
        cond = Flag() if r < 0.3 else True if r < 0.45 else self.cond(scope, 1)
        kind = self.rng.choice(["select", "select", "if", "iter", "iter_body"])
        self.mems.append((name, memref_type))
        body = inner()
        self.mems.pop()
        return MemChoice(name, kind, cond, first, second, memref_type, body)

    def thread_loop(self, depth, scope):
        self.loops += 1
        g = self.grammar
        if "threads" not in g and "affine" not in g:
            name = f"t{self.loops}"
            return ThreadLoop([name], [self.rng.randint(1, 4)],
                              [self.statement(depth + 1, scope + [name], name)
                               for _ in range(self.rng.randint(1, 2))])
        rank = 2 if "threads" in g and self.rng.random() < 0.25 else 1
        names = [f"t{self.loops}" + "xy"[d] for d in range(rank)]
        trips = [self.rng.choice([1, 2, 3, 4, 5, 6, 7, 9, 12])
                 if "threads" in g else self.rng.randint(1, 4)
                 for _ in range(rank)]
        affine = "affine" in g and self.rng.random() < 0.5
        return ThreadLoop(names, trips,
                          [self.statement(depth + 1, scope + names, names[0])
                           for _ in range(self.rng.randint(1, 2))], affine)

    # Statements.
    def statement(self, depth, scope=(), thread=None):
        scope = list(scope)
        r = self.rng.random()
        if depth < 2 and r < 0.35:
            kinds = ["if", "if", "switch", "affine", "for", "for", "while",
                     "thread"]
            if "affine" in self.grammar:
                kinds.append("affine_for")
            if "memroot" in self.grammar:
                kinds += ["choice", "choice", "choice"]
            if self.grammar & {"threads", "alloca", "scratch", "affine"}:
                kinds += ["thread", "thread", "thread"]  # CTA bodies
            kind = self.rng.choice(kinds)
            inner = lambda extra=(): [self.statement(depth + 1, scope + list(extra), thread)
                                      for _ in range(self.rng.randint(1, 2))]
            if kind == "if":
                return If(self.cond(scope, 2), inner(),
                          inner() if self.rng.random() < 0.4 else [])
            if kind == "switch":
                cases = sorted(self.rng.sample(range(-1, 5), self.rng.randint(1, 2)))
                # The selector is sign-extended from 32 bits: upstream's
                # scf-to-cf compares index_cast(selector : index to i32)
                # with the cases, a miscompile outside the checker.
                selector = Cast("index_cast", Cast("extsi", Cast(
                    "trunci", Cast("index_cast", self.expr(scope, 2), 64, "i64"),
                    32), 64, "i64"), INDEX)
                return Switch(selector, cases, [inner() for _ in cases],
                              inner() if self.rng.random() < 0.5 else [])
            if kind == "affine":
                return AffineIf(Grid(self.rng.randrange(self.rank)),
                                self.rng.randint(0, 2), self.rng.random() < 0.5,
                                inner())
            if kind == "thread" and thread is None:
                return self.thread_loop(depth, scope)
            if kind == "choice":
                return self.mem_choice(scope, inner)
            self.loops += 1
            if kind == "affine_for":
                name = f"k{self.loops}"
                grid = self.rng.randrange(self.rank) \
                    if self.rng.random() < 0.4 else None
                return AffineFor(name, self.rng.randint(0, 2),
                                 self.rng.randint(0, 3), grid,
                                 self.rng.randint(1, 2), inner([name]))
            name = f"k{self.loops}"
            if kind == "while":
                return While(name, self.expr(scope, 1), self.expr(scope, 1),
                             self.rng.random() < 0.3, self.rng.randint(1, 2),
                             inner([name]))
            return For(name, self.expr(scope, 1), self.expr(scope, 1),
                       self.rng.randint(1, 3), self.rng.random() < 0.25,
                       inner([name]))
        if r < 0.55:
            store = Store(self.access(scope, self.rng.choice([1, 1, 1, 2, 4])))
            if "tagged" in self.grammar and self.rng.random() < 0.5:
                store.tag = self.expr(scope, 1)
            return store
        if r < 0.8:
            return Copy(self.access(scope, self.rng.choice([1, 1, 2])),
                        self.access(scope))
        if r < 0.9:
            # An atomic's result outside thread loops is refused in a
            # device spawn that has them (one thread of the CTA runs it).
            return Atomic(self.access(scope, dynamic=True),
                          # The kinds the CPU pipeline lowers.
                          self.rng.choice(["addf", "addf", "maximumf",
                                           "assign"]),
                          self.rng.random() < 0.2 and
                          (thread is not None or self.topology == "host"))
        # The offset is masked: a constant offset of -2^63 would fold into
        # the subview as ShapedType::kDynamic.
        return ViewStore(self.access(scope, dynamic=True),
                         Bin("andi", self.expr(scope, 1), Const(63)),
                         self.rng.choice([1, 2, 3]), 0)

    def all_accesses(self):
        return [a for s in self.body for a in s.accesses()]

    def instances(self, sizes):
        points = [[]]
        for size in sizes:
            points = [p + [i] for p in points for i in range(size)]
        return points

    def size_buffers(self):
        """Evaluates every execution and sizes the buffers so that every
        access is in bounds; wraps indices that leave a small range."""
        accesses = self.all_accesses()
        views = [s for s in self.walk() if isinstance(s, ViewStore)]
        for attempt in range(2):
            for access in accesses:
                access.values = []
            self.view_offsets = []
            for grid in self.instances(self.run_sizes):
                env = {"grid": [wrap(g, INDEX) for g in grid],
                       "scalars": [wrap(s, INDEX) for s in self.scalars],
                       "table": [wrap(t, INDEX) for t in self.table],
                       "flag": self.flag, "steps": 0, "mem": {},
                       "view_offsets": self.view_offsets}
                for s in self.body:
                    s.ev(env)
            again = False
            for access in accesses:
                if access.wrapped:
                    continue
                if any(not 0 <= v < 256 for _, v in access.values):
                    access.wrapped = 64
                    again = True
            if not again:
                break
        sizes = {name: 1 for name in BUFFERS}
        for access in accesses:
            for buffer, value in access.values:
                if buffer in sizes:
                    index = value % access.wrapped if access.wrapped else value
                    sizes[buffer] = max(sizes[buffer], index + access.lanes)
        # A view spans offset + stride * (length - 1) of its buffer, with its
        # length the largest index it is accessed at, plus one.
        for view in views:
            lengths = [v % view.access.wrapped if view.access.wrapped else v
                       for _, v in view.access.values] or [0]
            view.length = max(lengths) + 1
        for view, buffer, offset in self.view_offsets:
            if offset < 0 or offset > 1024:
                raise Undefined()
            end = offset + view.stride * (view.length - 1) + 1
            sizes[buffer] = max(sizes[buffer], end)
        self.buffer_sizes = sizes
        if max(sizes.values()) > 4096:
            raise Undefined()

    def walk(self):
        stack = list(self.body)
        while stack:
            s = stack.pop()
            yield s
            for attribute in ("body", "orelse", "default"):
                stack.extend(getattr(s, attribute, []) or [])
            for body in getattr(s, "bodies", []) or []:
                stack.extend(body)

    def uses(self):
        """The new constructs this kernel uses, for the classification of
        its disagreements."""
        found = set()
        kinds = {"memref.alloca()": "alloca", "vx.scratch": "private",
                 "vx.scratch smem": "smem"}
        for name in self.fixed:
            found.add(kinds[FIXED_BUFFERS[name][0]])
        if self.tile:
            found.add(f"transposed {kinds[self.tile]} tile")
        for s in self.walk():
            if isinstance(s, MemChoice):
                found.add(f"memref {s.kind}")
            elif isinstance(s, AffineFor):
                found.add("affine.for")
            elif isinstance(s, ThreadLoop) and s.affine:
                found.add("affine.parallel")
            elif isinstance(s, TransferWrite):
                found.add("write into a transfer source" +
                          (" through a select" if s.through else ""))
            elif isinstance(s, ThreadTransfer):
                found.add("transfer in a thread loop")
        if self.threads:
            found.add(f"threads {self.threads}")
        if self.stages:
            found.add(f"stages {self.stages}")
        return ", ".join(sorted(found))

    def has_twin(self):
        return any(isinstance(s, MemChoice) or getattr(s, "affine", False)
                   for s in self.walk())

    def ir(self, run_sizes, twin=False):
        self.run_sizes = run_sizes
        b = Builder(twin)
        n = self.number
        grid = ", ".join("%n" if self.dynamic and d == 0 else str(s)
                         for d, s in enumerate(self.sizes))
        lines = [f"func.func @k{n}(%a: memref<?xf32>, %b: memref<?xf32>, "
                 f"%out: memref<?xf32>, %input: memref<64xf32>, "
                 f"%table: memref<8xindex>, %s0: index, %s1: index, %flag: i1, "
                 f"%n: index, %value: f32, %res: memref<?xf32>, "
                 f"%rows: memref<?xf32>) {{",
                 f"  %c0 = arith.constant 0 : index",
                 f"  %c1 = arith.constant 1 : index",
                 f"  vx.spawn on {self.topology} grid [{grid}] semantics "
                 f"[{', '.join(self.semantics)}]"
                 + (f" threads {self.threads}" if self.threads else "")
                 + (f" stages {self.stages}" if self.stages else "") + " {"]
        b.indent = 4
        for d in range(self.rank):
            b.line(f"%g{d} = vx.grid_index {d}")
        # The row-major instance number, for outputs of atomics and tokens.
        linear = b.constant(0)
        for d in range(self.rank):
            dim = b.emit(f"vx.grid_dim {d}")
            linear = b.emit(f"arith.addi {b.emit(f'arith.muli {linear}, {dim} : index')}, %g{d} : index")
        b.line(f"%linear = arith.addi {linear}, %c0 : index")
        if self.grammar:
            # Values that name the instance, and its part of %res.
            b.line(f"%tag = arith.muli %linear, {b.constant(64)} : index")
            b.line(f"%res_base = arith.muli %linear, {b.constant(RES)} : index")
        for name in self.fixed:
            b.line(f"%{name} = {FIXED_BUFFERS[name][0]} : {FIXED_TYPE}")
        if self.tile:
            b.line(f"%w = {self.tile} : memref<4x4xf32>")
        if self.transfer:
            b.line(f"%xt = vx.scratch smem : {FIXED_TYPE}")
        if self.thread_transfer:
            b.line(f"%yt = vx.scratch : {FIXED_TYPE}")
        if any(isinstance(s, Transfer) for s in self.body):
            b.line("%stage = vx.scratch : memref<8xf32>")
        for s in self.body:
            s.ir(b)
        lines += b.lines
        lines += ["  }", "  return", "}"]
        return lines


# -- running ----------------------------------------------------------------------

RACE = re.compile(r"write the same element|writes the same address|write the "
                  r"same address|read of memory that the spawn|returns the old "
                  r"value|update the same element|of a thread loop|cannot prove")
TOKEN = re.compile(r"token|vx.transfer_async|before its 'vx.await'")


def build_batch(rng, count, first, grammar):
    kernels, texts = [], []
    while len(kernels) < count:
        kernel = Kernel(rng, first + len(kernels), grammar)
        run_sizes = list(kernel.sizes)
        if kernel.dynamic:
            run_sizes[0] = rng.randint(0, 5)
        kernel.n_value = run_sizes[0] if kernel.dynamic else 0
        try:
            kernel.run_sizes = run_sizes
            kernel.size_buffers()
            text = kernel.ir(run_sizes)
        except Undefined:
            continue
        kernels.append(kernel)
        texts.append(text)
    return kernels, texts


def module_text(kernels, texts):
    lines, spans = [], []
    for kernel, text in zip(kernels, texts):
        start = len(lines) + 1
        lines += text
        spans.append((start, len(lines)))
    lines.append("func.func @main() {")
    for position, base in enumerate([0, 1000, 2000, -1000, 5000, 3000]):
        lines.append(f"  %fill{position} = arith.constant {base} : index")
    for kernel in kernels:
        n = kernel.number
        size_a = kernel.buffer_sizes["a"] + (0 if not kernel.alias else 0)
        size_b = kernel.buffer_sizes["b"]
        if kernel.alias:
            size_a = size_b = max(size_a, size_b)
        lines.append(f"  %sa{n} = arith.constant {size_a} : index")
        lines.append(f"  %sb{n} = arith.constant {size_b} : index")
        lines.append(f"  %so{n} = arith.constant {max(1, kernel.total_instances())} : index")
        lines.append(f"  %a{n} = memref.alloc(%sa{n}) : memref<?xf32>")
        lines.append(f"  %b{n} = " + (f"memref.cast %a{n} : memref<?xf32> to memref<?xf32>"
                                       if kernel.alias else
                                       f"memref.alloc(%sb{n}) : memref<?xf32>"))
        lines.append(f"  %o{n} = memref.alloc(%so{n}) : memref<?xf32>")
        lines.append(f"  %i{n} = memref.alloc() : memref<64xf32>")
        lines.append(f"  %t{n} = memref.alloc() : memref<8xindex>")
        for slot, value in enumerate(kernel.table):
            lines.append(f"  %tv{n}_{slot} = arith.constant {value} : index")
            lines.append(f"  %ts{n}_{slot} = arith.constant {slot} : index")
            lines.append(f"  memref.store %tv{n}_{slot}, %t{n}[%ts{n}_{slot}] : memref<8xindex>")
        for position, value in enumerate(kernel.scalars):
            lines.append(f"  %s{n}_{position} = arith.constant {value} : index")
        lines.append(f"  %f{n} = arith.constant {1 if kernel.flag else 0} : i1")
        lines.append(f"  %n{n} = arith.constant {kernel.n_value} : index")
        lines.append(f"  %v{n} = arith.constant 1.5 : f32")
        total = kernel.total_instances()
        lines.append(f"  %sr{n} = arith.constant {max(1, total * RES)} : index")
        lines.append(f"  %sw{n} = arith.constant {(total + 3) * FIXED} : index")
        lines.append(f"  %r{n} = memref.alloc(%sr{n}) : memref<?xf32>")
        lines.append(f"  %w{n} = memref.alloc(%sw{n}) : memref<?xf32>")
        # Every buffer starts with values that name its elements; the
        # results are printed (in this order) for the comparison of routes.
        lines.append(f"  %ic{n} = memref.cast %i{n} : memref<64xf32> to memref<?xf32>")
        observed = [f"%a{n}", f"%b{n}", f"%o{n}", f"%r{n}", f"%w{n}"]
        for position, name in enumerate(observed + [f"%ic{n}"]):
            if name == f"%b{n}" and kernel.alias:
                continue
            lines.append(f"  func.call @fill({name}, %fill{position}) : "
                         f"(memref<?xf32>, index) -> ()")
        lines.append(f"  func.call @k{n}(%a{n}, %b{n}, %o{n}, %i{n}, %t{n}, "
                     f"%s{n}_0, %s{n}_1, %f{n}, %n{n}, %v{n}, %r{n}, %w{n}) : "
                     f"(memref<?xf32>, memref<?xf32>, memref<?xf32>, "
                     f"memref<64xf32>, memref<8xindex>, index, index, i1, "
                     f"index, f32, memref<?xf32>, memref<?xf32>) -> ()")
        for name in observed:
            lines.append(f"  %u{name[1:]} = memref.cast {name} : memref<?xf32> "
                         f"to memref<*xf32>")
            lines.append(f"  func.call @printMemrefF32(%u{name[1:]}) : "
                         f"(memref<*xf32>) -> ()")
    lines.append("  return")
    lines.append("}")
    return "\n".join(lines + FILL) + "\n", spans


OBSERVED = 5  # printed buffers per kernel: a, b, out, res, rows
# buffer[i] = i + base, with bases 1000 apart (then -1000 for %res) for
# the six buffers of a call.
FILL = """func.func private @printMemrefF32(memref<*xf32>)
func.func @fill(%m: memref<?xf32>, %base: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %size = memref.dim %m, %c0 : memref<?xf32>
  scf.for %i = %c0 to %size step %c1 {
    %k = arith.addi %i, %base : index
    %w = arith.index_cast %k : index to i64
    %x = arith.sitofp %w : i64 to f32
    memref.store %x, %m[%i] : memref<?xf32>
  }
  return
}""".split("\n")


def kernel_total(self):
    total = 1
    for size in self.run_sizes:
        total *= size
    return total


Kernel.total_instances = kernel_total


def kernel_of(line, spans):
    for position, (start, end) in enumerate(spans):
        if start <= line <= end:
            return position
    return None


OPTIONS = ["", "via-gpu=true", "openmp=true", "reverse-parallel=true",
           "via-gpu=true threads-per-block=3",
           "via-gpu=true reverse-parallel=true"]


def batch_options(first, batch):
    return OPTIONS[first // batch % len(OPTIONS)]


def located(stderr, path, spans):
    """The (kernel position or None, severity, message, line) of every
    diagnostic located in the module at `path`."""
    for line in stderr.splitlines():
        m = re.match(rf"{re.escape(path)}:(\d+):\d+: (error|warning): (.*)", line)
        if m:
            yield kernel_of(int(m.group(1)), spans), m.group(2), m.group(3), line


def static_verdicts(static, path, spans, count, problems):
    """Each kernel's verdict from the static check: "error" (a proven
    race), "warning", "silent" or "refused" (any other error: ownership,
    an unsupported form); and the severity of its ownership diagnostic
    (False where none)."""
    verdicts, ownership = ["silent"] * count, [False] * count
    for position, severity, message, line in located(static.stderr, path, spans):
        if position is None:
            if "passes one buffer" in message or "passes views" in message:
                continue
            problems.append(("unexpected diagnostic", None, line))
            continue
        if "private scratch" in message:
            if severity == "error":
                verdicts[position] = "refused"
            ownership[position] = severity
            continue
        if TOKEN.search(message) and not RACE.search(message):
            problems.append(("token false positive", position, line))
            continue
        if not RACE.search(message):
            if severity == "error":
                verdicts[position] = "refused"
            continue
        if verdicts[position] == "refused":
            continue
        if severity == "error":
            verdicts[position] = "error"
        elif verdicts[position] != "error":
            verdicts[position] = "warning"
    return verdicts, ownership


def lower_and_run(tools, pipeline, path, environment):
    """Lowers the module at `path` and runs it: (lowering, run or None)."""
    lowered = subprocess.run(
        [tools["vx-opt"], path, "--pass-pipeline=" + pipeline, "-o",
         path + ".ll.mlir"], capture_output=True, text=True, timeout=600)
    if lowered.returncode != 0:
        return lowered, None
    run = subprocess.run(
        [tools["mlir-runner"], "-O0", path + ".ll.mlir", "-e", "main",
         "-entry-point-result=void", f"-shared-libs={tools['libs']}"],
        capture_output=True, text=True, timeout=600, env=environment)
    return lowered, run


def printed_results(stdout, count):
    """The printed buffers of each kernel (OBSERVED per kernel, in order),
    without their addresses."""
    blocks = [block.split("data =", 1)[-1].strip()
              for block in stdout.split("Unranked Memref")[1:]]
    if len(blocks) != count * OBSERVED:
        return None
    return [blocks[k * OBSERVED:(k + 1) * OBSERVED] for k in range(count)]


def checker_environment():
    """The environment of the static check: tcmalloc (else jemalloc)
    preloaded where it is installed. The check spends about 40% of its time
    in malloc and free (the Presburger library's big integers); another
    allocator changes no diagnostic and saves about a third of its CPU
    time. Without either, the system's allocator."""
    for name in ("tcmalloc_minimal", "jemalloc"):
        library = ctypes.util.find_library(name)
        if library:
            return dict(os.environ, LD_PRELOAD=library)
    return None


CHECKER_ENVIRONMENT = checker_environment()


def static_check(vx_opt, path):
    """vx-opt --vx-verify-semantics on `path`: (the completed process or
    None, the problem of a check that timed out or crashed or None)."""
    try:
        check = subprocess.run(
            [vx_opt, path, "--vx-verify-semantics", "-o", "/dev/null"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            timeout=600, env=CHECKER_ENVIRONMENT)
    except subprocess.TimeoutExpired:
        return None, ("static check over 600 s", None, "")
    if check.returncode not in (0, 1) or "PLEASE submit a bug report" in check.stderr:
        return check, ("crash", None, check.stderr[-2000:])
    return check, None


def run_batch(tools, kernels, texts, first, options, workdir):
    """Checks and runs one batch; returns (problems, path, verdicts and
    dynamic results or None)."""
    text, spans = module_text(kernels, texts)
    path = os.path.join(workdir, f"batch{first}.mlir")
    with open(path, "w") as f:
        f.write(text)
    static, problem = static_check(tools["vx-opt"], path)
    if problem:
        return [problem], path, None
    problems = []
    verdicts, ownership = static_verdicts(static, path, spans, len(kernels),
                                          problems)
    for position, kernel in enumerate(kernels):
        # With one thread every element is owned.
        if ownership[position] == "error" and kernel.threads == 1:
            problems.append(("ownership error with threads 1", position, ""))
    # The twins (Builder) of the silent kernels, where they differ: only
    # their silence can disagree with a twin's proven race.
    twins = [k for k, kernel in enumerate(kernels)
             if verdicts[k] == "silent" and kernel.has_twin()]
    if twins:
        twin_path = os.path.join(workdir, f"twin{first}.mlir")
        twin_text, twin_spans = module_text(
            [kernels[k] for k in twins],
            [kernels[k].ir(kernels[k].run_sizes, twin=True) for k in twins])
        with open(twin_path, "w") as f:
            f.write(twin_text)
        twin_static, problem = static_check(tools["vx-opt"], twin_path)
        if problem:
            return [problem], path, None
        twin_verdicts, _ = static_verdicts(twin_static, twin_path, twin_spans,
                                           len(twins), [])
        for position, k in enumerate(twins):
            if twin_verdicts[position] == "error":
                problems.append(("silent, but its twin (scf.parallel, scf.if) "
                                 "has a proven race", k, ""))
    # The kernels the check refuses are left out of the runs; a kernel the
    # lowering refuses although the check accepted it is a disagreement,
    # and is left out too. The instrumented route and the reference (the
    # sequential CPU path without the detector) run side by side.
    kept = [k for k in range(len(kernels)) if verdicts[k] != "refused"]
    run_path = os.path.join(workdir, f"run{first}.mlir")
    reference_path = os.path.join(workdir, f"reference{first}.mlir")
    for attempt in range(4):
        run_text, run_spans = module_text([kernels[k] for k in kept],
                                          [texts[k] for k in kept])
        for name in (run_path, reference_path):
            with open(name, "w") as f:
                f.write(run_text)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            race_job = pool.submit(
                lower_and_run, tools, tools["pipelines"][options], run_path,
                dict(os.environ, VX_RACE_CONTINUE="1"))
            reference_job = pool.submit(
                lower_and_run, tools, tools["reference"], reference_path,
                dict(os.environ))
            (lowered, run), (_, reference) = race_job.result(), reference_job.result()
        if lowered.returncode == 0:
            break
        refused = {kept[p] for p, severity, _, _ in
                   located(lowered.stderr, run_path, run_spans)
                   if p is not None and severity == "error"}
        if not refused or "PLEASE submit" in lowered.stderr:
            problems.append(("pipeline failure", None, lowered.stderr[-3000:]))
            return problems, path, None
        for k in sorted(refused):
            problems.append(("accepted by the check, refused by the lowering",
                             k, next(line for p, severity, _, line in
                                     located(lowered.stderr, run_path, run_spans)
                                     if p is not None and kept[p] == k and
                                     severity == "error")))
        kept = [k for k in kept if k not in refused]
    else:
        problems.append(("pipeline failure", None, lowered.stderr[-3000:]))
        return problems, path, None
    dynamic = ["refused"] * len(kernels)
    for k in kept:
        dynamic[k] = "clean"
    for line in run.stderr.splitlines():
        m = re.match(r"vx: (data race|out-of-bounds access) in the spawn at "
                     rf"{re.escape(run_path)}:(\d+):\d+", line)
        if not m:
            continue
        position = kernel_of(int(m.group(2)), run_spans)
        position = kept[position] if position is not None else None
        if m.group(1) == "out-of-bounds access":
            problems.append(("out of bounds (generator)", position, line))
        elif position is not None:
            dynamic[position] = "race"
    for name, process in (("run", run), ("reference run", reference)):
        if process is None or process.returncode not in (0, 1) or \
                "PLEASE submit" in process.stderr or \
                "could not parse" in process.stderr:
            detail = process.stderr[-2000:] if process else "lowering failed"
            problems.append((f"{name} failure", None, detail))
            return problems, path, None
    results = printed_results(run.stdout, len(kept))
    expected = printed_results(reference.stdout, len(kept))
    if results is None or expected is None:
        problems.append(("results not printed", None, ""))
        return problems, path, None
    for position, kernel in enumerate(kernels):
        if kernel.alias or dynamic[position] == "refused":
            continue  # The call site breaks the aliasing contract.
        if verdicts[position] == "silent" and dynamic[position] == "race":
            problems.append(("silent but racy", position, ""))
        if verdicts[position] == "error" and dynamic[position] == "clean" and \
                not kernel.dynamic:
            problems.append(("proven race that does not happen", position, ""))
        # A kernel without a race (proved or run) gives the reference's
        # numbers on every route.
        if verdicts[position] in ("silent", "warning") and \
                dynamic[position] == "clean":
            got, want = results[kept.index(position)], expected[kept.index(position)]
            if got != want:
                which = ["a", "b", "out", "res", "rows"]
                differ = [which[i] for i in range(OBSERVED) if got[i] != want[i]]
                kind = verdicts[position] + \
                    (" (ownership warning)" if ownership[position] == "warning" else "")
                problems.append((f"results differ from the reference ({kind})",
                                 position, f"buffers {', '.join(differ)}"))
    return problems, path, (verdicts, dynamic)


def timed_check(vx_opt, path):
    """The exit status and diagnostics of vx-opt's check of `path` (or its
    problem), and its CPU seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    check, problem = static_check(vx_opt, path)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if problem:
        return str(problem), seconds
    return f"exit {check.returncode}\n{check.stderr}", seconds


def compare_batch(tools, kernels, texts, first, workdir):
    """Checks one batch (and its twins) with both checkers: (the modules
    whose diagnostics differ, CPU seconds of the new checker, of the old)."""
    modules = [module_text(kernels, texts)[0]]
    twins = [k for k, kernel in enumerate(kernels) if kernel.has_twin()]
    if twins:
        modules.append(module_text(
            [kernels[k] for k in twins],
            [kernels[k].ir(kernels[k].run_sizes, twin=True) for k in twins])[0])
    differ, seconds = [], {"new": 0.0, "old": 0.0}
    for index, text in enumerate(modules):
        path = os.path.join(workdir, f"{'twin' if index else 'batch'}{first}.mlir")
        with open(path, "w") as f:
            f.write(text)
        outputs = {}
        order = ["new", "old"] if (first + index) % 2 == 0 else ["old", "new"]
        for which in order:
            outputs[which], spent = timed_check(tools[which], path)
            seconds[which] += spent
        if outputs["new"] != outputs["old"]:
            differ.append(path)
    return differ, seconds["new"], seconds["old"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("vx_opt")
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--kernels", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=40)
    parser.add_argument("--out", default="fuzz-soundness")
    parser.add_argument("--skip", type=int, default=0,
                        help="generate the first N kernels without running them "
                             "(to reproduce a later batch)")
    parser.add_argument("--progress", type=int, default=0,
                        help="print a progress line every N batches")
    parser.add_argument("--jobs", type=int, default=1,
                        help="batches checked at once")
    parser.add_argument("--llvm", default="/usr/lib/llvm-22")
    parser.add_argument("--grammar", default="all",
                        help="comma-separated constructs beyond the base "
                             f"grammar ({', '.join(CONSTRUCTS)}), 'all' or "
                             "'base' (none)")
    parser.add_argument("--compare", metavar="OLD_VX_OPT",
                        help="compare the diagnostics of VX_OPT's check with "
                             "those of OLD_VX_OPT instead of running")
    args = parser.parse_args()
    grammar = CONSTRUCTS if args.grammar == "all" else [] \
        if args.grammar == "base" else args.grammar.split(",")
    unknown = set(grammar) - set(CONSTRUCTS)
    if unknown:
        parser.error(f"unknown constructs: {', '.join(sorted(unknown))}")
    if args.seconds is None and args.kernels is None:
        args.seconds = 60
    build = os.path.dirname(os.path.dirname(os.path.abspath(args.vx_opt)))
    lib = os.path.join(args.llvm, "lib")
    tools = {
        "vx-opt": args.vx_opt,
        "mlir-runner": os.path.join(args.llvm, "bin", "mlir-runner"),
        "libs": ",".join([os.path.join(lib, "libmlir_runner_utils.so"),
                          os.path.join(lib, "libmlir_c_runner_utils.so"),
                          os.path.join(lib, "libomp.so"),
                          os.path.join(build, "lib", "libvx_race_runtime.so")]),
    }
    sys.path.insert(0, os.path.join(build, "python_packages"))
    import vx
    tools["pipelines"] = {}
    for options in OPTIONS:
        keywords = {key.replace("-", "_"): True if value == "true" else int(value)
                    for key, value in (o.split("=") for o in options.split())}
        text = vx.pipeline("llvm", allow_races=True, detect_races=True, **keywords)
        # The verdict comes from the static run; the lowering skips it.
        tools["pipelines"][options] = re.sub(r"vx-verify-semantics(\{[^}]*\})?,",
                                             "", text)
    # The numbers every route must give: the sequential CPU path.
    tools["reference"] = re.sub(r"vx-verify-semantics(\{[^}]*\})?,", "",
                                vx.pipeline("llvm", allow_races=True))
    rng = random.Random(args.seed)
    start = time.time()
    if args.compare:
        return compare(args, grammar, rng, start)
    done, disagreements = 0, 0
    counts = {}

    def report(kernels, options, result):
        nonlocal disagreements
        problems, path, outcome = result
        if outcome:
            for verdict, dynamic in zip(*outcome):
                counts[(verdict, dynamic)] = counts.get((verdict, dynamic), 0) + 1
        for kind, position, detail in problems:
            disagreements += 1
            os.makedirs(args.out, exist_ok=True)
            target = os.path.join(args.out, f"seed{args.seed}-{os.path.basename(path)}")
            with open(path) as source, open(target, "w") as copy:
                copy.write(source.read())
            name = "-"
            if position is not None:
                kernel = kernels[position]
                name = f"@k{kernel.number} [{kernel.topology}; {kernel.uses()}]"
            print(f"DISAGREEMENT {kind}: {name} in {target} (route: "
                  f"'{options}')\n{detail}", flush=True)

    # Batches are generated in order (the seed fixes every kernel) and
    # checked by `--jobs` workers; results are reported in order.
    with tempfile.TemporaryDirectory() as workdir, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        pending = collections.deque()
        generated = 0
        while True:
            more = (args.kernels is None or generated < args.kernels) and \
                (args.seconds is None or time.time() - start <= args.seconds)
            if more and len(pending) < args.jobs:
                count = args.batch if args.kernels is None else \
                    min(args.batch, args.kernels - generated)
                options = batch_options(generated, args.batch)
                kernels, texts = build_batch(rng, count, generated, grammar)
                if generated >= args.skip:
                    pending.append((kernels, options, pool.submit(
                        run_batch, tools, kernels, texts, generated, options, workdir)))
                generated += len(kernels)
                continue
            if not pending:
                break
            kernels, options, future = pending.popleft()
            report(kernels, options, future.result())
            done += len(kernels)
            if args.progress and done // args.batch % args.progress == 0:
                print(f"soundness: {done} kernels, {disagreements} "
                      f"disagreements, {time.time() - start:.0f} s", flush=True)
    summary = ", ".join(f"{v}/{d}: {n}" for (v, d), n in sorted(counts.items()))
    print(f"soundness: {done} kernels, seed {args.seed}, {disagreements} "
          f"disagreements ({summary}) in {time.time() - start:.0f} s")
    return 1 if disagreements else 0


def compare(args, grammar, rng, start):
    """The --compare mode: every batch's diagnostics, old against new."""
    tools = {"new": args.vx_opt, "old": args.compare}
    done, differences, new_seconds, old_seconds = 0, 0, 0.0, 0.0
    with tempfile.TemporaryDirectory() as workdir:
        while (args.kernels is None or done < args.kernels) and \
                (args.seconds is None or time.time() - start <= args.seconds):
            count = args.batch if args.kernels is None else \
                min(args.batch, args.kernels - done)
            kernels, texts = build_batch(rng, count, done, grammar)
            if done >= args.skip:
                differ, new, old = compare_batch(tools, kernels, texts, done,
                                                 workdir)
                new_seconds += new
                old_seconds += old
                for path in differ:
                    differences += 1
                    os.makedirs(args.out, exist_ok=True)
                    target = os.path.join(
                        args.out, f"seed{args.seed}-{os.path.basename(path)}")
                    with open(path) as source, open(target, "w") as copy:
                        copy.write(source.read())
                    print(f"DIFFERENT DIAGNOSTICS: {target}", flush=True)
                if args.progress:
                    print(f"compare: {done + len(kernels)} kernels, "
                          f"{differences} differences, check CPU s: new "
                          f"{new_seconds:.1f}, old {old_seconds:.1f}", flush=True)
            done += len(kernels)
    print(f"compare: {done - args.skip} kernels, seed {args.seed}, "
          f"{differences} modules with different diagnostics; check CPU "
          f"time: new {new_seconds:.1f} s, old {old_seconds:.1f} s (load "
          f"average {os.getloadavg()[0]:.1f})")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
