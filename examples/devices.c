/*
 * devices: listing and choosing devices from code. Lists every device krt can use (krt_device_list, the
 * two-call pattern), opens a context on each by its index and runs vadd there, checked against the host;
 * then chooses by kind ("cpu", "gpu"), by a piece of the name, and by default, and shows what a request
 * that matches nothing says. Every choice is checked against the list.
 *
 * usage: devices   (exits 1 when a result or a choice is wrong)
 */
#include "example.h"

#include <ctype.h>

/* Runs vadd over n elements on ctx and compares with the host. Returns 0 when right. */
static int run_vadd(krt_context *ctx, uint32_t n)
{
    krt_module *module = ex_module(ctx, "vadd.spv");
    krt_kernel *vadd = ex_kernel(module, "vadd");
    float *a = malloc(n * sizeof(float)), *c = malloc(n * sizeof(float));
    if (!a || !c) {
        fprintf(stderr, "devices: out of memory\n");
        exit(2);
    }
    for (uint32_t i = 0; i < n; i++)
        a[i] = (float)i;
    float *da = ex_alloc(ctx, n * sizeof(float)), *dc = ex_alloc(ctx, n * sizeof(float));
    EX_CHECK(krt_memcpy(ctx, NULL, da, a, n * sizeof(float)));
    krt_arg args[] = { KRT_ARG(da), KRT_ARG(da), KRT_ARG(dc), KRT_ARG(n) };
    EX_CHECK(krt_launch(vadd, &(krt_launch_desc){ .range = { 1, { n } }, .args = args, .num_args = 4 }));
    EX_CHECK(krt_memcpy(ctx, NULL, c, dc, n * sizeof(float)));
    EX_CHECK(krt_queue_synchronize(krt_context_default_queue(ctx)));
    int wrong = 0;
    for (uint32_t i = 0; i < n; i++)
        wrong += c[i] != 2.0f * (float)i;
    free(a);
    free(c);
    krt_module_destroy(module);
    return wrong;
}

static int same(const krt_device_info *a, const krt_device_info *b)
{
    return a->driver_index == b->driver_index && a->device_index == b->device_index;
}

/* Opens a context with desc.device = want. Returns the result; on success fills *chosen. */
static krt_result choose(const char *want, krt_device_info *chosen)
{
    krt_context *ctx = NULL;
    krt_result r = krt_context_create(&(krt_context_desc){ .device = want }, &ctx);
    if (r == KRT_SUCCESS) {
        EX_CHECK(krt_context_device_info(ctx, chosen));
        krt_context_destroy(ctx);
    }
    return r;
}

int main(void)
{
    int failed = 0;

    /* 1. The list: count first, then fill. */
    uint32_t count = 0;
    EX_CHECK(krt_device_list(NULL, &count));
    krt_device_info *devs = calloc(count ? count : 1, sizeof *devs);
    if (!devs)
        return 2;
    EX_CHECK(krt_device_list(devs, &count));
    printf("%u device%s:\n", count, count == 1 ? "" : "s");
    for (uint32_t i = 0; i < count; i++) {
        const krt_device_info *d = &devs[i];
        printf("  %u: %s\n     %s, driver %s, %u compute units, groups up to %u, %llu MiB, fp64 %s\n", i, d->name,
               krt_device_type_name(d->type), d->driver_name, d->compute_units, d->max_group_size,
               (unsigned long long)(d->memory_bytes >> 20), d->fp64 ? "yes" : "no");
    }

    /* 2. A context on each device by its index, and a kernel run there. */
    for (uint32_t i = 0; i < count; i++) {
        char index[16];
        snprintf(index, sizeof index, "%u", i);
        krt_context *ctx = NULL;
        EX_CHECK(krt_context_create(&(krt_context_desc){ .device = index }, &ctx));
        krt_device_info info;
        EX_CHECK(krt_context_device_info(ctx, &info));
        int wrong = run_vadd(ctx, 100003);
        int ok = same(&info, &devs[i]) && wrong == 0;
        failed += !ok;
        printf("device \"%s\": %s, vadd of 100003 floats: %d wrong: %s\n", index, info.name, wrong,
               ok ? "ok" : "FAILED");
        krt_context_destroy(ctx);
    }

    /* 3. By kind: the first device of that type, "cpu:1" the second; KRT_ERROR_NO_DEVICE when there is none. */
    const char *kinds[] = { "cpu", "gpu", "cpu:1" };
    const krt_device_type types[] = { KRT_DEVICE_TYPE_CPU, KRT_DEVICE_TYPE_GPU, KRT_DEVICE_TYPE_CPU };
    const uint32_t nths[] = { 0, 0, 1 };
    for (int k = 0; k < 3; k++) {
        int want = -1;
        for (uint32_t i = 0, seen = 0; i < count && want < 0; i++)
            if (devs[i].type == types[k] && seen++ == nths[k])
                want = (int)i;
        krt_device_info got;
        krt_result r = choose(kinds[k], &got);
        int ok = want < 0 ? r == KRT_ERROR_NO_DEVICE : r == KRT_SUCCESS && same(&got, &devs[want]);
        failed += !ok;
        if (r == KRT_SUCCESS)
            printf("device \"%s\": %s: %s\n", kinds[k], got.name, ok ? "ok" : "FAILED");
        else
            printf("device \"%s\": %s: %s\n  %s\n", kinds[k], krt_result_name(r), ok ? "ok, there is none" : "FAILED",
                   krt_last_error_message());
    }

    /* 4. By a piece of the name: the first word of device 0's name, any case. */
    char word[64];
    size_t len = 0;
    while (devs[0].name[len] && isalnum((unsigned char)devs[0].name[len]) && len < sizeof word - 1) {
        word[len] = (char)toupper((unsigned char)devs[0].name[len]);
        len++;
    }
    word[len] = '\0';
    if (len > 0) {
        krt_device_info got;
        krt_result r = choose(word, &got);
        int ok = r == KRT_SUCCESS && strncasecmp(got.name, word, len) == 0;
        failed += !ok;
        printf("device \"%s\": %s: %s\n", word, r == KRT_SUCCESS ? got.name : krt_result_name(r), ok ? "ok" : "FAILED");
    }

    /* 5. By default (no .device, no KRT_DEVICE): the first GPU, else the first device. */
    if (!getenv("KRT_DEVICE")) {
        krt_device_info got;
        krt_result r = choose(NULL, &got);
        uint32_t want = 0;
        for (uint32_t i = count; i-- > 0;)
            if (devs[i].type == KRT_DEVICE_TYPE_GPU)
                want = i;
        int ok = r == KRT_SUCCESS && same(&got, &devs[want]);
        failed += !ok;
        printf("device NULL (the default): %s: %s\n", r == KRT_SUCCESS ? got.name : krt_result_name(r),
               ok ? "ok" : "FAILED");
    }

    /* 6. A request that matches nothing: the message lists what there is. */
    krt_device_info got;
    krt_result r = choose("no-such-device", &got);
    int ok = r == KRT_ERROR_NO_DEVICE && strstr(krt_last_error_message(), "the devices are:") != NULL;
    failed += !ok;
    printf("device \"no-such-device\": %s: %s\n  %s\n", krt_result_name(r), ok ? "ok" : "FAILED",
           krt_last_error_message());

    free(devs);
    printf("%s\n", failed ? "FAILED" : "ok: every device and every choice checked");
    return failed ? 1 : 0;
}
