//===- Runtime.cpp - The mgpu* ABI over the PTX simulator -----------------===//
//
// The functions of lib/Runtime/CudaRuntime.cpp, with the same names and
// semantics, so that host code lowered by gpu-to-llvm and vx.runtime run
// unchanged: modules are PTX text (gpu.binary format=isa, or the PTX of a
// fatbin), "device" memory is host memory recorded as global memory,
// streams are synchronous, and every launch executes on the simulator.
// Errors print and exit(1), or,
// after vxCudaReportErrors, are kept for vxCudaTakeError while the
// thread's later calls do nothing.
//
//===----------------------------------------------------------------------===//

#include "Executor.h"
#include "Vx/PTXSim/PTXSim.h"
#include "Vx/Runtime/CudaRuntime.h"
#include "Vx/Runtime/ErrorChannel.h"
#include "Vx/Runtime/MemRefSpan.h"
#include "Vx/Runtime/PTXSimRuntime.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>

using namespace vx::ptxsim;

namespace {

thread_local void *borrowedStream = nullptr;
thread_local bool borrowing = false;
/// The device the host code asked for; all its memory is the host's.
int32_t defaultDevice = 0;

/// The handles mgpu* functions pass around.
struct SimModule {
  std::shared_ptr<Module> module;
};
struct SimFunction {
  std::shared_ptr<Module> module;
  std::string name;
};

/// Streams are synchronous: a handle is only a distinct non-null token.
char streamToken;

/// Prints `message` (the full report) and exits, or keeps it.
void reportError(std::string message) {
  reportOrKeepError(std::move(message), "");
}

void reportError(const char *function, const std::string &what) {
  reportError(std::string("vx_ptx_sim: error: ") + function + ": " + what);
}

std::mutex orderMutex;
bool orderSet = false;
LaunchOptions launchOptions;

/// Parses an order; false for an unknown one.
bool parseOrder(const std::string &text, LaunchOptions &options) {
  if (text == "forward") {
    options = {Order::Forward, 0};
  } else if (text == "reverse") {
    options = {Order::Reverse, 0};
  } else if (text == "shuffle") {
    options = {Order::Shuffle, 0};
  } else if (text.rfind("shuffle:", 0) == 0 && text.size() > 8 &&
             text.find_first_not_of("0123456789", 8) == std::string::npos) {
    options = {Order::Shuffle, std::strtoull(text.c_str() + 8, nullptr, 10)};
  } else {
    return false;
  }
  return true;
}

const char *const orderHelp = " (forward, reverse, shuffle or shuffle:SEED)";

LaunchOptions getLaunchOptions() {
  std::lock_guard<std::mutex> lock(orderMutex);
  if (!orderSet) {
    orderSet = true;
    const char *env = std::getenv("VX_SIM_ORDER");
    if (env && *env && !parseOrder(env, launchOptions)) {
      reportError("VX_SIM_ORDER",
                  "unknown order '" + std::string(env) + "'" + orderHelp);
    }
  }
  return launchOptions;
}

/// The element sizes of the CUtensorMapDataType values (UINT8 to
/// TFLOAT32_FTZ), 0 for others.
int64_t getTensorMapElementBytes(int64_t dataType) {
  static const int64_t bytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (dataType < 0 || dataType >= static_cast<int64_t>(std::size(bytes)))
    return 0;
  return bytes[dataType];
}

void *allocateGlobal(uint64_t bytes, uint64_t align) {
  uint64_t rounded = (bytes + align - 1) / align * align;
  void *pointer = std::aligned_alloc(align, rounded);
  if (!pointer)
    return nullptr;
  // Fresh device memory is garbage: poison it like shared memory.
  std::memset(pointer, 0xff, rounded);
  addGlobalRange(pointer, bytes);
  return pointer;
}

/// Device memory copied or set must lie in its allocation (host memory,
/// which starts in none, is the caller's business).
bool fitsItsRange(const char *function, const void *pointer, size_t bytes) {
  uint64_t address = reinterpret_cast<uint64_t>(pointer);
  if (!bytes || !isGlobalRange(address, 1) || isGlobalRange(address, bytes))
    return true;
  char where[32];
  std::snprintf(where, sizeof(where), "%#llx",
                static_cast<unsigned long long>(address));
  reportError(function, std::to_string(bytes) + " bytes at " + where +
                            " run past the end of their allocation");
  return false;
}

/// The first bytes of a fatbin (its magic 0xba55ed50, little endian).
const unsigned char fatbinMagic[4] = {0x50, 0xed, 0x55, 0xba};

/// Decompresses a zstd frame with the system's libzstd, loaded when first
/// needed (fatbinary compresses PTX with zstd by default); false with
/// `error` set where it is missing or the frame is bad.
bool decompressZstd(const unsigned char *frame, size_t bytes, std::string &text,
                    std::string &error) {
  using ContentSize = unsigned long long (*)(const void *, size_t);
  using FrameSize = size_t (*)(const void *, size_t);
  using Decompress = size_t (*)(void *, size_t, const void *, size_t);
  using IsError = unsigned (*)(size_t);
  static void *library = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    error = "the fatbin's PTX is zstd-compressed and libzstd.so.1 is missing";
    return false;
  }
  auto contentSize =
      reinterpret_cast<ContentSize>(dlsym(library, "ZSTD_getFrameContentSize"));
  auto frameSize = reinterpret_cast<FrameSize>(
      dlsym(library, "ZSTD_findFrameCompressedSize"));
  auto decompress =
      reinterpret_cast<Decompress>(dlsym(library, "ZSTD_decompress"));
  auto isError = reinterpret_cast<IsError>(dlsym(library, "ZSTD_isError"));
  error = "the fatbin's compressed PTX cannot be read";
  if (!contentSize || !frameSize || !decompress || !isError)
    return false;
  // The payload is padded after the frame.
  size_t compressed = frameSize(frame, bytes);
  unsigned long long size = contentSize(frame, bytes);
  if (isError(compressed) || size >= (1ull << 32))
    return false;
  text.resize(size);
  size_t written = decompress(text.data(), size, frame, compressed);
  if (isError(written))
    return false;
  text.resize(strnlen(text.data(), written));
  error.clear();
  return true;
}

/// The PTX of a fatbin: a header {magic, version (2 bytes), header size
/// (2), size of the entries (8)}, then entries {kind (2: 1 PTX, 2 ELF), 2
/// bytes, header size (4), payload size (8), ...} each followed by its
/// payload. False with `error` set where there is no readable PTX.
bool extractFatbinPtx(const unsigned char *data, size_t size, std::string &text,
                      std::string &error) {
  auto read = [&](size_t offset, size_t bytes) {
    uint64_t value = 0;
    if (offset + bytes <= size)
      std::memcpy(&value, data + offset, bytes);
    return value;
  };
  size_t headerSize = read(6, 2);
  size_t end = std::min<uint64_t>(size, headerSize + read(8, 8));
  const unsigned char zstdMagic[4] = {0x28, 0xb5, 0x2f, 0xfd};
  for (size_t entry = headerSize; entry + 16 <= end;) {
    uint64_t kind = read(entry, 2), entryHeader = read(entry + 4, 4),
             payloadSize = read(entry + 8, 8);
    size_t payload = entry + entryHeader;
    if (!entryHeader || payload + payloadSize > end)
      break;
    if (kind == 1) {
      if (payloadSize >= 4 && std::memcmp(data + payload, zstdMagic, 4) == 0)
        return decompressZstd(data + payload, payloadSize, text, error);
      text.assign(
          reinterpret_cast<const char *>(data + payload),
          strnlen(reinterpret_cast<const char *>(data + payload), payloadSize));
      if (text.find(".version") != std::string::npos)
        return true;
      error = "the fatbin's PTX is compressed in a format the simulator "
              "cannot read";
      return false;
    }
    payload += payloadSize;
    entry = payload;
  }
  error = "got a fatbin without PTX; the simulator runs PTX (gpu.binary "
          "format=isa or fatbin: --vx-to-ptx=\"format=isa\")";
  return false;
}

} // namespace

#pragma GCC visibility push(default)
// The library's ABI: the mgpu* functions, the vxCuda* controls and
// vxSimSetOrder; everything else is hidden, see CMakeLists.txt.
extern "C" {

void vxCudaReportErrors() { reportErrors = true; }

const char *vxCudaTakeError() { return takePendingError(); }

void vxCudaSetStream(void *stream, int32_t /*synchronize*/) {
  borrowing = true;
  borrowedStream = stream;
}

void vxCudaResetStream() {
  borrowing = false;
  borrowedStream = nullptr;
}

int32_t vxCudaPointerDevice(void *pointer) {
  if (failed())
    return -1;
  if (!isGlobalRange(reinterpret_cast<uint64_t>(pointer), 1)) {
    reportError("vxCudaPointerDevice",
                "the pointer is not simulated device memory");
    return -1;
  }
  return defaultDevice;
}

int32_t vxCudaDefaultDevice() { return defaultDevice; }

void vxCudaStreamWaitStream(void * /*waiting*/, void * /*producer*/) {}

void vxSimSetOrder(const char *order) {
  LaunchOptions options;
  if (!order || !parseOrder(order, options)) {
    reportError("vxSimSetOrder", "unknown order '" +
                                     std::string(order ? order : "") + "'" +
                                     orderHelp);
    return;
  }
  std::lock_guard<std::mutex> lock(orderMutex);
  orderSet = true;
  launchOptions = options;
}

void mgpuSetDefaultDevice(int32_t device) { defaultDevice = device; }

void *mgpuModuleLoad(void *data, size_t size) {
  if (failed())
    return nullptr;
  const unsigned char *bytes = static_cast<const unsigned char *>(data);
  std::string text;
  if (size >= 4 && std::memcmp(bytes,
                               "\x7f"
                               "ELF",
                               4) == 0) {
    reportError("mgpuModuleLoad",
                "got a cubin; the simulator runs PTX (gpu.binary format=isa "
                "or fatbin: --vx-to-ptx=\"format=isa\")");
    return nullptr;
  }
  if (size >= 4 && std::memcmp(bytes, fatbinMagic, 4) == 0) {
    std::string error;
    if (!extractFatbinPtx(bytes, size, text, error)) {
      reportError("mgpuModuleLoad", error);
      return nullptr;
    }
  } else {
    text.assign(static_cast<const char *>(data),
                strnlen(static_cast<const char *>(data), size));
  }
  try {
    return new SimModule{loadModule(text)};
  } catch (const SimError &e) {
    reportError(e.what());
    return nullptr;
  } catch (const std::exception &e) {
    reportError("mgpuModuleLoad", std::string("internal error: ") + e.what());
    return nullptr;
  }
}

void *mgpuModuleLoadJIT(void *data, int /*optLevel*/, size_t /*size*/) {
  if (failed())
    return nullptr;
  // The PTX text, NUL-terminated.
  return mgpuModuleLoad(data, std::strlen(static_cast<const char *>(data)));
}

void mgpuModuleUnload(void *module) { delete static_cast<SimModule *>(module); }

void *mgpuModuleGetFunction(void *module, const char *name) {
  if (failed() || !module)
    return nullptr;
  SimModule *sim = static_cast<SimModule *>(module);
  if (!hasKernel(*sim->module, name)) {
    reportError("mgpuModuleGetFunction",
                "no kernel named '" + std::string(name) + "'");
    return nullptr;
  }
  // Kept for the life of the process, like a CUfunction of a loaded module.
  return new SimFunction{sim->module, name};
}

void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void * /*stream*/,
                      void **params, void ** /*extra*/,
                      size_t /*paramsCount*/) {
  if (failed() || !function)
    return;
  LaunchOptions options = getLaunchOptions();
  if (failed())
    return;
  SimFunction *sim = static_cast<SimFunction *>(function);
  uint32_t grid[3] = {static_cast<uint32_t>(gridX),
                      static_cast<uint32_t>(gridY),
                      static_cast<uint32_t>(gridZ)};
  uint32_t block[3] = {static_cast<uint32_t>(blockX),
                       static_cast<uint32_t>(blockY),
                       static_cast<uint32_t>(blockZ)};
  try {
    launchKernel(*sim->module, sim->name, grid, block,
                 static_cast<uint32_t>(smem), params, options);
  } catch (const SimError &e) {
    reportError(e.what());
  } catch (const std::exception &e) {
    reportError("mgpuLaunchKernel", std::string("internal error: ") + e.what());
  }
}

void *mgpuStreamCreate() { return borrowing ? borrowedStream : &streamToken; }

void mgpuStreamDestroy(void * /*stream*/) {}

void mgpuStreamSynchronize(void * /*stream*/) {}

void *mgpuMemAlloc(uint64_t sizeBytes, void * /*stream*/,
                   bool /*isHostShared*/) {
  if (sizeBytes == 0 || failed())
    return nullptr;
  void *pointer = allocateGlobal(sizeBytes, 256);
  if (!pointer)
    reportError("mgpuMemAlloc",
                "out of memory for " + std::to_string(sizeBytes) + " bytes");
  return pointer;
}

void mgpuMemFree(void *pointer, void * /*stream*/) {
  if (failed() || !pointer)
    return;
  if (!removeGlobalRange(pointer)) {
    reportError("mgpuMemFree", "the pointer is not from mgpuMemAlloc");
    return;
  }
  std::free(pointer);
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, void * /*stream*/) {
  if (failed() || !fitsItsRange("mgpuMemcpy", dst, sizeBytes) ||
      !fitsItsRange("mgpuMemcpy", src, sizeBytes))
    return;
  std::memmove(dst, src, sizeBytes);
}

void mgpuMemset32(void *dst, unsigned int value, size_t count,
                  void * /*stream*/) {
  if (failed() || !fitsItsRange("mgpuMemset32", dst, count * 4))
    return;
  uint32_t *words = static_cast<uint32_t *>(dst);
  for (size_t i = 0; i < count; ++i)
    words[i] = value;
}

void mgpuMemHostRegister(void *pointer, uint64_t sizeBytes) {
  if (!failed())
    addGlobalRange(pointer, sizeBytes);
}

/// Registers the span from the first to the last element of a ranked
/// memref descriptor, as libvx_cuda_runtime does.
void mgpuMemHostRegisterMemRef(int64_t rank,
                               StridedMemRefType<char, 1> *descriptor,
                               int64_t elementSizeBytes) {
  vx::MemRefSpan span = vx::getMemRefSpan(rank, descriptor, elementSizeBytes);
  if (span.sizeBytes != 0)
    mgpuMemHostRegister(span.first, span.sizeBytes);
}

void mgpuMemHostUnregister(void *pointer) {
  if (!failed())
    removeGlobalRange(pointer);
}

void mgpuMemHostUnregisterMemRef(int64_t /*rank*/,
                                 StridedMemRefType<char, 1> *descriptor,
                                 int64_t elementSizeBytes) {
  mgpuMemHostUnregister(descriptor->data +
                        descriptor->offset * elementSizeBytes);
}

/// The tensor map of a tiled TMA copy (arguments as libvx_cuda_runtime's),
/// in simulated global memory, with cuTensorMapEncodeTiled's checks.
void *mgpuTensorMapEncodeTiledMemref(int64_t rank,
                                     StridedMemRefType<char, 1> *descriptor,
                                     int64_t dataType, int64_t interleave,
                                     int64_t swizzle, int64_t l2Promotion,
                                     int64_t oobFill, int64_t *boxDims) {
  if (failed())
    return nullptr;
  const char *name = "mgpuTensorMapEncodeTiledMemref";
  constexpr int64_t maxRank = 5;
  if (rank < 1 || rank > maxRank) {
    reportError(name,
                "a tensor map has rank 1 to 5, got " + std::to_string(rank));
    return nullptr;
  }
  int64_t elementBytes = getTensorMapElementBytes(dataType);
  if (!elementBytes) {
    reportError(name, "unknown data type " + std::to_string(dataType));
    return nullptr;
  }
  if (interleave != 0 || swizzle < 0 || swizzle > 3) {
    reportError(name, "unsupported interleave " + std::to_string(interleave) +
                          " or swizzle " + std::to_string(swizzle));
    return nullptr;
  }
  int64_t *sizes = descriptor->sizes;
  int64_t *strides = sizes + rank;
  if (strides[rank - 1] != 1) {
    reportError(name, "the innermost stride must be 1, got " +
                          std::to_string(strides[rank - 1]));
    return nullptr;
  }
  TensorMap map;
  std::memset(&map, 0, sizeof(map));
  map.magic = TensorMapMagic;
  map.rank = static_cast<uint8_t>(rank);
  map.dataType = static_cast<uint8_t>(dataType);
  map.swizzle = static_cast<uint8_t>(swizzle);
  map.l2Promotion = static_cast<uint8_t>(l2Promotion);
  map.oobFill = static_cast<uint8_t>(oobFill);
  map.elementBytes = static_cast<uint8_t>(elementBytes);
  map.address = reinterpret_cast<uint64_t>(descriptor->data +
                                           descriptor->offset * elementBytes);
  std::string problem;
  if (map.address % 16)
    problem = "the global address must be 16-byte aligned";
  for (int64_t dim = 0; dim < rank; ++dim) {
    map.dims[dim] = sizes[rank - 1 - dim];
    map.box[dim] = static_cast<uint32_t>(boxDims[rank - 1 - dim]);
    if (map.dims[dim] < 1 || map.dims[dim] > (1ull << 32))
      problem = "global dimension " + std::to_string(dim) + " is " +
                std::to_string(map.dims[dim]) + ", not 1 to 2^32";
    if (boxDims[rank - 1 - dim] < 1 || boxDims[rank - 1 - dim] > 256)
      problem = "box size " + std::to_string(boxDims[rank - 1 - dim]) +
                " is not 1 to 256";
  }
  for (int64_t dim = 0; dim + 1 < rank; ++dim) {
    map.strides[dim] = strides[rank - 2 - dim] * elementBytes;
    if (map.strides[dim] % 16)
      problem = "global stride " + std::to_string(map.strides[dim]) +
                " bytes is not a multiple of 16";
  }
  uint64_t innerBytes = map.box[0] * elementBytes;
  if (innerBytes % 16)
    problem = "the inner box dimension is " + std::to_string(innerBytes) +
              " bytes, not a multiple of 16";
  if (swizzle && innerBytes > (16u << swizzle))
    problem = "the inner box dimension (" + std::to_string(innerBytes) +
              " bytes) exceeds the swizzle span of " +
              std::to_string(16u << swizzle) + " bytes";
  if (!problem.empty()) {
    reportError(name, problem);
    return nullptr;
  }
  // One copy per distinct map, kept for the life of the process.
  static std::mutex mutex;
  static std::map<std::string, void *> copies;
  std::string key(reinterpret_cast<const char *>(&map), sizeof(map));
  std::lock_guard<std::mutex> lock(mutex);
  void *&copy = copies[key];
  if (!copy) {
    copy = allocateGlobal(sizeof(map), 128);
    std::memcpy(copy, &map, sizeof(map));
  }
  return copy;
}

} // extern "C"
#pragma GCC visibility pop
