//===- ErrorChannel.h - The runtimes' error policy --------------*- C++ -*-===//
//
// libvx_cuda_runtime and libvx_ptx_sim export the same error controls
// (CudaRuntime.h): an error prints and exits the program, or, after
// vxCudaReportErrors, the first one of a thread is kept for vxCudaTakeError
// and that thread's later calls do nothing. Each library includes this in the
// one file that implements its ABI; the anonymous namespace gives each its
// own state, also when a process loads both.
//
//===----------------------------------------------------------------------===//

#ifndef VX_RUNTIME_ERRORCHANNEL_H
#define VX_RUNTIME_ERRORCHANNEL_H

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

std::atomic<bool> reportErrors{false};
/// The first error of this thread since the last vxCudaTakeError.
thread_local std::string pendingError;

bool failed() { return !pendingError.empty(); }

/// Prints `printPrefix` and `message` and exits, or keeps `message`.
void reportOrKeepError(std::string message, const char *printPrefix) {
  if (!reportErrors) {
    std::fprintf(stderr, "%s%s\n", printPrefix, message.c_str());
    std::exit(1);
  }
  if (pendingError.empty())
    pendingError = std::move(message);
}

/// vxCudaTakeError: the pending error, cleared; valid until the thread's next
/// call.
const char *takePendingError() {
  static thread_local std::string taken;
  if (pendingError.empty())
    return nullptr;
  taken = std::move(pendingError);
  pendingError.clear();
  return taken.c_str();
}

} // namespace

#endif // VX_RUNTIME_ERRORCHANNEL_H
