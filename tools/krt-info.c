/*
 * krt-info: what krt sees, like clinfo for krt.
 *
 *   krt-info                          the drivers krt tried (with why one has no device), then every device:
 *                                     limits and the driver's extension list
 *   krt-info [options] file.spv       the module's kernels: each argument's kind and type, the kernel's
 *                                     properties, and the launch configuration krt would choose
 * options:
 *   --ndrange X[xY[xZ]]   the range for the launch configuration (default 1048576, or 1024x1024 for a kernel
 *                         that requires a 2-D group)
 *   --device D            a device kind (cpu, gpu, cpu:1), index or name substring, as KRT_DEVICE;
 *                         without a file, only that device is listed
 *   --kernel NAME         only this kernel
 *   krt-info --tune [options] file.spv
 *                         krt_kernel_tune for each kernel over --ndrange (default 1048576) with stand-in
 *                         arguments (tune_kernel says which), printing the rule's group and time against the
 *                         fastest candidate's; --samples N per candidate (default 3), --wisdom FILE saves the
 *                         wisdom (KRT_WISDOM=FILE does too, at exit)
 *
 * Exit status: 0 when everything could be answered; 1 when the file is missing, not SPIR-V or rejected, or
 * no device is usable; 2 on a usage error.
 */
#include <krt.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "krt-info";

static int fail(const char *what, krt_result r)
{
    fprintf(stderr, "%s: %s: %s (%s)\n", prog, what, krt_result_name(r), krt_result_string(r));
    const char *detail = krt_last_error_message();
    if (detail && detail[0])
        fprintf(stderr, "%s\n", detail);
    return 1;
}

static void print_triple(const char *label, const uint32_t v[3])
{
    if (v[0] == 0 && v[1] == 0 && v[2] == 0)
        printf("  %-22s none\n", label);
    else
        printf("  %-22s %u x %u x %u\n", label, v[0], v[1], v[2]);
}

/* Parses "X", "XxY" or "XxYxZ" into range. Returns 0 on success. */
static int parse_ndrange(const char *s, krt_ndrange *range)
{
    memset(range, 0, sizeof *range);
    const char *p = s;
    for (uint32_t d = 0; d < 3; d++) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (end == p || errno || v == 0 || *p == '-')
            return -1;
        range->size[d] = v;
        range->dims = d + 1;
        if (*end == '\0')
            return 0;
        if (*end != 'x' && *end != 'X')
            return -1;
        p = end + 1;
    }
    return -1;
}

/* The index in krt_device_list of the device a context on `device` chooses: krt's own choice, so that
 * `krt-info --device cpu` shows the device `KRT_DEVICE=cpu` gives a program. -1 (and the message) on failure. */
static int chosen_index(const char *device, const krt_device_info *infos, uint32_t count)
{
    krt_context_desc desc = { .device = device };
    krt_context *ctx = NULL;
    krt_result r = krt_context_create(&desc, &ctx);
    if (r != KRT_SUCCESS) {
        fail("no such device", r);
        return -1;
    }
    krt_device_info d;
    r = krt_context_device_info(ctx, &d);
    krt_context_destroy(ctx);
    if (r != KRT_SUCCESS) {
        fail("cannot read the device", r);
        return -1;
    }
    for (uint32_t i = 0; i < count; i++)
        if (infos[i].driver_index == d.driver_index && infos[i].device_index == d.device_index)
            return (int)i;
    return -1;
}

/* The drivers krt tried and what became of each (krt_driver_list): a driver with no device is in no device list,
 * so this is where a missing GPU says why. */
static void list_drivers(void)
{
    uint32_t count = 0;
    krt_driver_info *d = NULL;
    if (krt_driver_list(NULL, &count) != KRT_SUCCESS || !(d = calloc(count ? count : 1, sizeof *d)) ||
        krt_driver_list(d, &count) != KRT_SUCCESS) {
        free(d);
        return;
    }
    printf("drivers krt tried\n");
    for (uint32_t i = 0; i < count; i++) {
        char what[32];
        const char *detail = d[i].reason;
        switch (d[i].status) {
        case KRT_DRIVER_STATUS_DEVICES:
            snprintf(what, sizeof what, "%u device%s", d[i].num_devices, d[i].num_devices == 1 ? "" : "s");
            detail = d[i].path[0] ? d[i].path : "in libkrt";
            break;
        case KRT_DRIVER_STATUS_NOT_FOUND:
            snprintf(what, sizeof what, "not found");
            if (strstr(detail, "No such file"))
                detail = "";
            break;
        case KRT_DRIVER_STATUS_LOADED:
            snprintf(what, sizeof what, "loaded");
            detail = "not one of krt's drivers: its devices are listed below";
            break;
        default:
            snprintf(what, sizeof what, "%s", krt_driver_status_name(d[i].status));
            break;
        }
        if (detail[0])
            printf("  %-22s %-10s %s\n", d[i].name, what, detail);
        else
            printf("  %-22s %s\n", d[i].name, what);
    }
    printf("\n");
    free(d);
}

static int list_devices(const char *device)
{
    uint32_t count = 0;
    krt_result r = krt_device_list(NULL, &count);
    if (r != KRT_SUCCESS)
        return fail("cannot list devices", r);
    krt_device_info *infos = calloc(count ? count : 1, sizeof *infos);
    if (!infos)
        return fail("cannot list devices", KRT_ERROR_OUT_OF_HOST_MEMORY);
    r = krt_device_list(infos, &count);
    if (r != KRT_SUCCESS) {
        free(infos);
        return fail("cannot list devices", r);
    }
    int only = -1;
    if (device && (only = chosen_index(device, infos, count)) < 0) {
        free(infos);
        return 1;
    }
    if (only < 0) {
        list_drivers();
        printf("%u device%s\n", count, count == 1 ? "" : "s");
    }
    int status = count ? 0 : 1;
    for (uint32_t i = 0; i < count; i++) {
        if (only >= 0 && i != (uint32_t)only)
            continue;
        const krt_device_info *d = &infos[i];
        printf("\ndevice %u: %s\n", i, d->name);
        printf("  %-22s %s (driver %u, device %u), Level Zero API %u.%u, version %u\n", "driver", d->driver_name,
               d->driver_index, d->device_index, d->api_version_major, d->api_version_minor, d->driver_version);
        printf("  %-22s %s, vendor 0x%04x\n", "type", krt_device_type_name(d->type), d->vendor_id);
        printf("  %-22s %u at %u MHz\n", "compute units", d->compute_units, d->clock_mhz);
        printf("  %-22s %llu MiB, %s\n", "memory", (unsigned long long)(d->memory_bytes >> 20),
               d->device_memory_host_accessible ? "host-accessible" : "device only (stage through host memory)");
        printf("  %-22s %u\n", "max group size", d->max_group_size);
        print_triple("max group", d->max_group);
        print_triple("max group count", d->max_group_count);
        printf("  %-22s %u bytes\n", "local memory", d->max_shared_local_memory);
        printf("  %-22s", "sub-group sizes");
        for (uint32_t s = 0; s < d->num_sub_group_sizes && s < 8; s++)
            printf(" %u", d->sub_group_sizes[s]);
        printf("%s\n", d->num_sub_group_sizes ? "" : " none reported");
        printf("  %-22s fp16 %s, fp64 %s, int64 atomics %s\n", "features", d->fp16 ? "yes" : "no",
               d->fp64 ? "yes" : "no", d->int64_atomics ? "yes" : "no");

        /* The extension list belongs to a context, so open one on this device by its index. */
        char index[16];
        snprintf(index, sizeof index, "%u", i);
        krt_context_desc desc = { .device = index };
        krt_context *ctx = NULL;
        r = krt_context_create(&desc, &ctx);
        if (r != KRT_SUCCESS) {
            status = fail("cannot open a context on this device", r);
            continue;
        }
        uint32_t n = 0;
        const char **names = NULL;
        r = krt_context_extensions(ctx, NULL, &n);
        if (r == KRT_SUCCESS && (names = calloc(n ? n : 1, sizeof *names)) != NULL)
            r = krt_context_extensions(ctx, names, &n);
        if (r != KRT_SUCCESS || !names) {
            status = fail("cannot read the extension list", r != KRT_SUCCESS ? r : KRT_ERROR_OUT_OF_HOST_MEMORY);
        } else {
            printf("  %-22s %u\n", "extensions", n);
            for (uint32_t e = 0; e < n; e++)
                printf("    %s\n", names[e]);
        }
        free(names);
        krt_context_destroy(ctx);
    }
    free(infos);
    return status;
}

static int show_kernel(krt_module *module, const char *name, const krt_ndrange *user_range)
{
    krt_kernel_info info;
    krt_result r = krt_module_kernel_info(module, name, &info);
    if (r != KRT_SUCCESS)
        return fail(name, r);
    printf("\nkernel %s: %u argument%s\n", name, info.num_args, info.num_args == 1 ? "" : "s");
    for (uint32_t i = 0; i < info.num_args; i++) {
        krt_arg_info a;
        r = krt_module_arg_info(module, name, i, &a);
        if (r != KRT_SUCCESS)
            return fail(name, r);
        char type[32] = "";
        if (a.type != KRT_TYPE_NONE) {
            if (a.vector_width > 1)
                snprintf(type, sizeof type, "%s x %u", krt_scalar_type_name(a.type), a.vector_width);
            else
                snprintf(type, sizeof type, "%s", krt_scalar_type_name(a.type));
        }
        /* The last column: the type as the kernel declares it, when the module keeps it (krt-cc's modules do);
         * SPIR-V's own types say int32 for int and uint alike. */
        printf("  %u %-10s %-18s %-12s %2u bytes%s%s\n", i, a.name && a.name[0] ? a.name : "-",
               krt_arg_kind_name(a.kind), type[0] ? type : "-", a.size, a.type_name && a.type_name[0] ? "   " : "",
               a.type_name ? a.type_name : "");
    }
    print_triple("required group size", info.required_group);
    print_triple("group size hint", info.group_hint);
    if (info.uses_static_local)
        printf("  %-22s %s%s\n", "static __local", info.local_vars[0] ? info.local_vars : "(unnamed)",
               info.uses_barrier ? ", shared across barriers" : "");
    /* Who picks the group when the caller gives none (krt.h, krt_launch_config_get). */
    printf("  %-22s %s\n", "group chosen by",
           info.required_group[0] ? "the kernel (reqd_work_group_size)"
           : info.group_dependent ? "the caller: the result may depend on the group (its __local memory is shared "
                                    "across barriers); KRT_ANY_GROUP or krt_kernel_set_any_group lets krt choose"
           : info.any_group       ? "krt (the kernel is marked KRT_ANY_GROUP)"
                                  : "krt");

    krt_kernel *kernel = NULL;
    r = krt_kernel_get(module, name, &kernel);
    if (r != KRT_SUCCESS)
        return fail(name, r);
    krt_kernel_properties p;
    r = krt_kernel_properties_get(kernel, &p);
    if (r != KRT_SUCCESS)
        return fail(name, r);
    printf("  %-22s %u (%s)\n", "max group size", p.max_group_size,
           p.max_group_size_from_extension ? "from the kernel, by the extension" : "the device's limit");
    printf("  %-22s %u\n", "preferred multiple", p.preferred_multiple);
    printf("  %-22s %u bytes per group\n", "local memory", p.local_mem_size);
    printf("  %-22s %u bytes per work-item\n", "private memory", p.private_mem_size);
    printf("  %-22s %u bytes per work-item\n", "spill memory", p.spill_mem_size);

    krt_ndrange range = { .dims = 1, .size = { 1048576 } };
    if (user_range) {
        range = *user_range;
    } else if (info.required_group[2] > 1) {
        range = (krt_ndrange){ .dims = 3, .size = { 128, 128, 64 } };
    } else if (info.required_group[1] > 1) {
        range = (krt_ndrange){ .dims = 2, .size = { 1024, 1024 } };
    }
    krt_launch_config c;
    r = krt_launch_config_get(kernel, &range, &c);
    char rs[96];
    if (range.dims <= 1)
        snprintf(rs, sizeof rs, "%llu", (unsigned long long)range.size[0]);
    else if (range.dims == 2)
        snprintf(rs, sizeof rs, "%llu x %llu", (unsigned long long)range.size[0], (unsigned long long)range.size[1]);
    else
        snprintf(rs, sizeof rs, "%llu x %llu x %llu", (unsigned long long)range.size[0],
                 (unsigned long long)range.size[1], (unsigned long long)range.size[2]);
    if (r != KRT_SUCCESS) {
        /* A range the kernel cannot take (say, 1-D for a kernel that requires a 2-D group) is an answer, not
         * a failure of the file. */
        printf("  launch over %s: %s: %s\n", rs, krt_result_name(r), krt_last_error_message());
        return 0;
    }
    printf("  launch over %s:\n", rs);
    printf("    %-20s %u x %u x %u\n", "group", c.group[0], c.group[1], c.group[2]);
    /* A range smaller than the group runs one partial group, of the range's size (krt.h, the launch contract). */
    char partial[200] = "";
    if (c.masked && c.groups[0] == 1 && c.groups[1] == 1 && c.groups[2] == 1)
        snprintf(partial, sizeof partial, " (one partial group: %s of its %u x %u x %u work-items run)", rs, c.group[0],
                 c.group[1], c.group[2]);
    else if (c.masked)
        snprintf(partial, sizeof partial, " (the last ones partial)");
    printf("    %-20s %u x %u x %u%s\n", "groups", c.groups[0], c.groups[1], c.groups[2], partial);
    printf("    %-20s %s\n", "decided by", krt_limit_name(c.limit));
    printf("    %-20s max group %u, preferred multiple %u, spill %u bytes per work-item\n", "from",
           c.max_group_size, c.preferred_multiple, c.spill_mem_size);
    return 0;
}

/* --tune: krt_kernel_tune with stand-in arguments. Each global or constant pointer gets a zeroed shared buffer of
 * 64 bytes per work-item of the range; integer scalars get the range's sizes in order (x, y, z, then 1), so a
 * kernel that guards with its size arguments stays in bounds; floating scalars 0.5; __local arguments 16 bytes
 * per work-item of the candidate group. Kernels with struct or other arguments are skipped. */
static int tune_kernel(krt_context *ctx, krt_module *module, const char *name, const krt_ndrange *range,
                       uint32_t samples)
{
    krt_kernel_info info;
    krt_kernel *kernel;
    krt_result r = krt_module_kernel_info(module, name, &info);
    if (r == KRT_SUCCESS)
        r = krt_kernel_get(module, name, &kernel);
    if (r != KRT_SUCCESS)
        return fail(name, r);
    if (info.num_args > 32) {
        printf("%-24s skipped: %u arguments\n", name, info.num_args);
        return 0;
    }
    uint64_t items = range->size[0] * (range->dims > 1 ? range->size[1] : 1) * (range->dims > 2 ? range->size[2] : 1);
    krt_arg args[32];
    void *bufs[32];
    unsigned char values[32][16];
    uint32_t nbufs = 0, ints = 0;
    int status = 0;
    memset(values, 0, sizeof values);
    for (uint32_t i = 0; i < info.num_args && status == 0; i++) {
        krt_arg_info a;
        if ((r = krt_module_arg_info(module, name, i, &a)) != KRT_SUCCESS)
            return fail(name, r);
        if (a.kind == KRT_ARG_GLOBAL_POINTER || a.kind == KRT_ARG_CONSTANT_POINTER) {
            krt_alloc_desc ad = { .kind = KRT_MEMORY_SHARED };
            size_t bytes = (size_t)(items * 64);
            if ((r = krt_alloc(ctx, bytes, &ad, &bufs[nbufs])) != KRT_SUCCESS) {
                status = fail(name, r);
                break;
            }
            memset(bufs[nbufs], 0, bytes);
            args[i] = (krt_arg){ .value = &bufs[nbufs], .size = sizeof(void *), .type = KRT_ARG_TYPE_POINTER };
            nbufs++;
        } else if (a.kind == KRT_ARG_LOCAL_POINTER) {
            args[i] = KRT_ARG_LOCAL(16);
        } else if (a.kind == KRT_ARG_SCALAR && a.size <= sizeof values[i]) {
            if (a.vector_width == 1 && a.type >= KRT_TYPE_INT8 && a.type <= KRT_TYPE_INT64) {
                uint64_t v = ints < range->dims ? range->size[ints] : 1;
                ints++;
                memcpy(values[i], &v, a.size); /* little-endian: the low bytes */
            } else if (a.vector_width == 1 && a.type == KRT_TYPE_FLOAT32) {
                float f = 0.5f;
                memcpy(values[i], &f, sizeof f);
            } else if (a.vector_width == 1 && a.type == KRT_TYPE_FLOAT64) {
                double f = 0.5;
                memcpy(values[i], &f, sizeof f);
            }
            args[i] = (krt_arg){ .value = values[i], .size = a.size }; /* bytes from reflection: untyped */
        } else {
            printf("%-24s skipped: argument %u is a %s\n", name, i, krt_arg_kind_name(a.kind));
            for (uint32_t b = 0; b < nbufs; b++)
                krt_free(ctx, bufs[b]);
            return 0;
        }
    }
    if (status == 0) {
        krt_launch_desc d = { .range = *range, .args = args, .num_args = info.num_args };
        krt_tune_desc t = { .samples = samples, .local_bytes_per_item = 16 };
        krt_tune_result res;
        r = krt_kernel_tune(kernel, &d, &t, &res);
        if (r != KRT_SUCCESS) {
            status = fail(name, r);
        } else if (res.candidates == 0) {
            printf("%-24s %-16s nothing to tune: required size %u x %u x %u\n", name, "",
                   res.group[0], res.group[1], res.group[2]);
        } else {
            char rg[48], tg[48];
            snprintf(rg, sizeof rg, "%ux%ux%u", res.rule_group[0], res.rule_group[1], res.rule_group[2]);
            snprintf(tg, sizeof tg, "%ux%ux%u", res.group[0], res.group[1], res.group[2]);
            printf("%-24s %-16s %10.1f %-16s %10.1f %7.3f %10u\n", name, rg, res.rule_ns / 1e3, tg,
                   res.best_ns / 1e3, res.rule_ns / res.best_ns, res.candidates);
        }
    }
    for (uint32_t b = 0; b < nbufs; b++)
        krt_free(ctx, bufs[b]);
    return status;
}

/* The context on the device, the module at path and its kernel names (the caller frees names and destroys the
 * context, which destroys the module). Returns 0, or the exit status after saying what failed. */
static int open_module(const char *path, const char *device, krt_context **ctx, krt_module **module,
                       const char ***names, uint32_t *n)
{
    krt_context_desc cdesc = { .device = device };
    krt_result r = krt_context_create(&cdesc, ctx);
    if (r != KRT_SUCCESS)
        return fail("cannot create a context", r);
    krt_module_desc mdesc = { .path = path };
    if ((r = krt_module_create(*ctx, &mdesc, module)) != KRT_SUCCESS) {
        fail(path, r);
        krt_context_destroy(*ctx);
        return 1;
    }
    *n = 0;
    *names = NULL;
    r = krt_module_kernel_names(*module, NULL, n);
    if (r == KRT_SUCCESS && (*names = calloc(*n ? *n : 1, sizeof **names)) != NULL)
        r = krt_module_kernel_names(*module, *names, n);
    if (r != KRT_SUCCESS || !*names) {
        free(*names);
        krt_context_destroy(*ctx);
        return fail(path, r != KRT_SUCCESS ? r : KRT_ERROR_OUT_OF_HOST_MEMORY);
    }
    return 0;
}

static int tune_module(const char *path, const char *device, const char *only, const krt_ndrange *range,
                       uint32_t samples, const char *wisdom)
{
    krt_context *ctx = NULL;
    krt_module *module = NULL;
    const char **names = NULL;
    uint32_t n = 0;
    int opened = open_module(path, device, &ctx, &module, &names, &n);
    if (opened != 0)
        return opened;
    char rs[96];
    snprintf(rs, sizeof rs, "%llu x %llu x %llu", (unsigned long long)range->size[0],
             (unsigned long long)(range->dims > 1 ? range->size[1] : 1),
             (unsigned long long)(range->dims > 2 ? range->size[2] : 1));
    printf("%s: tuning over %s, %u sample%s per candidate, stand-in arguments (wall time per launch, us)\n", path,
           rs, samples, samples == 1 ? "" : "s");
    printf("%-24s %-16s %10s %-16s %10s %7s %10s\n", "kernel", "rule group", "rule us", "tuned group", "tuned us",
           "speedup", "candidates");
    int status = 0, found = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (only && strcmp(only, names[i]) != 0)
            continue;
        found = 1;
        status |= tune_kernel(ctx, module, names[i], range, samples);
    }
    if (only && !found) {
        fprintf(stderr, "%s: %s has no kernel '%s'\n", prog, path, only);
        status = 1;
    }
    if (wisdom && status == 0) {
        krt_result r = krt_wisdom_save(ctx, wisdom);
        if (r != KRT_SUCCESS)
            status = fail(wisdom, r);
        else
            printf("wisdom saved to %s\n", wisdom);
    }
    free(names);
    krt_context_destroy(ctx);
    return status;
}

static int show_module(const char *path, const char *device, const char *only, const krt_ndrange *range)
{
    krt_context *ctx = NULL;
    krt_module *module = NULL;
    const char **names = NULL;
    uint32_t n = 0;
    int opened = open_module(path, device, &ctx, &module, &names, &n);
    if (opened != 0)
        return opened;
    krt_device_info d;
    if (krt_context_device_info(ctx, &d) != KRT_SUCCESS)
        d.name[0] = '\0';
    printf("%s: %u kernel%s, built for %s\n", path, n, n == 1 ? "" : "s", d.name);
    /* The load's warnings (a module accepted despite a structured-order rule), which would otherwise reach
     * only a logger. */
    krt_module_info minfo;
    if (krt_module_info_get(module, &minfo) == KRT_SUCCESS)
        for (uint32_t w = 0; w < minfo.num_warnings; w++) {
            /* The validator's diagnostic spans lines (the message, then the instruction): indent the rest. */
            const char *line = minfo.warnings[w];
            const char *lead = "  warning: ";
            while (*line) {
                size_t len = strcspn(line, "\n");
                if (len > 0) {
                    printf("%s%.*s\n", lead, (int)len, line);
                    lead = "           ";
                }
                line += len + (line[len] == '\n');
            }
        }
    int status = 0, found = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (only && strcmp(only, names[i]) != 0)
            continue;
        found = 1;
        status |= show_kernel(module, names[i], range);
    }
    if (only && !found) {
        fprintf(stderr, "%s: %s has no kernel '%s'\n", prog, path, only);
        status = 1;
    }
    free(names);
    krt_context_destroy(ctx);
    return status;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: %s                       list drivers, devices, limits and extensions\n"
            "       %s [options] file.spv    list the module's kernels, arguments, properties and the\n"
            "                                launch configuration krt would choose\n"
            "       %s --tune [options] file.spv   time every candidate group of each kernel over the\n"
            "                                range (stand-in arguments) and print the rule's and the best\n"
            "options: --ndrange X[xY[xZ]]  --device cpu|gpu|INDEX|NAME  --kernel NAME\n"
            "         --samples N (--tune; default 3)  --wisdom FILE (--tune: save the wisdom there)\n",
            prog, prog, prog);
    return 2;
}

int main(int argc, char **argv)
{
    const char *path = NULL, *device = NULL, *only = NULL, *wisdom = NULL;
    krt_ndrange range;
    int have_range = 0, tune = 0;
    long samples = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            return 0;
        } else if (strcmp(a, "--ndrange") == 0 && i + 1 < argc) {
            if (parse_ndrange(argv[++i], &range) != 0) {
                fprintf(stderr, "%s: --ndrange wants X, XxY or XxYxZ with positive sizes, not '%s'\n", prog,
                        argv[i]);
                return 2;
            }
            have_range = 1;
        } else if (strcmp(a, "--device") == 0 && i + 1 < argc) {
            device = argv[++i];
        } else if (strcmp(a, "--kernel") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(a, "--tune") == 0) {
            tune = 1;
        } else if (strcmp(a, "--wisdom") == 0 && i + 1 < argc) {
            wisdom = argv[++i];
        } else if (strcmp(a, "--samples") == 0 && i + 1 < argc) {
            char *end;
            samples = strtol(argv[++i], &end, 10);
            if (*end || samples < 1 || samples > 1000) {
                fprintf(stderr, "%s: --samples wants 1..1000, not '%s'\n", prog, argv[i]);
                return 2;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage();
        } else if (!path) {
            path = a;
        } else {
            return usage();
        }
    }
    if (!path)
        return tune || wisdom ? usage() : list_devices(device);
    if (tune) {
        krt_ndrange def = { .dims = 1, .size = { 1048576 } };
        return tune_module(path, device, only, have_range ? &range : &def, (uint32_t)samples, wisdom);
    }
    if (wisdom)
        return usage();
    return show_module(path, device, only, have_range ? &range : NULL);
}
