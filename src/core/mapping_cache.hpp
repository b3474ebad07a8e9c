#pragma once
// The mappings of large host buffers (aligned_buffer.hpp), kept when their buffer goes so that a
// later buffer of about the same size gets pages already faulted in. A sweep builds every length
// again in each sampling round and holds two lengths' workloads while it moves between them; on
// a virtual machine whose hypervisor takes freed guest memory back (free page reporting), memory
// mapped afresh is faulted in from the host again each time: on the development VM the first
// touch of 1 GiB of such memory took 2.9-3.6 s with huge pages, and 0.16-0.23 s once the guest
// had it, which made building the longest lengths most of an automatic grid's wall time.
//
// A request takes a cached mapping of at most twice its size. What is cached plus what is in use
// stays within the most that was ever in use at once, and a new mapping first unmaps at least
// its own size in cached ones (all of them if fewer), more where the peak asks it (the fewest
// bytes that make room, greedily): the process grows by no more than a new mapping's bytes
// beyond what it had cached. On a machine of several NUMA
// nodes nothing is kept: a reused page stays on the node of whoever first touched it, and the
// workload's fill places its pages by touching them first (host_workload.cpp).
#include <cstddef>
#include <mutex>
#include <vector>

namespace readbench {

struct Mapping {
  void* base = nullptr;
  std::size_t bytes = 0;
};

class MappingCache {
 public:
  // keep: false unmaps every mapping released (the cache of a machine of several NUMA nodes).
  explicit MappingCache(bool keep = true) : keep_(keep) {}
  MappingCache(const MappingCache&) = delete;
  MappingCache& operator=(const MappingCache&) = delete;
  ~MappingCache();

  // A readable, writable private mapping of at least `bytes`: the smallest cached one of at most
  // twice that, else a new one (every cached mapping is unmapped and the mapping tried again
  // once when the system refuses it). base is nullptr when it still refuses.
  Mapping acquire(std::size_t bytes);
  // Takes back a mapping acquire gave, to hand out again.
  void release(Mapping m) noexcept;
  // Unmaps every cached mapping.
  void clear();

  std::size_t cached_bytes() const;
  std::size_t live_bytes() const;  // acquired and not yet released
  bool keeps() const { return keep_; }

  // The cache of this process, which large AlignedBuffers take their memory from.
  static MappingCache& process();

 private:
  // Unmaps cached mappings until at most `limit` bytes are cached: each time the smallest one
  // that alone makes room, else the largest.
  void trim(std::size_t limit);

  const bool keep_;
  mutable std::mutex mutex_;
  std::vector<Mapping> cached_;
  std::size_t cached_bytes_ = 0, live_bytes_ = 0, peak_live_bytes_ = 0;
};

}  // namespace readbench
