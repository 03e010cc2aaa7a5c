// bench/kernels/vector_add.mlir: c = a + b, one instance per element.
#include "common.h"

namespace reference::vector_add {

constexpr int kN = 1 << 22;

inline void element(int i, const float *__restrict__ a,
                    const float *__restrict__ b, float *__restrict__ c) {
  c[i] = a[i] + b[i];
}

} // namespace reference::vector_add
