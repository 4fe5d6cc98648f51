// Children that die with their parent.
//
// PR_SET_PDEATHSIG fires when the *thread* that forked the child ends, not the process. Swift's
// and Dispatch's worker threads come and go, so a child forked from one of them would be killed
// the next time its pool shrinks. Every fork therefore happens on one spawner thread that this
// file starts once and never ends; callers hand it a request and wait for the answer.
//
// Between fork and exec the child calls only async-signal-safe functions: it is a copy of a
// multi-threaded process, whose other threads (and their locks) did not come along.
#define _GNU_SOURCE
#include "CProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct request {
    const char *path;
    char *const *argv;
    char *const *envp;
    int output_fd;
    int nice_increment;
    pid_t pid;
    int error;
    int done;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static struct request *pending;  // the request the spawner thread takes next
static pthread_once_t started = PTHREAD_ONCE_INIT;
static int start_error;

/// Closes every descriptor from `low` up, except `keep`.
static void close_from(int low, int keep) {
    for (int fd = low; fd < keep; fd++) (void)close(fd);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)keep + 1, ~0U, 0) == 0) return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536) max = 65536;
    for (int fd = keep + 1; fd < max; fd++) (void)close(fd);
}

/// In the child: everything up to exec. Reports a failure's errno on `report` and exits.
static void become_child(const struct request *r, pid_t parent, int report) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) goto fail;
    // The parent may have died between fork and prctl: then nothing would kill us later.
    if (getppid() != parent) _exit(127);
    if (setpgid(0, 0) != 0) goto fail;
    struct sigaction dfl = {0};
    dfl.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++) {
        if (s != SIGKILL && s != SIGSTOP) (void)sigaction(s, &dfl, NULL);
    }
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) != 0) goto fail;
    if (r->nice_increment != 0) {
        errno = 0;
        if (nice(r->nice_increment) == -1 && errno != 0) goto fail;
    }
    int null = open("/dev/null", O_RDONLY);
    if (null < 0) goto fail;
    if (dup2(null, 0) < 0 || dup2(r->output_fd, 1) < 0 || dup2(r->output_fd, 2) < 0) goto fail;
    // Move the report pipe above the standard descriptors, then close all others.
    int moved = fcntl(report, F_DUPFD_CLOEXEC, 3);
    if (moved < 0) goto fail;
    report = moved;
    close_from(3, report);
    execve(r->path, r->argv, r->envp);
fail:;
    int code = errno;
    ssize_t ignored = write(report, &code, sizeof code);
    (void)ignored;
    _exit(127);
}

/// Forks and execs one request; returns 0 or an errno value.
static int spawn_now(struct request *r) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return errno;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int code = errno;
        close(report[0]);
        close(report[1]);
        return code;
    }
    if (pid == 0) {
        close(report[0]);
        become_child(r, parent, report[1]);
    }
    close(report[1]);
    // The write end closes on exec (O_CLOEXEC): EOF means the program is running.
    int code = 0;
    ssize_t got;
    do {
        got = read(report[0], &code, sizeof code);
    } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof code) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        return code != 0 ? code : ECHILD;
    }
    r->pid = pid;
    return 0;
}

static void *spawner_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (pending == NULL) pthread_cond_wait(&changed, &lock);
        struct request *r = pending;
        pending = NULL;
        pthread_mutex_unlock(&lock);
        int error = spawn_now(r);
        pthread_mutex_lock(&lock);
        r->error = error;
        r->done = 1;
        pthread_cond_broadcast(&changed);
    }
    return NULL;
}

static void start_spawner(void) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    // Block every signal on the spawner: signals for the process go to other threads.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pthread_t thread;
    start_error = pthread_create(&thread, &attributes, spawner_main, NULL);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    pthread_attr_destroy(&attributes);
}

int ct_spawn(const char *path, char *const argv[], char *const envp[], int nice_increment, pid_t *pid,
             int *output) {
    pthread_once(&started, start_spawner);
    if (start_error != 0) return start_error;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return errno;
    struct request r = {path, argv, envp, fds[1], nice_increment, 0, 0, 0};
    pthread_mutex_lock(&lock);
    while (pending != NULL) pthread_cond_wait(&changed, &lock);
    pending = &r;
    pthread_cond_broadcast(&changed);
    while (!r.done) pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    close(fds[1]);
    if (r.error != 0) {
        close(fds[0]);
        return r.error;
    }
    *pid = r.pid;
    *output = fds[0];
    return 0;
}
