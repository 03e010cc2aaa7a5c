//===- PTXSim.h - A functional PTX simulator --------------------*- C++ -*-===//
//
// The C++ interface of libvx_ptx_sim: parse PTX once, launch its kernels on
// the CPU over host memory registered as simulated global memory. The C
// ABI (mgpu*, vxCuda*, vxSim*) in lib/PTXSim/Runtime.cpp is built on it.
//
//===----------------------------------------------------------------------===//

#ifndef VX_PTXSIM_PTXSIM_H
#define VX_PTXSIM_PTXSIM_H

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace vx::ptxsim {

struct Module;

/// A PTX program that a launch found wrong, or PTX that does not parse. The
/// message is the full report ("vx_ptx_sim: error: kernel K, block ...").
class SimError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The order in which runnable threads run between synchronization points.
enum class Order { Forward, Reverse, Shuffle };

struct LaunchOptions {
  Order order = Order::Forward;
  uint64_t seed = 0; // for Order::Shuffle
};

/// Parses `ptx`; throws SimError on text it cannot run.
std::shared_ptr<Module> loadModule(const std::string &ptx);

/// Whether `module` has an entry named `kernel`.
bool hasKernel(const Module &module, const std::string &kernel);

/// Runs `kernel` over the grid; `params` points to each argument's value
/// (sizes from the kernel's .param declarations). Throws SimError.
void launchKernel(const Module &module, const std::string &kernel,
                  const uint32_t grid[3], const uint32_t block[3],
                  uint32_t dynamicSharedBytes, void **params,
                  const LaunchOptions &options);

/// Records [begin, begin + bytes) as global memory kernels may access.
void addGlobalRange(const void *begin, uint64_t bytes);
/// Forgets the range that starts at `begin`; false if there is none.
bool removeGlobalRange(const void *begin);
/// Whether [address, address + bytes) lies in one recorded range.
bool isGlobalRange(uint64_t address, uint64_t bytes);

} // namespace vx::ptxsim

#endif // VX_PTXSIM_PTXSIM_H
