// The variant build's tuning specs (tools/h200): compiled only with READBENCH_BENCH_VARIANTS.
#include "backends/cuda/variants/tuning_variants.hpp"

#include <cstdlib>
#include <memory>
#include <string>

#include "core/errors.hpp"

namespace readbench::cuda {

void apply_tuning(Tuning& t, std::string_view spec) {
  TuningVariants v = variants_of(t);
  while (!spec.empty()) {
    const std::size_t comma = spec.find(',');
    const std::string_view item = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw InputError("tuning entry '" + std::string(item) + "' is not key=value");
    const std::string key(item.substr(0, eq)), value(item.substr(eq + 1));
    char* end = nullptr;
    const double x = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0')
      throw InputError("tuning entry '" + std::string(item) + "' needs a number");
    if (key == "warps")
      v.warps = int(x);
    else if (key == "stages")
      v.stages = int(x);
    else if (key == "kv")
      v.kv_per_block = int(x);
    else if (key == "l1")
      t.copy_through_l1 = x != 0;
    else if (key == "simt")
      v.simt_half = x != 0;
    else if (key == "waves")
      t.waves = x;
    else if (key == "minsplit")
      t.min_split_tokens = int(x);
    else if (key == "shortsplit")
      t.short_split_tokens = int(x);
    else if (key == "cluster")
      t.cluster = int(x);
    else if (key == "spread")
      t.cluster_spread = x != 0;
    else if (key == "fewrows")
      t.few_rows = x != 0;
    else if (key == "pairs")
      t.paired_heads = x != 0;
    else if (key == "graph")
      t.graph_replay = x != 0;
    else if (key == "flushread")
      v.flush_read = x != 0;
    else if (key == "merge")
      v.merge_kernel = x != 0;
    else if (key == "mergev") {  // 0 the staged merge, 2 the two-pass one before it
      if (x != 0 && x != 2) throw InputError("tuning entry '" + std::string(item) + "': 0 or 2");
      v.merge_variant = int(x);
    } else if (key == "fence") {  // 1: every thread's fences, as before (DecodeParams)
      if (x != 0 && x != 1) throw InputError("tuning entry '" + std::string(item) + "': 0 or 1");
      v.fence_variant = int(x);
    } else if (key == "pdl") {  // 1: trigger after the reads; 2: at once; 3: wait first (and
                                // trigger after the reads, as at first); 4: at exit; 5: after
                                // a warp's last copies are issued, before its first tile too;
                                // 6: after the tile computed while its last copies were issued
                                // (a tile later than 5); 7: the product's
      t.dependent_launch = x != 0;
      v.trigger_after_reads = int(x) == 1 || int(x) == 3;
      v.trigger_at_start = int(x) == 2;
      v.trigger_at_exit = int(x) == 4;
      v.trigger_after_issue = int(x) == 5 ? 1 : int(x) == 6 ? 2 : 0;
      v.wait_first = int(x) == 3;
    } else
      throw InputError("unknown tuning key '" + key + "'");
  }
  t.variants = std::make_shared<const TuningVariants>(v);
}

}  // namespace readbench::cuda
