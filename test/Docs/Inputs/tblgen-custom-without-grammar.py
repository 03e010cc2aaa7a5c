#!/usr/bin/env python3
"""Stands in for mlir-tblgen: the doc of an op whose assembly format has a
custom directive and whose description has no grammar."""

print("""### `vx.fake` (vx::FakeOp)

_An op without a grammar_

Syntax:

```
operation ::= `vx.fake` custom<Fake>($value) attr-dict
```

Prose only.
""")
