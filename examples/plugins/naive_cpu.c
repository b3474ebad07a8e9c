/* A plain C paged-decode read as a readbench plugin: the smallest complete example of
 * include/readbench/plugin.h. One thread, one sequence and head at a time, every dtype and both
 * pool layouts, an online softmax in f32. It is a correct read, not a fast one.
 *
 *   cc -O2 -shared -fPIC -I include examples/plugins/naive_cpu.c -o libnaive_cpu.so -lm
 *   readbench run --plugin ./libnaive_cpu.so --path plugin:naive_cpu
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "readbench/plugin.h"

typedef struct naive_state {
  rb_problem p;
  float* qf;  /* one head of q in f32 */
  float* acc; /* one head's running output */
} naive_state;

static float from_bits16_bf16(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static float from_bits16_f16(uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  if (e == 0) return sign * ldexpf((float)m, -24);
  if (e == 31) return m ? NAN : sign * INFINITY;
  return sign * ldexpf((float)(m | 0x400), e - 25);
}

static float from_e4m3(uint8_t b) {
  const int e = (b >> 3) & 0xf, m = b & 7;
  const float sign = (b & 0x80) ? -1.0f : 1.0f;
  if (e == 15 && m == 7) return NAN;
  if (e == 0) return sign * ldexpf((float)m, -9);
  return sign * ldexpf((float)(m | 8), e - 10);
}

/* Element i of an array of type t, as f32. */
static float load(rb_dtype t, const void* base, size_t i) {
  switch (t) {
    case RB_DTYPE_F32:
      return ((const float*)base)[i];
    case RB_DTYPE_F16:
      return from_bits16_f16(((const uint16_t*)base)[i]);
    case RB_DTYPE_BF16:
      return from_bits16_bf16(((const uint16_t*)base)[i]);
    case RB_DTYPE_FP8_E4M3:
      return from_e4m3(((const uint8_t*)base)[i]);
  }
  return NAN;
}

static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if (isnan(f)) return 0x7fc0;
  u += 0x7fff + ((u >> 16) & 1); /* round to nearest even */
  return (uint16_t)(u >> 16);
}

static uint16_t to_f16(float f) {
  const uint16_t sign = signbit(f) ? 0x8000 : 0;
  const float a = fabsf(f);
  if (isnan(f)) return 0x7e00;
  if (a >= 65520.0f) return sign | 0x7c00;
  if (a < ldexpf(1.0f, -14)) return sign | (uint16_t)lrintf(a * ldexpf(1.0f, 24));
  int e;
  const float m = frexpf(a, &e);   /* a = m * 2^e, m in [0.5, 1) */
  long bits = lrintf(m * 2048.0f); /* 11 significant bits, rounded to nearest even */
  if (bits == 2048) bits = 1024, e += 1;
  return sign | (uint16_t)((e + 14) << 10) | (uint16_t)(bits - 1024);
}

static void store(rb_dtype t, void* base, size_t i, float v) {
  switch (t) {
    case RB_DTYPE_F32:
      ((float*)base)[i] = v;
      break;
    case RB_DTYPE_F16:
      ((uint16_t*)base)[i] = to_f16(v);
      break;
    case RB_DTYPE_BF16:
      ((uint16_t*)base)[i] = to_bf16(v);
      break;
    default:
      break;
  }
}

static void message(char* err, size_t size, const char* text) {
  if (size == 0) return;
  strncpy(err, text, size - 1);
  err[size - 1] = '\0';
}

static rb_status naive_prepare(const rb_problem* p, void** state, char* err, size_t err_size) {
  if (p->kv_dtype != p->q_dtype && p->kv_dtype != RB_DTYPE_FP8_E4M3) {
    message(err, err_size, "K/V must be in q's type or fp8 e4m3");
    return RB_UNSUPPORTED;
  }
  naive_state* s = calloc(1, sizeof *s);
  if (s == NULL) return message(err, err_size, "out of memory"), RB_ERROR;
  s->p = *p;
  s->qf = malloc(sizeof(float) * (size_t)p->head_dim);
  s->acc = malloc(sizeof(float) * (size_t)p->head_dim);
  if (s->qf == NULL || s->acc == NULL) {
    free(s->qf), free(s->acc), free(s);
    return message(err, err_size, "out of memory"), RB_ERROR;
  }
  *state = s;
  return RB_OK;
}

/* Index of element d of token t (in its block) of KV head h of physical block b. */
static size_t pool_index(const rb_problem* p, int64_t b, int t, int h, int d) {
  const size_t D = (size_t)p->head_dim, S = (size_t)p->block_size, H = (size_t)p->kv_heads;
  if (p->layout == RB_LAYOUT_HND)
    return (((size_t)b * H + (size_t)h) * S + (size_t)t) * D + (size_t)d;
  return (((size_t)b * S + (size_t)t) * H + (size_t)h) * D + (size_t)d;
}

static rb_status naive_run(void* state, const rb_call* c, char* err, size_t err_size) {
  naive_state* s = state;
  const rb_problem* p = &s->p;
  const int D = p->head_dim, group = p->q_heads / p->kv_heads;
  (void)err, (void)err_size;
  for (int b = 0; b < p->batch; ++b) {
    const int32_t* table = c->block_table + (size_t)b * (size_t)p->blocks_per_seq;
    const int64_t L = c->seq_lens[b];
    for (int h = 0; h < p->q_heads; ++h) {
      const size_t qo = ((size_t)b * (size_t)p->q_heads + (size_t)h) * (size_t)D;
      const int kvh = h / group;
      float m = -INFINITY, l = 0.0f;
      for (int d = 0; d < D; ++d) {
        s->qf[d] = load(p->q_dtype, c->q, qo + (size_t)d) * p->softmax_scale * p->kv_scale;
        s->acc[d] = 0.0f;
      }
      for (int64_t t = 0; t < L; ++t) {
        const int64_t block = table[t / p->block_size];
        const int in_block = (int)(t % p->block_size);
        float score = 0.0f;
        for (int d = 0; d < D; ++d)
          score += s->qf[d] * load(p->kv_dtype, c->k_pool, pool_index(p, block, in_block, kvh, d));
        const float m_new = score > m ? score : m;
        const float keep = expf(m - m_new), w = expf(score - m_new);
        l = l * keep + w;
        for (int d = 0; d < D; ++d)
          s->acc[d] = s->acc[d] * keep +
                      w * load(p->kv_dtype, c->v_pool, pool_index(p, block, in_block, kvh, d));
        m = m_new;
      }
      for (int d = 0; d < D; ++d)
        store(p->out_dtype, c->out, qo + (size_t)d, s->acc[d] * p->kv_scale / l);
    }
  }
  return RB_OK;
}

static void naive_release(void* state) {
  naive_state* s = state;
  if (s == NULL) return;
  free(s->qf), free(s->acc), free(s);
}

#define BIT(x) (1u << (x))

const rb_plugin* readbench_plugin(void) {
  static const rb_plugin plugin = {
      READBENCH_PLUGIN_ABI_VERSION,
      "naive_cpu",
      RB_BACKEND_CPU,
      BIT(RB_DTYPE_F32) | BIT(RB_DTYPE_F16) | BIT(RB_DTYPE_BF16),
      BIT(RB_DTYPE_F32) | BIT(RB_DTYPE_F16) | BIT(RB_DTYPE_BF16) | BIT(RB_DTYPE_FP8_E4M3),
      BIT(RB_DTYPE_F32) | BIT(RB_DTYPE_F16) | BIT(RB_DTYPE_BF16),
      BIT(RB_LAYOUT_NHD) | BIT(RB_LAYOUT_HND),
      naive_prepare,
      naive_run,
      naive_release,
  };
  return &plugin;
}
