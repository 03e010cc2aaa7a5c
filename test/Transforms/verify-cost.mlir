// The checker's cost stays near linear on stress kernels, and degrades to a
// warning rather than a long run where a budget ends. Verdicts only; the
// times are measured separately (docs/design.md, "Cost").
// RUN: %python %S/Inputs/stress_kernels.py stores 800 | vx-opt --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --check-prefix=SILENT --allow-empty
// RUN: %python %S/Inputs/stress_kernels.py loops 10 | vx-opt --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --check-prefix=SILENT --allow-empty
// RUN: %python %S/Inputs/stress_kernels.py guarded 100 | vx-opt --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --check-prefix=SILENT --allow-empty
// RUN: %python %S/Inputs/stress_kernels.py remark 200 | vx-opt --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: %python %S/Inputs/stress_kernels.py guarded 300 | vx-opt --vx-verify-semantics -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET

// SILENT-NOT: error
// SILENT-NOT: warning

// REMARK-COUNT-6: remark: arbitrary dimension {{[1-6]}} has no order dependence: it could be parallel
// REMARK-NOT: warning

// BUDGET: warning: cannot prove that parallel instances write distinct elements: too many pairs of accesses to decide within the budget
// BUDGET-NOT: error
