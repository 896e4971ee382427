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

void krt_stderr_logger(void *user_data, krt_log_level level, const char *message)
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
        log->logger.func = krt_stderr_logger;
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

void krt__warn(const krt__log *log, krt__warnings *warnings, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (krt__log_enabled(log, KRT_LOG_WARNING))
        log->logger.func(log->logger.user_data, KRT_LOG_WARNING, line);
    if (!warnings)
        return;
    char **lines = realloc(warnings->lines, (warnings->count + 1) * sizeof *lines);
    if (!lines)
        return;
    warnings->lines = lines;
    if ((lines[warnings->count] = strdup(line)) != NULL)
        warnings->count++;
}

void krt__warnings_free(krt__warnings *warnings)
{
    for (uint32_t i = 0; i < warnings->count; i++)
        free(warnings->lines[i]);
    free(warnings->lines);
    warnings->lines = NULL;
    warnings->count = 0;
}
