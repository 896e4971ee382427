/*
 * log.c: krt's only way to say something. Lines go to the logger of the context descriptor; KRT_TRACE=1
 * installs a stderr logger when none was given. Nothing else in the library prints.
 */
#include "krt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *level_name(krt_log_level level)
{
    switch (level) {
    case KRT_LOG_ERROR:
        return "error";
    case KRT_LOG_WARNING:
        return "warning";
    case KRT_LOG_INFO:
        return "info";
    case KRT_LOG_TRACE:
        return "trace";
    }
    return "log";
}

static void stderr_logger(void *user_data, krt_log_level level, const char *message)
{
    KRT__UNUSED(user_data);
    /* One fprintf per line so that lines of concurrent threads do not interleave (stdio locks the stream). */
    fprintf(stderr, "krt %s: %s\n", level_name(level), message);
}

int krt__env_flag(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && strcmp(v, "1") == 0;
}

void krt__log_init(krt__log *log, const krt_logger *user)
{
    memset(log, 0, sizeof *log);
    int trace = krt__env_flag("KRT_TRACE");
    if (user != NULL && user->func != NULL) {
        log->logger = *user;
        /* KRT_TRACE=1 asks for the per-launch lines whatever level the program chose. */
        if (trace)
            log->logger.max_level = KRT_LOG_TRACE;
    } else if (trace) {
        log->logger.func = stderr_logger;
        log->logger.max_level = KRT_LOG_TRACE;
    }
}

void krt__logf(const krt__log *log, krt_log_level level, const char *fmt, ...)
{
    if (!krt__log_enabled(log, level))
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    log->logger.func(log->logger.user_data, level, line);
}
