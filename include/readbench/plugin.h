/* readbench plugin interface: a shared library that provides one paged-decode read, which
 * readbench verifies against its f64 reference and then times, fits and reports beside its
 * own gather and fused reads (`readbench run --plugin FILE`). C, so any compiler and language
 * that can export a C symbol can provide one; see docs/plugins.md.
 *
 * The library exports one function, readbench_plugin(), returning a description that stays
 * valid until the library is unloaded. readbench refuses a description whose abi_version is
 * not READBENCH_PLUGIN_ABI_VERSION: a change to any struct or rule below raises it.
 *
 * The problem, for every call: a batch of `batch` sequences, each with a history of `length`
 * tokens held in blocks of `block_size` tokens. Sequence b's j-th block is the physical block
 * block_table[b * blocks_per_seq + j] of the K and V pools (entries past the history's last
 * block are unspecified). For each sequence and query head h (KV head h / (q_heads /
 * kv_heads)):
 *     out[b][h] = softmax(softmax_scale * q[b][h] . K[b][t]) over t < length, applied to V[b][t]
 * where K and V are the stored values times kv_scale. Accumulate in at least f32. */
#ifndef READBENCH_PLUGIN_H
#define READBENCH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define READBENCH_PLUGIN_ABI_VERSION 1

/* The structs hold fixed-width integers, never enum types (whose size a compiler may choose);
 * the enums below only name their values. */
typedef int32_t rb_dtype;
typedef int32_t rb_layout;
typedef int32_t rb_backend;
typedef int32_t rb_status;

/* Element types, and their bits in the dtype masks below (1u << type). */
enum {
  RB_DTYPE_F32 = 1,
  RB_DTYPE_F16 = 2,     /* IEEE binary16 */
  RB_DTYPE_BF16 = 3,    /* bfloat16 */
  RB_DTYPE_FP8_E4M3 = 4 /* OCP e4m3 (finite, NaN 0x7f/0xff); K and V only */
};

/* Layouts of the K and V pools, and their bits in `layouts` (1u << layout). */
enum {
  RB_LAYOUT_NHD = 1, /* [num_blocks, block_size, kv_heads, head_dim] */
  RB_LAYOUT_HND = 2  /* [num_blocks, kv_heads, block_size, head_dim] */
};

enum {
  RB_BACKEND_CPU = 1, /* host pointers; the call runs on the calling thread (it may fork) */
  RB_BACKEND_CUDA = 2 /* device pointers; work goes on `stream` and may be captured in a graph */
};

enum {
  RB_OK = 0,
  RB_UNSUPPORTED = 1, /* this problem is outside what the read handles (prepare only) */
  RB_ERROR = 2        /* anything else; the message says what */
};

/* What every call of one prepared read looks like. All counts are positive. */
typedef struct rb_problem {
  int32_t batch, q_heads, kv_heads, head_dim, block_size;
  int32_t blocks_per_seq; /* ceil(length / block_size) */
  int64_t length;         /* tokens of history of every sequence */
  int64_t num_blocks;     /* blocks in each pool */
  rb_dtype q_dtype;       /* q, [batch, q_heads, head_dim] */
  rb_dtype out_dtype;     /* out, [batch, q_heads, head_dim] */
  rb_dtype kv_dtype;      /* the K and V pools */
  rb_layout layout;       /* of the K and V pools */
  float kv_scale;         /* one scale for all of K and V (1 unless kv_dtype is fp8) */
  float softmax_scale;    /* 1 / sqrt(head_dim) */
  int32_t device;         /* CUDA device ordinal (current when called); -1 for the CPU */
  int32_t threads;        /* CPU threads the read may use; 0 for CUDA */
} rb_problem;

/* The inputs and output of one call: readbench cycles over replicas of q, out and the block
 * table, so each call may get different pointers. */
typedef struct rb_call {
  const void* k_pool;
  const void* v_pool;
  const int32_t* block_table; /* [batch, blocks_per_seq] */
  const int32_t* seq_lens;    /* [batch], each `length` */
  const void* q;
  void* out;
  void* stream; /* the cudaStream_t to use (CUDA); NULL for the CPU */
} rb_call;

typedef struct rb_plugin {
  uint32_t abi_version; /* READBENCH_PLUGIN_ABI_VERSION as the library was built */
  const char* name;     /* the path is reported as "plugin:NAME"; [A-Za-z0-9_.-], 1-64 chars */
  rb_backend backend;
  uint32_t q_dtypes, kv_dtypes, out_dtypes; /* masks of the accepted types */
  uint32_t layouts;                         /* mask of the accepted pool layouts */

  /* Sets *state for the calls of `problem` (workspace, plans, ...), or returns RB_UNSUPPORTED
   * or RB_ERROR with a one-line message in err (err_size bytes, NUL-terminated), leaving
   * *state NULL. A CUDA read may allocate here, not in run. Several states may be alive at
   * once (a cold sample's one-block primer beside the timed workload, one per device when
   * several CUDA devices are swept), and calls on different states may run at the same time
   * from different threads: keep what a call needs in its state, not in globals. */
  rb_status (*prepare)(const rb_problem* problem, void** state, char* err, size_t err_size);
  /* One call. A CUDA read only enqueues on call->stream: no allocation, no synchronisation,
   * no other stream (readbench captures calls into a graph where it can, and times them with
   * events on that stream), and no CUDA error left behind (cudaGetLastError is checked after
   * prepare and after each call, and an error fails this plugin's path). */
  rb_status (*run)(void* state, const rb_call* call, char* err, size_t err_size);
  /* Frees what prepare made; state may be NULL. */
  void (*release)(void* state);
} rb_plugin;

/* The one symbol readbench looks up. */
typedef const rb_plugin* (*rb_plugin_entry)(void);
#define READBENCH_PLUGIN_ENTRY "readbench_plugin"

#ifdef __cplusplus
}
#endif

#endif /* READBENCH_PLUGIN_H */
