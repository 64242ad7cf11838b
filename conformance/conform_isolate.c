/* conformance/conform_isolate.c: each group in a child process, with a time limit.
 *
 * A plugin under test may crash, hang, or corrupt memory; none of that may take
 * the suite down. Each group runs in a forked child that writes fixed-size
 * records into a pipe; the parent polls every running child's pipe, so children
 * never block on a full pipe, kills a child that runs past its limit, and turns
 * a death into a FAIL record naming the signal and the last sample the child had
 * reached. A run with a budget stops where the budget ends, not where the
 * groups do: what it could not run is reported as skipped, so a lent machine's
 * last minutes still give a report (the alternative, killing the whole run
 * from outside, gives none).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conform_int.h"

typedef struct child {
  pid_t pid;
  int fd;
  int32_t group;
  double deadline;
  int timed_out;
  int stopped;              /* killed because the run's budget ran out */
  size_t have;              /* bytes of `buf` filled */
  conform_record buf;
  conform_record last;      /* last progress mark */
  int has_last;
} child;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "SIGTRAP";
    case SIGPIPE: return "SIGPIPE";
    default: return "signal";
  }
}

/* Reads what is there; returns 0 on EOF or error (the child is done writing). */
static int drain(child *ch, conform_record_fn on_record, void *user) {
  for (;;) {
    ssize_t r = read(ch->fd, (char *)&ch->buf + ch->have, sizeof ch->buf - ch->have);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 1;
    if (r <= 0) return 0;
    ch->have += (size_t)r;
    if (ch->have < sizeof ch->buf) continue;
    ch->have = 0;
    ch->buf.group = ch->group;
    if (ch->buf.status == CONFORM_ST_PROGRESS) {
      ch->last = ch->buf;
      ch->has_last = 1;
    } else {
      on_record(user, &ch->buf);
    }
  }
}

static void report_death(child *ch, int wstatus, int32_t timeout_s, conform_record_fn on_record,
                         void *user) {
  conform_record rec;
  memset(&rec, 0, sizeof rec);
  rec.group = ch->group;
  rec.status = CONFORM_ST_FAIL;
  if (ch->has_last) {
    memcpy(rec.op, ch->last.op, sizeof rec.op);
    memcpy(rec.dtype, ch->last.dtype, sizeof rec.dtype);
    memcpy(rec.sample, ch->last.sample, sizeof rec.sample);
  }
  if (ch->timed_out) {
    snprintf(rec.kind, sizeof rec.kind, "%s", CONFORM_K_TIMEOUT);
    snprintf(rec.detail, sizeof rec.detail, "timed out after %d s", (int)timeout_s);
  } else if (WIFSIGNALED(wstatus)) {
    int sig = WTERMSIG(wstatus);
    snprintf(rec.kind, sizeof rec.kind, "%s", CONFORM_K_CRASH);
    snprintf(rec.detail, sizeof rec.detail, "crashed with %s (signal %d)", signal_name(sig), sig);
  } else if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
    snprintf(rec.kind, sizeof rec.kind, "%s", CONFORM_K_CRASH);
    snprintf(rec.detail, sizeof rec.detail,
             "the process exited with status %d (a plugin must not call exit)",
             WEXITSTATUS(wstatus));
  } else {
    return;
  }
  if (ch->has_last && ch->last.detail[0]) {
    /* what the child was doing: a random call's arguments */
    size_t n = strlen(rec.detail);
    snprintf(rec.detail + n, sizeof rec.detail - n, "; in the call: %s(%s)", rec.op, ch->last.detail);
  }
  if (!rec.op[0]) snprintf(rec.op, sizeof rec.op, "(group %d)", (int)ch->group);
  on_record(user, &rec);
}

/* The SKIP record of a group the budget left unrun or unfinished. */
static void report_budget(int32_t group, int32_t budget_s, int started, conform_record_fn on_record,
                          void *user) {
  conform_record rec;
  memset(&rec, 0, sizeof rec);
  rec.group = group;
  rec.status = CONFORM_ST_SKIP;
  snprintf(rec.kind, sizeof rec.kind, "%s", CONFORM_K_BUDGET);
  snprintf(rec.detail, sizeof rec.detail, "%s: the run's time budget (--budget %d s) ran out",
           started ? "not finished" : "not run", (int)budget_s);
  on_record(user, &rec);
}

tabi_status conform_isolate_run(int32_t n, int32_t jobs, int32_t timeout_s, int32_t budget_s,
                                conform_group_fn fn, conform_record_fn on_record, void *user,
                                int32_t *out_unfinished) {
  if (jobs < 1) jobs = 1;
  if (timeout_s < 1) timeout_s = 60;
  int32_t unfinished = 0;
  int stopping = 0;
  double stop_at = budget_s > 0 ? now_s() + budget_s : 0;
  if (out_unfinished) *out_unfinished = 0;
  child *kids = calloc((size_t)jobs, sizeof *kids);
  struct pollfd *pfd = calloc((size_t)jobs, sizeof *pfd);
  if (!kids || !pfd) {
    free(kids);
    free(pfd);
    return TABI_ERR_OUT_OF_MEMORY;
  }
  int32_t next = 0, running = 0;
  fflush(NULL); /* children must not flush the parent's buffered output again */
  while (next < n || running > 0) {
    /* Start children while there are free slots. */
    while (next < n && running < jobs && !stopping) {
      int fds[2];
      if (pipe(fds) != 0) break;
      pid_t pid = fork();
      if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        break;
      }
      if (pid == 0) {
        close(fds[0]);
        signal(SIGPIPE, SIG_IGN);
        fn(user, next, fds[1]);
        close(fds[1]);
        _exit(0); /* the child's end: skip atexit handlers and stdio of the parent */
      }
      close(fds[1]);
      /* Non-blocking, so one slow child never stalls the others' pipes. */
      fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
      child *ch = NULL;
      for (int32_t k = 0; k < jobs; k++)
        if (kids[k].pid == 0) {
          ch = &kids[k];
          break;
        }
      memset(ch, 0, sizeof *ch);
      ch->pid = pid;
      ch->fd = fds[0];
      ch->group = next++;
      ch->deadline = now_s() + timeout_s;
      running++;
    }
    if (running == 0) break; /* could not fork at all, or the budget ran out */
    int32_t np = 0;
    int32_t map[256];
    for (int32_t k = 0; k < jobs && np < 256; k++)
      if (kids[k].pid > 0 && kids[k].fd >= 0) {
        pfd[np].fd = kids[k].fd;
        pfd[np].events = POLLIN;
        pfd[np].revents = 0;
        map[np++] = k;
      }
    poll(pfd, (nfds_t)np, 100);
    double t = now_s();
    if (stop_at > 0 && t > stop_at && !stopping) {
      stopping = 1;
      for (int32_t k = 0; k < jobs; k++)
        if (kids[k].pid > 0 && !kids[k].timed_out) {
          kids[k].stopped = 1;
          kill(kids[k].pid, SIGKILL);
        }
    }
    for (int32_t p = 0; p < np; p++) {
      child *ch = &kids[map[p]];
      if (pfd[p].revents & (POLLIN | POLLHUP | POLLERR)) {
        if (!drain(ch, on_record, user)) {
          close(ch->fd);
          ch->fd = -1;
        }
      }
    }
    for (int32_t k = 0; k < jobs; k++) {
      child *ch = &kids[k];
      if (ch->pid <= 0) continue;
      if (!ch->timed_out && t > ch->deadline) {
        ch->timed_out = 1;
        kill(ch->pid, SIGKILL);
      }
      int ws = 0;
      pid_t r = waitpid(ch->pid, &ws, ch->timed_out || ch->stopped ? 0 : WNOHANG);
      if (r == ch->pid) {
        if (ch->fd >= 0) {
          drain(ch, on_record, user);
          close(ch->fd);
        }
        /* a child that ended on its own before the kill landed is finished */
        if (ch->stopped && !(WIFEXITED(ws) && WEXITSTATUS(ws) == 0)) {
          report_budget(ch->group, budget_s, 1, on_record, user);
          unfinished++;
        } else {
          report_death(ch, ws, timeout_s, on_record, user);
        }
        ch->pid = 0;
        running--;
      }
    }
  }
  if (stopping)
    for (; next < n; next++, unfinished++) report_budget(next, budget_s, 0, on_record, user);
  if (out_unfinished) *out_unfinished = unfinished;
  free(kids);
  free(pfd);
  return next == n ? TABI_OK : TABI_ERR_INTERNAL;
}
