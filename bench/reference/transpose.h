// bench/kernels/transpose.mlir: out[j, i] = in[i, j], one instance per
// element.
#include "common.h"

namespace reference::transpose {

constexpr int kN = 1024;

inline void element(int i, int j, const float *__restrict__ in,
                    float *__restrict__ out) {
  out[j * kN + i] = in[i * kN + j];
}

} // namespace reference::transpose
