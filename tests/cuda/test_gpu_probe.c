/* tests/cuda/test_gpu_probe.c: the forked device count both GPU plugins use
 * (plugins/cuda/tc_probe.c), with stand-in count functions: no GPU needed.
 *
 * What must hold: the child's answer comes back; a child that dies, or that
 * answers nonsense, is a count of 0 (never an error, never a hang); the
 * count runs in the child, not here; and an application that ignores SIGCHLD
 * (so the kernel reaps the child and waitpid fails with ECHILD) still gets
 * its answer instead of a caller spinning forever. An alarm turns a hang
 * into a failure. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "check.h"
#include "tc_probe.h"

static pid_t counted_in = 0; /* the pid the last count ran in */

static int32_t count_three(void) {
  counted_in = getpid();
  return 3;
}
static int32_t count_zero(void) { return 0; }
static int32_t count_negative(void) { return -5; }
static int32_t count_dies(void) {
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV); /* a driver that crashes while counting */
  return 7;
}

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "FAIL: the probe hung (alarm)\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  _exit(1);
}

static void expect(int32_t (*count)(void), const char *name, int32_t want) {
  int32_t got = tc_probe_count_in_child(count);
  CHECK_MSG(got == want, "%s: got %d, wanted %d", name, (int)got, (int)want);
}

int main(void) {
  signal(SIGALRM, on_alarm);
  alarm(60);
  expect(count_three, "count_three", 3);
  CHECK_MSG(counted_in == 0, "the count ran in this process (pid %d), not in a child", (int)counted_in);
  expect(count_zero, "count_zero", 0);
  expect(count_negative, "count_negative", 0);
  expect(count_dies, "count_dies", 0);
  /* SIGCHLD ignored: the child is reaped by the kernel; the answer must still
   * come back and the call must return (before the fix it looped forever). */
  signal(SIGCHLD, SIG_IGN);
  expect(count_three, "count_three", 3);
  expect(count_dies, "count_dies", 0);
  signal(SIGCHLD, SIG_DFL);
  alarm(0);
  return check_report();
}
