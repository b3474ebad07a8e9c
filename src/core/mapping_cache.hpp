#pragma once
// The mappings of large host buffers (aligned_buffer.hpp), kept when their buffer goes so that a
// later buffer of about the same size gets pages already faulted in. A sweep builds every length
// again in each sampling round and holds two lengths' workloads while it moves between them; on
// a virtual machine whose hypervisor takes freed guest memory back (free page reporting), memory
// mapped afresh is faulted in from the host again each time: on the development VM the first
// touch of 1 GiB of such memory took 2.9-3.6 s with huge pages, and 0.16-0.23 s once the guest
// had it, which made building the longest lengths most of an automatic grid's wall time.
//
// The cache never makes the process hold more than it did without it: what it keeps plus what is
// in use stays within the most that was ever in use at once, and a new mapping that would push
// the total past that first unmaps cached ones, smallest first.
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
  MappingCache() = default;
  MappingCache(const MappingCache&) = delete;
  MappingCache& operator=(const MappingCache&) = delete;
  ~MappingCache();

  // A readable, writable private mapping of at least `bytes`: the smallest cached one that holds
  // them without being more than twice their size, else a new one (every cached mapping is
  // unmapped and the mapping tried again once when the system refuses it). base is nullptr when
  // it still refuses.
  Mapping acquire(std::size_t bytes);
  // Takes back a mapping acquire gave, to hand out again.
  void release(Mapping m);
  // Unmaps every cached mapping.
  void clear();

  std::size_t cached_bytes() const;
  std::size_t live_bytes() const;  // acquired and not yet released

  // The cache of this process, which large AlignedBuffers take their memory from.
  static MappingCache& process();

 private:
  // Unmaps cached mappings, smallest first, until at most `limit` bytes are cached.
  void trim(std::size_t limit);

  mutable std::mutex mutex_;
  std::vector<Mapping> cached_;
  std::size_t cached_bytes_ = 0, live_bytes_ = 0, peak_live_bytes_ = 0;
};

}  // namespace readbench
