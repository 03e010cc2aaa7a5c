//===- RaceDetector.cpp - The runtime of detect-races ---------------------===//
//
// The calls that vx-lower-race-checks emits (C ABI, all arguments i64). A
// spawn execution registers its grid, its buffers and its access sites;
// every recorded access then checks one shadow record per element: the last
// writer, and who read it, against the dimension-semantics contract.
// Two accesses conflict when one writes and they come from instances that
// differ in a parallel dimension, or from two iterations of one execution
// of a thread loop; atomic updates of one commutative kind do not conflict
// with each other. Instances of one parallel point (different arbitrary
// coordinates) and successive spawns are ordered.
//
// On the first race the report goes to stderr and the process exits with
// status 1 (mlir-runner). vxRaceSetMode(1) records it instead for the host
// to fetch with vxRaceTakeReport (vx.runtime raises it after the call; the
// kernel runs to completion); VX_RACE_CONTINUE=1 in
// the environment reports the first race of every spawn execution and
// exits with status 1 at the end (the soundness fuzzer).
//
//===----------------------------------------------------------------------===//

#include "Vx/Runtime/RaceDetectorABI.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace mlir::vx::race;

namespace {

/// Who touches an element.
struct Agent {
  int64_t parallelPoint = 0, instance = 0, execution = 0, iteration = 0;
  int64_t site = 0;
};

bool conflict(const Agent &a, const Agent &b) {
  return a.parallelPoint != b.parallelPoint ||
         (a.execution != 0 && a.execution == b.execution &&
          a.iteration != b.iteration);
}

/// The shadow of one element.
struct Shadow {
  bool written = false;
  Agent writer;
  int64_t writeAtomic = 0; // 0: a plain write; else the atomic kind + 1.
  bool writersFromSeveralPoints = false;
  /// The latest write of each kind (`writeAtomic`'s encoding), which a later
  /// write of another kind by the same agent must not hide from other
  /// agents: a plain write then atomic updates, or addf then maximumf (they
  /// do not commute). The plain write, if any, comes first.
  struct KindWriter {
    int64_t atomic;
    Agent writer;
    bool fromSeveralPoints;
  };
  std::vector<KindWriter> writersByKind;
  bool read = false;
  Agent reader;
  bool readersFromSeveralPoints = false;
  /// Reads of `reader`'s parallel point in its latest thread-loop
  /// execution: whether several iterations read.
  int64_t readExecution = 0, readIteration = 0;
  bool readBySeveralIterations = false;
};

struct Buffer {
  std::string name;
  int64_t base = 0, elementBytes = 1;
  bool absolute = false;
  std::vector<int64_t> sizes, strides;
};

struct ThreadLoop {
  int64_t site = 0;
  std::vector<int64_t> lowers, steps, trips;
};

struct Key {
  int64_t root, owner, address;
  bool operator==(const Key &other) const {
    return root == other.root && owner == other.owner &&
           address == other.address;
  }
};
struct KeyHash {
  size_t operator()(const Key &key) const {
    return std::hash<int64_t>()(key.address * 1000003 ^ key.owner * 8191 ^
                                key.root);
  }
};

struct State {
  std::mutex mutex;
  Mode mode = ExitOnRace;
  int64_t epoch = 0;
  std::string location;
  std::vector<int64_t> sizes;
  std::vector<bool> parallel;
  std::unordered_map<int64_t, std::string> sites;
  std::unordered_map<int64_t, Buffer> buffers;
  std::unordered_map<int64_t, ThreadLoop> threadLoops;
  int64_t nextExecution = 1;
  /// Thread loops that the threads of a CTA start together: the executions
  /// each thread has started, by (instance, site, thread), and the id of
  /// the n-th execution, by (instance, site, n).
  std::unordered_map<Key, int64_t, KeyHash> startedByThread;
  std::unordered_map<Key, int64_t, KeyHash> sharedExecutions;
  std::unordered_map<Key, Shadow, KeyHash> shadow;
  bool reportedThisSpawn = false;
  bool anyRace = false;
  std::string firstReport;
};

State &state() {
  static State *instance = [] {
    auto *created = new State();
    if (const char *value = std::getenv("VX_RACE_CONTINUE");
        value && std::string(value) == "1") {
      created->mode = ReportAll;
      std::atexit([] {
        if (state().anyRace) {
          std::fflush(nullptr);
          std::_Exit(1);
        }
      });
    }
    return created;
  }();
  return *instance;
}

std::string readString(int64_t address) {
  return address ? std::string(reinterpret_cast<const char *>(address)) : "";
}

/// "(1, 0)": the grid coordinates of a linear instance id.
std::string coordinates(const State &s, int64_t instance) {
  std::vector<int64_t> coords(s.sizes.size());
  for (size_t dim = s.sizes.size(); dim-- > 0;) {
    int64_t size = s.sizes[dim] > 0 ? s.sizes[dim] : 1;
    coords[dim] = instance % size;
    instance /= size;
  }
  std::ostringstream os;
  os << "(";
  for (size_t dim = 0; dim < coords.size(); ++dim)
    os << (dim ? ", " : "") << coords[dim];
  os << ")";
  return os.str();
}

std::string describeAgent(const State &s, const Agent &agent) {
  std::ostringstream os;
  os << "instance " << coordinates(s, agent.instance);
  if (agent.execution != 0) {
    auto loop = s.threadLoops.find(agent.execution);
    if (loop != s.threadLoops.end()) {
      const ThreadLoop &info = loop->second;
      std::vector<int64_t> ivs(info.trips.size());
      int64_t rest = agent.iteration;
      for (size_t dim = info.trips.size(); dim-- > 0;) {
        int64_t trips = info.trips[dim] > 0 ? info.trips[dim] : 1;
        ivs[dim] = info.lowers[dim] + info.steps[dim] * (rest % trips);
        rest /= trips;
      }
      os << ", iteration (";
      for (size_t dim = 0; dim < ivs.size(); ++dim)
        os << (dim ? ", " : "") << ivs[dim];
      auto site = s.sites.find(info.site);
      os << ") of the thread loop"
         << (site != s.sites.end() ? " at " + site->second : "");
    }
  }
  return os.str();
}

std::string siteName(const State &s, int64_t site) {
  auto found = s.sites.find(site);
  return found == s.sites.end() ? "an access" : found->second;
}

/// "element [2, 3] of argument 0 of @f".
std::string describeElement(const State &s, const Key &key) {
  const Buffer *buffer = nullptr;
  int64_t offset = 0;
  if (key.root >= 0) {
    auto found = s.buffers.find(key.root);
    if (found != s.buffers.end()) {
      buffer = &found->second;
      offset = key.address;
    }
  } else {
    for (const auto &[id, candidate] : s.buffers) {
      if (!candidate.absolute)
        continue;
      int64_t extent = candidate.elementBytes;
      for (size_t dim = 0; dim < candidate.sizes.size(); ++dim)
        if (candidate.sizes[dim] > 0)
          extent += (candidate.sizes[dim] - 1) * candidate.strides[dim] *
                    candidate.elementBytes;
      if (key.address >= candidate.base &&
          key.address < candidate.base + extent) {
        buffer = &candidate;
        offset = key.address - candidate.base;
        break;
      }
    }
  }
  std::ostringstream os;
  if (!buffer) {
    os << "the element at address 0x" << std::hex << key.address;
    return os.str();
  }
  // Indices from the largest stride down.
  int64_t element = offset / buffer->elementBytes;
  std::vector<size_t> order(buffer->strides.size());
  for (size_t dim = 0; dim < order.size(); ++dim)
    order[dim] = dim;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return buffer->strides[a] > buffer->strides[b];
  });
  std::vector<int64_t> indices(order.size());
  for (size_t dim : order) {
    int64_t stride = buffer->strides[dim] > 0 ? buffer->strides[dim] : 1;
    indices[dim] = element / stride;
    element %= stride;
  }
  os << "element [";
  for (size_t dim = 0; dim < indices.size(); ++dim)
    os << (dim ? ", " : "") << indices[dim];
  os << "] of " << buffer->name;
  return os.str();
}

const char *verb(int64_t kind, int64_t atomic) {
  if (atomic && (kind & kWrite))
    return "updates it atomically";
  return (kind & kWrite) ? "writes it" : "reads it";
}

void report(State &s, const std::string &message) {
  s.anyRace = true;
  switch (s.mode) {
  case ExitOnRace:
    std::fprintf(stderr, "%s\n", message.c_str());
    std::fflush(nullptr);
    std::_Exit(1);
  case RecordFirst:
    if (s.firstReport.empty())
      s.firstReport = message;
    return;
  case ReportAll:
    if (!s.reportedThisSpawn)
      std::fprintf(stderr, "%s\n", message.c_str());
    s.reportedThisSpawn = true;
    return;
  }
}

void reportRace(State &s, const Key &key, const Agent &first, int64_t firstKind,
                int64_t firstAtomic, const Agent &second, int64_t secondKind,
                int64_t secondAtomic) {
  std::ostringstream os;
  os << "vx: data race in the spawn at " << s.location << " on "
     << describeElement(s, key) << ":\n  " << describeAgent(s, first) << " "
     << verb(firstKind, firstAtomic) << " (" << siteName(s, first.site)
     << ")\n  " << describeAgent(s, second) << " "
     << verb(secondKind, secondAtomic) << " (" << siteName(s, second.site)
     << ")";
  if (first.parallelPoint == second.parallelPoint)
    os << "\n  the iterations of a thread loop must be independent";
  else
    os << "\n  instances that differ in a parallel dimension must not touch "
          "an element that one of them writes";
  report(s, os.str());
}

} // namespace

extern "C" {

void vxRaceSetMode(int mode) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.mode = static_cast<Mode>(mode);
}

/// The first race recorded since the last call (RecordFirst mode), or null.
/// The string stays valid until the next call.
const char *vxRaceTakeReport() {
  static std::string taken;
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.firstReport.empty())
    return nullptr;
  taken = s.firstReport;
  s.firstReport.clear();
  s.anyRace = false;
  return taken.c_str();
}

int64_t __vx_race_spawn(int64_t rank, int64_t location) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ++s.epoch;
  s.location = readString(location);
  s.sizes.assign(rank, 0);
  s.parallel.assign(rank, false);
  s.sites.clear();
  s.buffers.clear();
  s.threadLoops.clear();
  s.startedByThread.clear();
  s.sharedExecutions.clear();
  s.shadow.clear();
  s.reportedThisSpawn = false;
  return s.epoch;
}

void __vx_race_dim(int64_t, int64_t dim, int64_t size, int64_t parallel) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (dim >= 0 && dim < int64_t(s.sizes.size())) {
    s.sizes[dim] = size;
    s.parallel[dim] = parallel != 0;
  }
}

void __vx_race_site(int64_t, int64_t site, int64_t description) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.sites[site] = readString(description);
}

void __vx_race_buffer(int64_t, int64_t root, int64_t name, int64_t base,
                      int64_t elementBytes, int64_t rank, int64_t absolute) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Buffer &buffer = s.buffers[root];
  buffer.name = readString(name);
  buffer.base = base;
  buffer.elementBytes = elementBytes > 0 ? elementBytes : 1;
  buffer.absolute = absolute != 0;
  buffer.sizes.assign(rank, 0);
  buffer.strides.assign(rank, 0);
}

void __vx_race_buffer_dim(int64_t, int64_t root, int64_t dim, int64_t size,
                          int64_t stride) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Buffer &buffer = s.buffers[root];
  if (dim >= 0 && dim < int64_t(buffer.sizes.size())) {
    buffer.sizes[dim] = size;
    buffer.strides[dim] = stride;
  }
}

/// The id of a thread-loop execution. `thread` < 0: a new execution; else
/// the thread's n-th start of the loop at `site` in `instance` joins the
/// n-th execution, which every thread of the CTA starts.
int64_t __vx_race_thread_loop(int64_t, int64_t site, int64_t rank,
                              int64_t instance, int64_t thread) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (thread >= 0) {
    int64_t ordinal = s.startedByThread[Key{instance, site, thread}]++;
    auto [shared, isNew] =
        s.sharedExecutions.try_emplace(Key{instance, site, ordinal}, 0);
    if (!isNew)
      return shared->second;
    shared->second = s.nextExecution;
  }
  int64_t execution = s.nextExecution++;
  ThreadLoop &loop = s.threadLoops[execution];
  loop.site = site;
  loop.lowers.assign(rank, 0);
  loop.steps.assign(rank, 1);
  loop.trips.assign(rank, 1);
  return execution;
}

void __vx_race_thread_loop_dim(int64_t execution, int64_t dim, int64_t lower,
                               int64_t step, int64_t trips) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  ThreadLoop &loop = s.threadLoops[execution];
  if (dim >= 0 && dim < int64_t(loop.trips.size())) {
    loop.lowers[dim] = lower;
    loop.steps[dim] = step;
    loop.trips[dim] = trips;
  }
}

void __vx_race_access(int64_t, int64_t site, int64_t parallelPoint,
                      int64_t instance, int64_t execution, int64_t iteration,
                      int64_t root, int64_t owner, int64_t address,
                      int64_t kind) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Agent agent{parallelPoint, instance, execution, iteration, site};
  if (kind & kOutOfBounds) {
    std::ostringstream os;
    os << "vx: out-of-bounds access in the spawn at " << s.location << ": "
       << describeAgent(s, agent) << " (" << siteName(s, site) << ")";
    report(s, os.str());
    return;
  }
  int64_t atomic = (kind >> kAtomicKindShift) & kAtomicKindMask;
  Key key{root, owner, address};
  Shadow &shadow = s.shadow[key];
  if (kind & kRead) {
    if (shadow.written &&
        (conflict(shadow.writer, agent) || shadow.writersFromSeveralPoints)) {
      reportRace(s, key, shadow.writer, kWrite, shadow.writeAtomic, agent,
                 kRead, 0);
      return;
    }
  }
  if (kind & kWrite) {
    bool sameAtomic =
        atomic != 0 && shadow.written && shadow.writeAtomic == atomic;
    if (shadow.written && !sameAtomic &&
        (conflict(shadow.writer, agent) || shadow.writersFromSeveralPoints)) {
      reportRace(s, key, shadow.writer, kWrite, shadow.writeAtomic, agent,
                 kWrite, atomic);
      return;
    }
    if (atomic != 0)
      for (const Shadow::KindWriter &other : shadow.writersByKind)
        if (other.atomic != atomic &&
            (other.fromSeveralPoints || conflict(other.writer, agent))) {
          reportRace(s, key, other.writer, kWrite, other.atomic, agent, kWrite,
                     atomic);
          return;
        }
    // Reads of the element by others (this access's own read excepted).
    if (shadow.read) {
      bool other =
          shadow.readersFromSeveralPoints ||
          shadow.reader.parallelPoint != agent.parallelPoint ||
          (agent.execution != 0 && shadow.readExecution == agent.execution &&
           (shadow.readBySeveralIterations ||
            shadow.readIteration != agent.iteration));
      if (other) {
        reportRace(s, key, shadow.reader, kRead, 0, agent, kWrite, atomic);
        return;
      }
    }
    if (shadow.written && sameAtomic &&
        shadow.writer.parallelPoint != agent.parallelPoint)
      shadow.writersFromSeveralPoints = true;
    shadow.written = true;
    shadow.writer = agent;
    shadow.writeAtomic = atomic;
    auto entry =
        std::find_if(shadow.writersByKind.begin(), shadow.writersByKind.end(),
                     [&](const Shadow::KindWriter &kindWriter) {
                       return kindWriter.atomic == atomic;
                     });
    if (entry != shadow.writersByKind.end()) {
      entry->fromSeveralPoints |=
          entry->writer.parallelPoint != agent.parallelPoint;
      entry->writer = agent;
    } else {
      shadow.writersByKind.insert(atomic == 0 ? shadow.writersByKind.begin()
                                              : shadow.writersByKind.end(),
                                  {atomic, agent, false});
    }
  }
  if (kind & kRead) {
    if (!shadow.read) {
      shadow.read = true;
      shadow.reader = agent;
      shadow.readExecution = agent.execution;
      shadow.readIteration = agent.iteration;
    } else if (agent.parallelPoint != shadow.reader.parallelPoint) {
      shadow.readersFromSeveralPoints = true;
    } else if (agent.execution != shadow.readExecution) {
      shadow.readExecution = agent.execution;
      shadow.readIteration = agent.iteration;
      shadow.readBySeveralIterations = false;
    } else if (agent.iteration != shadow.readIteration) {
      shadow.readBySeveralIterations = true;
    }
  }
}

} // extern "C"
