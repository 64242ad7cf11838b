/* plugins/cuda/tc_words.cuh: fixed-size units of memory that move as one
 * load or store instruction (to 16 bytes), for the vector kernels
 * (tc_ew.cu), the row kernels (tc_rows.cuh), cat (tc_shape.cu) and
 * index_select (tc_index.cu). */
#ifndef TABI_TC_WORDS_CUH
#define TABI_TC_WORDS_CUH

#include <stdint.h>

/* W 32-bit words, aligned as a whole: one access of 4 W bytes */
template <int W>
struct alignas(4 * W) tc_ew_words {
  uint32_t w[W];
};

/* U bytes (1, 2, 4, 8 or 16) as one unit */
template <int U>
struct tc_unit_of {
  typedef tc_ew_words<U / 4> type;
};
template <>
struct tc_unit_of<1> {
  typedef uint8_t type;
};
template <>
struct tc_unit_of<2> {
  typedef uint16_t type;
};

/* The largest unit (16, 8, 4, 2 or 1 bytes) dividing bits: the OR of every
   length, offset and address a copy moves by it (cat, index_select) */
static inline int tc_unit_for(uint64_t bits) {
  int u = 16;
  while (u > 1 && (bits & (uint64_t)(u - 1))) u /= 2;
  return u;
}

#endif
