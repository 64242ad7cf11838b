/* plugins/cuda/tc_words.cuh: fixed-size units of memory that move as one
 * load or store instruction (to 16 bytes), for the vector kernels
 * (tc_ew.cu), the row kernels (tc_rows.cuh) and cat (tc_shape.cu). */
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

#endif
