/* Test plugins: an f32 CPU read with one deliberate fault each, chosen by FAULT at compile time
 * (tests/CMakeLists.txt builds one library per fault). FAULT_NONE is correct, so the faults are
 * the only reason a check fails. */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readbench/plugin.h"

#define FAULT_NONE 0
#define FAULT_OFF_BY_ONE_BLOCK 1 /* reads each sequence's blocks shifted by one table entry */
#define FAULT_WRONG_SCALE 2      /* softmax scale 1/D instead of 1/sqrt(D) */
#define FAULT_NAN 3              /* one output element NaN */
#define FAULT_CRASH 4            /* SIGSEGV in run */
#define FAULT_HANG 5             /* never returns from run */
#define FAULT_ABI 6              /* built for another ABI version */
#define FAULT_NO_SYMBOL 7        /* exports no readbench_plugin */
#define FAULT_RUN_ERROR 8        /* run returns RB_ERROR */
#define FAULT_UNSUPPORTED 9      /* prepare refuses every problem */
#define FAULT_HND_ONLY 10        /* correct, but takes only head-major pools */
#define FAULT_FAIL_LATER 11      /* correct for 3 calls of a state, then RB_ERROR (while timed) */
#define FAULT_PRINT 12           /* correct, but prints to stdout: constructor, prepare, run */
#define FAULT_EXIT_ON_LOAD 13    /* exit(0) in its constructor */
#define FAULT_EXIT_LATER 14      /* correct for 3 calls of a state, then exit(0) (while timed) */
#define FAULT_CRASH_ON_LOAD 15   /* SIGSEGV in its constructor */
#define FAULT_HANG_ON_LOAD 16    /* its constructor never returns */
#define FAULT_QUICK_EXIT_LATER 17 /* correct for 3 calls of a state, then quick_exit(0) */
#define FAULT_EXIT_THREADS 18    /* correct for 3 calls, then two threads of its own exit(0) */
#ifndef FAULT
#define FAULT FAULT_NONE
#endif
#ifndef PLUGIN_NAME
#define PLUGIN_NAME "faulty"
#endif

/* Two of these at once: exits from threads that are not readbench's, racing each other. */
static void* exit_from_thread(void* unused) {
  (void)unused;
  exit(0);
}

/* Text a plugin might print, on every channel that reaches fd 1. */
static void print_to_stdout(const char* where) {
  printf("faulty_print: printf in %s\n", where);
  fflush(stdout);
  const char text[] = "faulty_print: write(1) {not json\n";
  if (write(1, text, sizeof text - 1) < 0) abort();
}

#if FAULT == FAULT_PRINT || FAULT == FAULT_EXIT_ON_LOAD || FAULT == FAULT_CRASH_ON_LOAD || \
    FAULT == FAULT_HANG_ON_LOAD
__attribute__((constructor)) static void on_load(void) {
  if (FAULT == FAULT_PRINT) print_to_stdout("the constructor");
  if (FAULT == FAULT_EXIT_ON_LOAD) exit(0);
  if (FAULT == FAULT_CRASH_ON_LOAD) raise(SIGSEGV);
  if (FAULT == FAULT_HANG_ON_LOAD)
    for (;;) pause();
}
#endif

struct state {
  rb_problem problem;
  int calls;
};

static rb_status prepare(const rb_problem* p, void** state, char* err, size_t err_size) {
  if (FAULT == FAULT_UNSUPPORTED) {
    strncpy(err, "head dim not compiled", err_size - 1);
    return RB_UNSUPPORTED;
  }
  /* each prepare its own state: several may be alive */
  struct state* own = malloc(sizeof *own);
  if (own == NULL) return RB_ERROR;
  own->problem = *p;
  own->calls = 0;
  *state = own;
  if (FAULT == FAULT_PRINT) print_to_stdout("prepare");
  return RB_OK;
}

static size_t index_of(const rb_problem* p, int64_t b, int t, int h, int d) {
  const size_t D = (size_t)p->head_dim, S = (size_t)p->block_size, H = (size_t)p->kv_heads;
  if (p->layout == RB_LAYOUT_HND)
    return (((size_t)b * H + (size_t)h) * S + (size_t)t) * D + (size_t)d;
  return (((size_t)b * S + (size_t)t) * H + (size_t)h) * D + (size_t)d;
}

static rb_status run(void* state, const rb_call* c, char* err, size_t err_size) {
  const rb_problem* p = &((struct state*)state)->problem;
  const float* q = c->q;
  const float* k = c->k_pool;
  const float* v = c->v_pool;
  float* out = c->out;
  const int D = p->head_dim, group = p->q_heads / p->kv_heads;
  const float scale = FAULT == FAULT_WRONG_SCALE ? 1.0f / (float)D : p->softmax_scale;
  if (FAULT == FAULT_CRASH) raise(SIGSEGV);
  if (FAULT == FAULT_HANG)
    for (;;) pause();
  if (FAULT == FAULT_PRINT) print_to_stdout("run");
  if (FAULT == FAULT_EXIT_LATER && ++((struct state*)state)->calls > 3) exit(0);
  if (FAULT == FAULT_QUICK_EXIT_LATER && ++((struct state*)state)->calls > 3) quick_exit(0);
  if (FAULT == FAULT_EXIT_THREADS && ++((struct state*)state)->calls > 3) {
    pthread_t threads[2];
    for (int i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, exit_from_thread, NULL);
    for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  }
  if (FAULT == FAULT_RUN_ERROR ||
      (FAULT == FAULT_FAIL_LATER && ++((struct state*)state)->calls > 3)) {
    strncpy(err, "deliberate failure", err_size - 1);
    return RB_ERROR;
  }
  for (int b = 0; b < p->batch; ++b)
    for (int h = 0; h < p->q_heads; ++h) {
      const float* qh = q + ((size_t)b * (size_t)p->q_heads + (size_t)h) * (size_t)D;
      float* oh = out + ((size_t)b * (size_t)p->q_heads + (size_t)h) * (size_t)D;
      float m = -INFINITY, l = 0.0f;
      for (int d = 0; d < D; ++d) oh[d] = 0.0f;
      for (int64_t t = 0; t < c->seq_lens[b]; ++t) {
        int64_t entry = t / p->block_size;
        if (FAULT == FAULT_OFF_BY_ONE_BLOCK && entry + 1 < p->blocks_per_seq) entry += 1;
        const int64_t blk = c->block_table[(size_t)b * (size_t)p->blocks_per_seq + (size_t)entry];
        const int tt = (int)(t % p->block_size), kvh = h / group;
        float s = 0.0f;
        for (int d = 0; d < D; ++d) s += qh[d] * k[index_of(p, blk, tt, kvh, d)];
        s *= scale;
        const float mn = s > m ? s : m, keep = expf(m - mn), w = expf(s - mn);
        l = l * keep + w;
        for (int d = 0; d < D; ++d) oh[d] = oh[d] * keep + w * v[index_of(p, blk, tt, kvh, d)];
        m = mn;
      }
      for (int d = 0; d < D; ++d) oh[d] /= l;
    }
  if (FAULT == FAULT_NAN) out[0] = NAN;
  return RB_OK;
}

static void release(void* state) {
  free(state);
}

#if FAULT == FAULT_NO_SYMBOL
#define ENTRY readbench_plugin_v0
#else
#define ENTRY readbench_plugin
#endif

const rb_plugin* ENTRY(void) {
  static const rb_plugin plugin = {
      FAULT == FAULT_ABI ? 999u : READBENCH_PLUGIN_ABI_VERSION,
      PLUGIN_NAME,
      RB_BACKEND_CPU,
      1u << RB_DTYPE_F32,
      1u << RB_DTYPE_F32,
      1u << RB_DTYPE_F32,
      FAULT == FAULT_HND_ONLY ? 1u << RB_LAYOUT_HND : 1u << RB_LAYOUT_NHD,
      prepare,
      run,
      release,
  };
  return &plugin;
}
