/* tests/check.h: the assertions every C test uses.
 *
 * CHECK(cond) records a failure (file, line, the condition) and goes on, so one
 * run reports every broken thing; CHECK_OK(call) does the same for a tabi_status
 * and prints tabi_last_error(). A test's main ends with `return check_report();`,
 * which prints "N passed, N failed" and exits non-zero on any failure.
 */
#ifndef TABI_TESTS_CHECK_H
#define TABI_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

/* One counter pair per test program. A test built from several .c files
 * defines TABI_CHECK_SHARED before including this header in every file, and
 * TABI_CHECK_DEFINE as well in exactly one of them (the counters live there);
 * otherwise each file would count on its own and check_report() in main would
 * miss the other files' failures. */
#ifdef TABI_CHECK_SHARED
extern int check_passed_;
extern int check_failed_;
#ifdef TABI_CHECK_DEFINE
int check_passed_;
int check_failed_;
#endif
#else
static int check_passed_;
static int check_failed_;
#endif

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      check_passed_++;                                                         \
    } else {                                                                   \
      check_failed_++;                                                         \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

#define CHECK_MSG(cond, ...)                                                  \
  do {                                                                        \
    if (cond) {                                                               \
      check_passed_++;                                                        \
    } else {                                                                  \
      check_failed_++;                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                           \
      fputc('\n', stderr);                                                    \
    }                                                                         \
  } while (0)

/* For a libtabi call: expects TABI_OK, prints the error message otherwise. */
#define CHECK_OK(call)                                                          \
  do {                                                                          \
    tabi_status check_st_ = (call);                                             \
    CHECK_MSG(check_st_ == TABI_OK, "status %d: %s", (int)check_st_, tabi_last_error()); \
  } while (0)

/* Expects the given error status and a message containing `needle`. */
#define CHECK_ERR(call, status, needle)                                         \
  do {                                                                          \
    tabi_status check_st_ = (call);                                             \
    CHECK_MSG(check_st_ == (status), "status %d, wanted %d (%s)", (int)check_st_, \
              (int)(status), tabi_last_error());                                \
    CHECK_MSG(strstr(tabi_last_error(), (needle)) != NULL,                      \
              "message \"%s\" lacks \"%s\"", tabi_last_error(), (needle));     \
  } while (0)

static inline int check_report(void) {
  printf("%d passed, %d failed\n", check_passed_, check_failed_);
  return check_failed_ ? 1 : 0;
}

#endif /* TABI_TESTS_CHECK_H */
