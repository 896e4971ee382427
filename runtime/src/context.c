/*
 * context.c: process start-up (zeInit once, with krt's embedded driver default), the device list, the
 * choice of a device, and the context's life.
 */
#include "krt_internal.h"
#include "../../driver/include/ze_krt_driver_status.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef KRT_LIBDIR
#define KRT_LIBDIR "/usr/local/lib"
#endif

/* The loader's own default list, kept when krt adds ze_pocl, so that a machine with a GPU still gets it. */
static const char *const gpu_driver_names = "libze_intel_gpu.so.1,libze_intel_vpu.so.1";

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static ze_result_t init_result = ZE_RESULT_ERROR_UNINITIALIZED;
static char init_driver_note[3 * PATH_MAX + 128];
/* The comma-separated list of driver libraries zeInit was given (or the loader's own default), for
 * krt_driver_list. */
static char init_driver_list[4 * PATH_MAX];

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned live_contexts;

/* Where a driver of the project (libze_pocl.so, libze_cuda.so) sits beside libkrt: the directory of the object
 * holding this code (libkrt.so, or the program a static libkrt.a was linked into), then the configured library
 * directory. */
static int find_beside(const char *lib, char *out, size_t size)
{
    Dl_info info;
    if (dladdr((void *)&find_beside, &info) && info.dli_fname && info.dli_fname[0] == '/') {
        char buf[PATH_MAX];
        snprintf(buf, sizeof buf, "%s", info.dli_fname);
        const char *dir = dirname(buf);
        char real[PATH_MAX];
        if (realpath(dir, real)) /* build/bin/../lib, where a program's rpath is $ORIGIN/../lib: build/lib */
            dir = real;
        if (dir[0] != '\0') {
            int n = snprintf(out, size, "%s/%s", dir, lib);
            if (n > 0 && (size_t)n < size && access(out, R_OK) == 0)
                return 1;
        }
    }
    int n = snprintf(out, size, "%s/%s", KRT_LIBDIR, lib);
    return n > 0 && (size_t)n < size && access(out, R_OK) == 0;
}

static int find_ze_pocl(char *out, size_t size)
{
    return find_beside("libze_pocl.so", out, size);
}

/* The user's ZE_ENABLE_ALT_DRIVERS without empty entries (leading, trailing or doubled commas), which would
 * make the loader dlopen("") (the program itself) and recurse until the stack overflows. Returns 0 when
 * nothing is left. */
static int clean_driver_list(const char *in, char *out, size_t size)
{
    size_t o = 0;
    for (const char *p = in; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 0 && o + len + 2 <= size) {
            if (o)
                out[o++] = ',';
            memcpy(out + o, p, len);
            o += len;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    out[o] = '\0';
    return o > 0;
}

static void init_process(void)
{
    /* When the variable is unset, krt lists the loader's default GPU driver names (the variable replaces that
     * list) and the ze_pocl found beside libkrt. A user's setting is used as it is, except that empty entries
     * are dropped (an empty or all-empty value counts as unset), because the loader crashes on them. Every
     * change is undone after zeInit so that child processes see the user's environment. */
    const char *user = getenv("ZE_ENABLE_ALT_DRIVERS");
    char *saved = user ? strdup(user) : NULL;
    int changed = 0;
    char cleaned[4 * PATH_MAX];
    if (user && clean_driver_list(user, cleaned, sizeof cleaned)) {
        if (strcmp(cleaned, user) != 0 && setenv("ZE_ENABLE_ALT_DRIVERS", cleaned, 1) == 0)
            changed = 1;
        /* The note is for messages only: a list longer than it ends in "...". */
        int w = snprintf(init_driver_note, sizeof init_driver_note, "ZE_ENABLE_ALT_DRIVERS=%s", cleaned);
        if (w >= (int)sizeof init_driver_note) memcpy(init_driver_note + sizeof init_driver_note - 4, "...", 4);
        snprintf(init_driver_list, sizeof init_driver_list, "%s", cleaned);
    } else {
        char pocl[PATH_MAX];
        if (find_ze_pocl(pocl, sizeof pocl) && strchr(pocl, ',') == NULL) {
            /* ze_cuda beside it too, when built: it reports no devices where there is no NVIDIA GPU, so the
             * default rule (the first GPU, else the CPU) falls back to ze_pocl there. */
            char cuda[PATH_MAX];
            int has_cuda = find_beside("libze_cuda.so", cuda, sizeof cuda) && strchr(cuda, ',') == NULL;
            char value[2 * PATH_MAX + 64];
            snprintf(value, sizeof value, "%s,%s%s%s", gpu_driver_names, has_cuda ? cuda : "", has_cuda ? "," : "",
                     pocl);
            if (setenv("ZE_ENABLE_ALT_DRIVERS", value, 1) == 0)
                changed = 1;
            snprintf(init_driver_note, sizeof init_driver_note, "krt looked for %s", value);
            snprintf(init_driver_list, sizeof init_driver_list, "%s", value);
        } else {
            /* Nothing to add: the loader's own default list applies. */
            if (user)
                changed = unsetenv("ZE_ENABLE_ALT_DRIVERS") == 0;
            snprintf(init_driver_note, sizeof init_driver_note,
                     "krt found no libze_pocl.so beside libkrt or in %s", KRT_LIBDIR);
            snprintf(init_driver_list, sizeof init_driver_list, "%s", gpu_driver_names);
        }
    }
    init_result = zeInit(0);
    if (changed) {
        if (saved)
            setenv("ZE_ENABLE_ALT_DRIVERS", saved, 1);
        else
            unsetenv("ZE_ENABLE_ALT_DRIVERS");
    }
    free(saved);
}

/* What became of each driver krt tried (krt_driver_list), worked out once, after zeInit: each library of
 * init_driver_list is opened again (RTLD_NOLOAD first: the loader's copy, whose state zeKrtDriverStatus reads),
 * and asked through zeKrtDriverStatus when it is one of krt's drivers. */
#define MAX_PROBED 17
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static krt_driver_info probed[MAX_PROBED];
static uint32_t num_probed;

/* zeKrtDriverStatus of a driver library, its strings terminated; false when the library has none or it fails. */
static bool driver_status(void *lib, ze_krt_driver_status_t *s)
{
    ze_pfnKrtDriverStatus_t status =
        lib ? (ze_pfnKrtDriverStatus_t)(uintptr_t)dlsym(lib, ZE_KRT_DRIVER_STATUS_SYMBOL) : NULL;
    if (!status || status(s) != ZE_RESULT_SUCCESS)
        return false;
    s->name[sizeof s->name - 1] = '\0';
    s->reason[sizeof s->reason - 1] = '\0';
    return true;
}

static void probe_one(const char *path, krt_driver_info *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%.*s", (int)sizeof out->path - 1, path);
    const char *slash = strrchr(path, '/');
    snprintf(out->name, sizeof out->name, "%.*s", (int)sizeof out->name - 1, slash ? slash + 1 : path);
    dlerror();
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!lib)
        lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *err = dlerror();
        out->status = KRT_DRIVER_STATUS_NOT_FOUND;
        snprintf(out->reason, sizeof out->reason, "%s", err ? err : "dlopen failed");
        return;
    }
    /* The handle stays open: the loader holds the library for the life of the process anyway. */
    ze_krt_driver_status_t s;
    if (!driver_status(lib, &s)) {
        out->status = KRT_DRIVER_STATUS_LOADED;
        return;
    }
    snprintf(out->name, sizeof out->name, "%s", s.name);
    out->num_devices = s.numDevices;
    out->status = s.numDevices ? KRT_DRIVER_STATUS_DEVICES : KRT_DRIVER_STATUS_NO_DEVICE;
    if (!s.numDevices)
        snprintf(out->reason, sizeof out->reason, "%s", s.reason);
}

static void probe_drivers(void)
{
    pthread_once(&init_once, init_process);
    for (const char *p = init_driver_list; *p && num_probed < MAX_PROBED - 1;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char path[PATH_MAX];
        if (len > 0 && len < sizeof path) {
            memcpy(path, p, len);
            path[len] = '\0';
            probe_one(path, &probed[num_probed++]);
        }
        p += len;
        if (*p == ',')
            p++;
    }
    krt_driver_info *host = &probed[num_probed++];
    memset(host, 0, sizeof *host);
    snprintf(host->name, sizeof host->name, "host");
    if (krt__ze_host()) {
        host->status = KRT_DRIVER_STATUS_DEVICES;
        host->num_devices = 1;
    } else {
        host->status = KRT_DRIVER_STATUS_NO_DEVICE;
        const char *why = krt__ze_host_no_device_reason();
        if (why[0])
            snprintf(host->reason, sizeof host->reason, "%s", why);
        else
            snprintf(host->reason, sizeof host->reason, "libkrt's host driver did not start");
    }
}

static const char *const driver_status_names[] = { "devices", "no device", "not found", "loaded" };

const char *krt_driver_status_name(krt_driver_status status)
{
    return (unsigned)status < sizeof driver_status_names / sizeof driver_status_names[0] ? driver_status_names[status]
                                                                                          : "unknown";
}

/* What one of krt's drivers says of a device of its that stays lost (zeKrtDriverStatus's reason while it has
 * devices: why recovering it failed), into buf; "" when it says nothing. */
static void driver_lost_note(const char *driver_name, char *buf, size_t cap)
{
    buf[0] = '\0';
    pthread_once(&probe_once, probe_drivers);
    for (uint32_t i = 0; i < num_probed; i++) {
        if (probed[i].status != KRT_DRIVER_STATUS_DEVICES || !probed[i].path[0] ||
            strcmp(probed[i].name, driver_name) != 0)
            continue;
        void *lib = dlopen(probed[i].path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        ze_krt_driver_status_t s;
        if (driver_status(lib, &s) && s.numDevices > 0)
            snprintf(buf, cap, "%s", s.reason);
        if (lib)
            dlclose(lib);
        return;
    }
}

krt_result krt_driver_list(krt_driver_info *infos, uint32_t *count)
{
    if (!count)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_driver_list: count is NULL");
    pthread_once(&probe_once, probe_drivers);
    if (!infos) {
        *count = num_probed;
        return KRT_SUCCESS;
    }
    uint32_t n = *count < num_probed ? *count : num_probed;
    memcpy(infos, probed, n * sizeof *infos);
    *count = n;
    return KRT_SUCCESS;
}

/* "; drivers with no device: ze_cuda (libcuda.so.1 not found: ...), libze_intel_gpu.so.1 (not found)" for a
 * message saying that no device matched, or "" when every driver tried has a device. */
static void describe_deviceless_drivers(char *out, size_t size)
{
    pthread_once(&probe_once, probe_drivers);
    size_t o = 0;
    out[0] = '\0';
    for (uint32_t i = 0; i < num_probed && o < size; i++) {
        const krt_driver_info *d = &probed[i];
        if (d->status != KRT_DRIVER_STATUS_NO_DEVICE && d->status != KRT_DRIVER_STATUS_NOT_FOUND)
            continue;
        const char *why = d->status == KRT_DRIVER_STATUS_NOT_FOUND && strstr(d->reason, "No such file")
                              ? "not found"
                              : d->reason;
        o += (size_t)snprintf(out + o, size - o, "%s %s (%s)", o ? "," : "; drivers with no device:", d->name, why);
    }
    if (o >= size && size > 4)
        memcpy(out + size - 4, "...", 4);
}

static krt_result no_driver(const char *why)
{
    return krt__fail(KRT_ERROR_NO_DRIVER,
                     "no Level Zero driver could be loaded (%s; %s). Install Intel's GPU driver "
                     "(libze-intel-gpu1) for a GPU, or put ze_pocl's libze_pocl.so beside libkrt.so, or set "
                     "ZE_ENABLE_ALT_DRIVERS=/path/to/libze_pocl.so",
                     why, init_driver_note);
}

/* zeInit once per process, then the driver handles. */
static krt_result get_drivers(ze_driver_handle_t *drivers, uint32_t *count)
{
    pthread_once(&init_once, init_process);
    if (init_result != ZE_RESULT_SUCCESS)
        return no_driver(krt__ze_name(init_result));
    uint32_t n = 0;
    ze_result_t zr = zeDriverGet(&n, NULL);
    if (zr != ZE_RESULT_SUCCESS || n == 0)
        return no_driver(zr != ZE_RESULT_SUCCESS ? krt__ze_name(zr) : "the loader found no driver");
    if (n > *count)
        n = *count;
    zr = zeDriverGet(&n, drivers);
    if (zr != ZE_RESULT_SUCCESS)
        return no_driver(krt__ze_name(zr));
    *count = n;
    return KRT_SUCCESS;
}

typedef struct device_ref {
    ze_driver_handle_t driver;
    ze_device_handle_t device;
    uint32_t driver_index, device_index;
    int host; /* krt's host device, not a Level Zero driver's */
} device_ref;

#define MAX_DRIVERS 16
#define MAX_DEVICES 64

/* The host device, listed after every Level Zero device (driver index: the number of Level Zero drivers).
 * Its driver is libkrt's own, so it is there whatever the loader found; 0 when it could not start. */
static int host_device_ref(uint32_t driver_index, device_ref *out)
{
    const ze_dditable_t *t = krt__ze_host();
    if (!t)
        return 0;
    ze_driver_handle_t drv = NULL;
    uint32_t n = 1;
    if (t->Driver.pfnGet(&n, &drv) != ZE_RESULT_SUCCESS || n != 1)
        return 0;
    ze_device_handle_t dev = NULL;
    n = 1;
    if (t->Device.pfnGet(drv, &n, &dev) != ZE_RESULT_SUCCESS || n != 1)
        return 0;
    *out = (device_ref){ drv, dev, driver_index, 0, 1 };
    return 1;
}

/* Every device; *loader_result is the loader's failure (KRT_SUCCESS when it found drivers), in which case the
 * list holds the host device alone. */
static krt_result list_devices_ex(device_ref *refs, uint32_t *count, krt_result *loader_result)
{
    ze_driver_handle_t drivers[MAX_DRIVERS];
    uint32_t nd = MAX_DRIVERS;
    krt_result r = get_drivers(drivers, &nd);
    *loader_result = r;
    if (r != KRT_SUCCESS) {
        char why[1024];
        snprintf(why, sizeof why, "%s", krt_last_error_message());
        if (*count > 0 && host_device_ref(0, &refs[0])) {
            *count = 1;
            krt__fail(r, "%s", why); /* the loader's message stays the last error */
            return KRT_SUCCESS;
        }
        return r;
    }
    uint32_t total = 0;
    for (uint32_t d = 0; d < nd && total < *count; d++) {
        ze_device_handle_t devs[MAX_DEVICES];
        uint32_t n = 0;
        if (zeDeviceGet(drivers[d], &n, NULL) != ZE_RESULT_SUCCESS)
            continue;
        if (n > MAX_DEVICES)
            n = MAX_DEVICES;
        if (zeDeviceGet(drivers[d], &n, devs) != ZE_RESULT_SUCCESS)
            continue;
        for (uint32_t i = 0; i < n && total < *count; i++)
            refs[total++] = (device_ref){ drivers[d], devs[i], d, i, 0 };
    }
    if (total < *count && host_device_ref(nd, &refs[total]))
        total++;
    *count = total;
    return KRT_SUCCESS;
}

static krt_result list_devices(device_ref *refs, uint32_t *count)
{
    krt_result loader;
    return list_devices_ex(refs, count, &loader);
}

krt_result krt_device_list(krt_device_info *infos, uint32_t *count)
{
    if (!count)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_device_list: count is NULL");
    /* Counted as a user of the driver cache while it reads it, so that a context created meanwhile does not
     * empty the cache under it. */
    pthread_mutex_lock(&live_lock);
    live_contexts++;
    pthread_mutex_unlock(&live_lock);
    device_ref refs[MAX_DEVICES];
    uint32_t n = MAX_DEVICES;
    krt_result r = list_devices(refs, &n);
    uint32_t filled = 0;
    for (uint32_t i = 0; r == KRT_SUCCESS && infos && i < n && filled < *count; i++) {
        krt__driver_entry *drv;
        krt__device_entry *dev;
        if ((r = krt__driver_entry_get(refs[i].driver, &drv)) != KRT_SUCCESS)
            break;
        if ((r = krt__device_entry_get(refs[i].device, &dev)) != KRT_SUCCESS)
            break;
        krt__device_info_fill(drv, dev, refs[i].driver_index, refs[i].device_index, &infos[filled++]);
    }
    pthread_mutex_lock(&live_lock);
    live_contexts--;
    pthread_mutex_unlock(&live_lock);
    if (r == KRT_SUCCESS)
        *count = infos ? filled : n;
    return r;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return 1;
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* The device kinds KRT_DEVICE and krt_context_desc.device accept as words, before an index or a name
 * substring is tried. "host" is krt's own host device: Level Zero has no device type for it, so its entry holds
 * ZE_DEVICE_TYPE_FORCE_UINT32, which choose_device_in reads as "the host device" rather than as a type. */
static const struct {
    const char *word;
    ze_device_type_t type;
    int exists;
} device_kinds[] = {
    { "gpu", ZE_DEVICE_TYPE_GPU, 1 },
    { "cpu", ZE_DEVICE_TYPE_CPU, 1 },
    { "fpga", ZE_DEVICE_TYPE_FPGA, 1 },
    { "accelerator", ZE_DEVICE_TYPE_MCA, 1 },
    { "host", ZE_DEVICE_TYPE_FORCE_UINT32, 1 },
};

/* Parses "<kind>" or "<kind>:<n>" (the n-th device of that kind, from 0). Returns the kind's index in
 * device_kinds, or -1 when want is not of that form. */
static int parse_device_kind(const char *want, unsigned long *nth)
{
    for (size_t k = 0; k < sizeof device_kinds / sizeof device_kinds[0]; k++) {
        size_t len = strlen(device_kinds[k].word);
        if (strncasecmp(want, device_kinds[k].word, len) != 0)
            continue;
        if (want[len] == '\0') {
            *nth = 0;
            return (int)k;
        }
        if (want[len] == ':' && isdigit((unsigned char)want[len + 1])) {
            char *end = NULL;
            errno = 0;
            unsigned long v = strtoul(want + len + 1, &end, 10);
            if (errno == 0 && *end == '\0') {
                *nth = v;
                return (int)k;
            }
        }
    }
    return -1;
}

/* "; the devices are: 0 \"name\" (CPU), 1 ..." appended to a failure message, so that a wrong KRT_DEVICE
 * tells the user what to write instead of sending them to another tool. */
static void describe_devices(const device_ref *refs, uint32_t n, char *out, size_t size)
{
    size_t o = (size_t)snprintf(out, size, "; the devices are:");
    for (uint32_t i = 0; i < n && o < size; i++) {
        krt__device_entry *dev;
        if (krt__device_entry_get(refs[i].device, &dev) != KRT_SUCCESS)
            continue;
        krt_device_info info;
        krt__driver_entry *drv;
        if (krt__driver_entry_get(refs[i].driver, &drv) != KRT_SUCCESS)
            continue;
        krt__device_info_fill(drv, dev, refs[i].driver_index, refs[i].device_index, &info);
        o += (size_t)snprintf(out + o, size - o, "%s %u \"%s\" (%s, driver %s)", i ? "," : "", i, info.name,
                              krt_device_type_name(info.type), info.driver_name);
    }
    if (o >= size && size > 4)
        memcpy(out + size - 4, "...", 4);
}

static krt_result choose_device_in(const char *want, device_ref *out);

/* With no Level Zero driver, only an explicit request for the host device gets one: a program that asked for
 * no device in particular gets the loader's error rather than silently running on the host. */
static krt_result choose_device(const char *want, device_ref *out)
{
    device_ref refs[1];
    uint32_t n = 1;
    krt_result loader;
    krt_result r = list_devices_ex(refs, &n, &loader);
    if (r != KRT_SUCCESS)
        return r;
    if (loader != KRT_SUCCESS) {
        unsigned long nth = 0;
        int kind = want && *want ? parse_device_kind(want, &nth) : -1;
        if (kind >= 0 && strcmp(device_kinds[kind].word, "host") == 0 && nth == 0 && n == 1) {
            *out = refs[0];
            return KRT_SUCCESS;
        }
        char why[1024];
        snprintf(why, sizeof why, "%s", krt_last_error_message());
        return krt__fail(loader, "%s; the host device is there all the same: KRT_DEVICE=host selects it", why);
    }
    return choose_device_in(want, out);
}

static krt_result choose_device_in(const char *want, device_ref *out)
{
    device_ref refs[MAX_DEVICES];
    uint32_t n = MAX_DEVICES;
    krt_result r = list_devices(refs, &n);
    if (r != KRT_SUCCESS)
        return r;
    if (n == 0)
        return no_driver("the drivers found have no device");

    if (want && *want) {
        char devices[1024];
        unsigned long nth = 0;
        int kind = parse_device_kind(want, &nth);
        if (kind >= 0) {
            unsigned long seen = 0;
            int want_host = device_kinds[kind].type == ZE_DEVICE_TYPE_FORCE_UINT32;
            for (uint32_t i = 0; device_kinds[kind].exists && i < n; i++) {
                krt__device_entry *dev;
                if (want_host ? refs[i].host && seen++ == nth
                              : !refs[i].host && krt__device_entry_get(refs[i].device, &dev) == KRT_SUCCESS &&
                                    dev->props.type == device_kinds[kind].type && seen++ == nth) {
                    *out = refs[i];
                    return KRT_SUCCESS;
                }
            }
            describe_devices(refs, n, devices, sizeof devices);
            char missing[1024];
            describe_deviceless_drivers(missing, sizeof missing);
            if (!device_kinds[kind].exists)
                return krt__fail(KRT_ERROR_NO_DEVICE, "device \"%s\": krt has no %s device yet%s", want,
                                 device_kinds[kind].word, devices);
            if (seen == 0)
                return krt__fail(KRT_ERROR_NO_DEVICE, "device \"%s\": there is no %s device%s%s", want,
                                 device_kinds[kind].word, devices, missing);
            return krt__fail(KRT_ERROR_NO_DEVICE, "device \"%s\": there %s only %lu %s device%s%s", want,
                             seen == 1 ? "is" : "are", seen, device_kinds[kind].word, seen == 1 ? "" : "s", devices);
        }
        char *end = NULL;
        errno = 0;
        unsigned long idx = strtoul(want, &end, 10);
        if (errno == 0 && end != want && *end == '\0') {
            if (idx >= n) {
                describe_devices(refs, n, devices, sizeof devices);
                return krt__fail(KRT_ERROR_NO_DEVICE, "device index %lu requested, but there are %u devices%s", idx,
                                 n, devices);
            }
            *out = refs[idx];
            return KRT_SUCCESS;
        }
        for (uint32_t i = 0; i < n; i++) {
            krt__device_entry *dev;
            if (krt__device_entry_get(refs[i].device, &dev) == KRT_SUCCESS && contains_nocase(dev->props.name, want)) {
                *out = refs[i];
                return KRT_SUCCESS;
            }
        }
        describe_devices(refs, n, devices, sizeof devices);
        char missing[1024];
        describe_deviceless_drivers(missing, sizeof missing);
        return krt__fail(KRT_ERROR_NO_DEVICE,
                         "no device matches \"%s\": it is not a kind (cpu, gpu, fpga, accelerator, host), an index "
                         "or a piece of a device name%s%s",
                         want, devices, missing);
    }
    for (uint32_t i = 0; i < n; i++) {
        krt__device_entry *dev;
        if (!refs[i].host && krt__device_entry_get(refs[i].device, &dev) == KRT_SUCCESS &&
            dev->props.type == ZE_DEVICE_TYPE_GPU) {
            *out = refs[i];
            return KRT_SUCCESS;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!refs[i].host) {
            *out = refs[i];
            return KRT_SUCCESS;
        }
    }
    return no_driver("the drivers found have no device");
}

/* Defaults of krt_context_desc in one place. */
static void context_desc_defaults(const krt_context_desc *in, krt_context_desc *out)
{
    if (in)
        *out = *in;
    else
        memset(out, 0, sizeof *out);
    if (out->spill_budget == 0)
        out->spill_budget = (size_t)1 << 20;
    if (out->min_groups == 0)
        out->min_groups = 16;
    if (out->device == NULL || out->device[0] == '\0')
        out->device = getenv("KRT_DEVICE");
    if (out->staging_bytes == 0)
        out->staging_bytes = (size_t)4 << 20;
}

/* Joins the Level Zero context of share (krt_context_desc.share), or makes one of ctx's own. */
static krt_result share_join(krt_context *ctx, krt_context *share)
{
    if (share) {
        if (share->driver != ctx->driver || share->host != ctx->host)
            return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                             "krt_context_create: share is a context on %s (driver %s, driver index %u), but the "
                             "device chosen, %s, belongs to driver %s (driver index %u): contexts share a Level Zero "
                             "context only within one driver",
                             share->info.name, share->info.driver_name, share->info.driver_index, ctx->info.name,
                             ctx->info.driver_name, ctx->info.driver_index);
        krt__share *sh = share->share;
        pthread_mutex_lock(&sh->lock);
        sh->refs++;
        atomic_store(&sh->shared, 1);
        ctx->share_next = sh->members;
        sh->members = ctx;
        pthread_mutex_unlock(&sh->lock);
        ctx->share = sh;
        ctx->ze = sh->ze;
        return KRT_SUCCESS;
    }
    krt__share *sh = calloc(1, sizeof *sh);
    if (!sh)
        return krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for a context");
    ze_context_desc_t cd = { .stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC };
    krt_result r = krt__ze(KRT__ZE(ctx->ddi, Context, Create)(ctx->driver, &cd, &sh->ze), "zeContextCreate");
    if (r != KRT_SUCCESS) {
        free(sh);
        return r;
    }
    pthread_mutex_init(&sh->lock, NULL);
    pthread_mutex_init(&sh->staging_lock, NULL);
    sh->ddi = ctx->ddi;
    sh->driver = ctx->driver;
    sh->refs = 1;
    atomic_init(&sh->shared, 0);
    sh->members = ctx;
    ctx->share = sh;
    ctx->ze = sh->ze;
    return KRT_SUCCESS;
}

/* Leaves the shared Level Zero context; the last context to leave destroys it. */
static void share_leave(krt_context *ctx)
{
    krt__share *sh = ctx->share;
    if (!sh)
        return;
    pthread_mutex_lock(&sh->lock);
    for (krt_context **p = &sh->members; *p; p = &(*p)->share_next)
        if (*p == ctx) {
            *p = ctx->share_next;
            break;
        }
    int last = --sh->refs == 0;
    pthread_mutex_unlock(&sh->lock);
    ctx->share = NULL;
    if (!last)
        return;
    KRT__ZE(sh->ddi, Context, Destroy)(sh->ze);
    pthread_mutex_destroy(&sh->lock);
    pthread_mutex_destroy(&sh->staging_lock);
    free(sh);
}

krt_result krt_context_can_access_peer(krt_context *ctx, krt_context *peer, int *out)
{
    if (!ctx || !peer || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_context_can_access_peer: %s is NULL",
                         !ctx ? "ctx" : !peer ? "peer" : "out");
    if (ctx->ze != peer->ze)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                         "krt_context_can_access_peer: the contexts (on %s and %s) do not share a Level Zero context; "
                         "create one with krt_context_desc.share set to the other",
                         ctx->info.name, peer->info.name);
    *out = krt__device_reaches(ctx, peer->device);
    return KRT_SUCCESS;
}

krt_result krt_context_create(const krt_context_desc *desc, krt_context **out)
{
    if (!out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_context_create: out is NULL");
    krt_context_desc d;
    context_desc_defaults(desc, &d);
    if (d.flags & ~(uint32_t)(KRT_CONTEXT_FLAG_NO_MEMO | KRT_CONTEXT_FLAG_NO_STAGING))
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_context_create: unknown flags 0x%x", d.flags);
    if (d.checks == KRT_CHECK_NONE) {
        krt_result er = krt__checks_parse_env(&d.checks);
        if (er != KRT_SUCCESS)
            return er;
    } else if (d.checks != KRT_CHECK_BOUNDS) {
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT,
                         "krt_context_create: checks is %u; it takes KRT_CHECK_NONE (0) or KRT_CHECK_BOUNDS (1)",
                         d.checks);
    }

    /* krt initialises afresh when no context is alive: nothing learned from earlier drivers survives. */
    pthread_mutex_lock(&live_lock);
    if (live_contexts == 0)
        krt__driver_cache_clear();
    live_contexts++;
    pthread_mutex_unlock(&live_lock);

    krt_result r;
    device_ref ref = {0};
    krt_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        r = krt__fail(KRT_ERROR_OUT_OF_HOST_MEMORY, "out of host memory for a context");
        goto fail;
    }
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->lost_lock, NULL);
    atomic_init(&ctx->lost, 0);
    atomic_init(&ctx->free_generation, 1);
    krt__log_init(&ctx->log, &d.logger);
    ctx->trace = krt__log_enabled(&ctx->log, KRT_LOG_TRACE);
    ctx->spill_budget = d.spill_budget;
    ctx->min_groups = d.min_groups;
    ctx->min_groups_default = !desc || desc->min_groups == 0;
    ctx->flags = d.flags;
    ctx->staging_bytes = d.staging_bytes;

    if ((r = choose_device(d.device, &ref)) != KRT_SUCCESS)
        goto fail;
    ctx->driver = ref.driver;
    ctx->device = ref.device;
    ctx->host = ref.host;
    ctx->ddi = ref.host ? krt__ze_host() : krt__ze_loader();
    if ((r = krt__driver_entry_get(ctx->driver, &ctx->drv)) != KRT_SUCCESS)
        goto fail;
    if ((r = krt__device_entry_get(ctx->device, &ctx->dev)) != KRT_SUCCESS)
        goto fail;
    krt__device_info_fill(ctx->drv, ctx->dev, ref.driver_index, ref.device_index, &ctx->info);

    if ((r = share_join(ctx, d.share)) != KRT_SUCCESS)
        goto fail;
    if (d.checks == KRT_CHECK_BOUNDS && (r = krt__checks_init(ctx)) != KRT_SUCCESS)
        goto fail;
    if ((r = krt__queue_create(ctx, NULL, 1, &ctx->default_queue)) != KRT_SUCCESS) {
        /* krt's drivers keep a lost device lost while any context that used it is alive, and recover it when the last
         * one is destroyed (driver/fault.c). */
        if (r == KRT_ERROR_DEVICE_LOST) {
            char note[256];
            driver_lost_note(ctx->info.driver_name, note, sizeof note);
            if (note[0])
                r = krt__fail(KRT_ERROR_DEVICE_LOST,
                              "krt_context_create: the device %s (driver %s) is lost, and the driver could not "
                              "recover it when its last context was destroyed: %s",
                              ctx->info.name, ctx->info.driver_name, note);
            else
                r = krt__fail(KRT_ERROR_DEVICE_LOST,
                              "krt_context_create: the device %s (driver %s) is lost (zeCommandListCreateImmediate "
                              "answered ZE_RESULT_ERROR_DEVICE_LOST): a context on it saw a fault and is still alive, "
                              "or the device itself failed; destroy every context on the device and create the "
                              "context again",
                              ctx->info.name, ctx->info.driver_name);
        }
        goto fail;
    }
    krt__wisdom_init(ctx);
    krt__logf(&ctx->log, KRT_LOG_INFO, "context on %s (driver %s), max group %u, extension max group size: %s",
              ctx->info.name, ctx->info.driver_name, ctx->info.max_group_size,
              ctx->drv->has_max_group_size_ext ? "yes" : "no");
    *out = ctx;
    return KRT_SUCCESS;

fail:
    if (ctx) {
        krt__checks_fini(ctx);
        share_leave(ctx);
        pthread_mutex_destroy(&ctx->lock);
        pthread_mutex_destroy(&ctx->lost_lock);
        free(ctx);
    }
    pthread_mutex_lock(&live_lock);
    live_contexts--;
    pthread_mutex_unlock(&live_lock);
    return r;
}

/* Waits until every queue is idle with nothing appended after its last wait. A host task may append to any queue
 * of the context while the queues are waited for, so one round of waits is not enough: after a round in which
 * every queue was idle, a second look must find the same append counts (a task that returned between two
 * queues' checks may have appended to a queue already checked; its own queue, idle at its check, says it had
 * returned by then). */
static void drain(krt_context *ctx)
{
    for (;;) {
        /* A checked kernel's refused access is reported to no one at the context's end. */
        krt_result r = krt_context_synchronize(ctx);
        if (r != KRT_SUCCESS && r != KRT_ERROR_OUT_OF_BOUNDS)
            return;
        int idle = 1;
        uint64_t first = 0, second = 0, n;
        pthread_mutex_lock(&ctx->lock);
        for (krt_queue *q = ctx->queues; q; q = q->next) {
            idle &= krt__queue_idle(q, &n);
            first += n;
        }
        for (krt_queue *q = ctx->queues; q && idle; q = q->next) {
            krt__queue_idle(q, &n);
            second += n;
        }
        pthread_mutex_unlock(&ctx->lock);
        if (idle && first == second)
            return;
    }
}

void krt_context_destroy(krt_context *ctx)
{
    if (!ctx)
        return;
    krt_queue *own = krt__host_task_current();
    if (own && own->ctx == ctx) {
        krt__logf(&ctx->log, KRT_LOG_ERROR, "krt_context_destroy ignored: called from a host task of the context");
        return;
    }
    drain(ctx);
    /* Out of its group first, so that no copy of another context finds its allocations or queues any more (a
     * staged copy using them finishes first). */
    pthread_mutex_lock(&ctx->share->staging_lock);
    pthread_mutex_lock(&ctx->share->lock);
    for (krt_context **p = &ctx->share->members; *p; p = &(*p)->share_next)
        if (*p == ctx) {
            *p = ctx->share_next;
            break;
        }
    ctx->share_next = NULL;
    pthread_mutex_unlock(&ctx->share->lock);
    krt__staging_free_locked(ctx);
    ctx->peer_queue = NULL; /* one of ctx->queues, destroyed with them */
    pthread_mutex_unlock(&ctx->share->staging_lock);
    pthread_mutex_lock(&ctx->lock);
    /* On a lost context drain could not wait (nothing more can be appended to wait with): the queues go first, each
     * list's destroy letting what its device still runs run out (krt's CPU drivers do; a GPU's lost context runs
     * nothing), so that no kernel is left running after its module is gone. */
    if (krt__is_lost(ctx))
        while (ctx->queues)
            krt__queue_destroy_locked(ctx->queues);
    while (ctx->recordings)
        krt__recording_free_locked(ctx->recordings);
    while (ctx->modules)
        krt__module_destroy_locked(ctx->modules);
    ctx->builtin = NULL;
    while (ctx->queues)
        krt__queue_destroy_locked(ctx->queues);
    while (ctx->events)
        krt__event_destroy_locked(ctx->events);
    krt__event_pools_destroy(ctx);
    krt__alloc_set_free_all(ctx);
    krt__checks_fini(ctx);
    pthread_mutex_unlock(&ctx->lock);
    share_leave(ctx);
    krt__wisdom_fini(ctx);
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->lost_lock);
    free(ctx);

    pthread_mutex_lock(&live_lock);
    live_contexts--;
    pthread_mutex_unlock(&live_lock);
}

/* The one table of device-type names, for krt_device_type_name: krt-info and the examples print these. */
static const char *const device_type_names[] = { "other", "GPU", "CPU", "FPGA", "accelerator", "host" };
_Static_assert(sizeof device_type_names / sizeof device_type_names[0] == KRT_DEVICE_TYPE_HOST + 1,
               "one name per krt_device_type");

const char *krt_device_type_name(krt_device_type type)
{
    return (unsigned)type < sizeof device_type_names / sizeof device_type_names[0] ? device_type_names[type]
                                                                                    : "unknown";
}

krt_result krt_context_device_info(krt_context *ctx, krt_device_info *out)
{
    if (!ctx || !out)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_context_device_info: %s is NULL", ctx ? "out" : "ctx");
    *out = ctx->info;
    return KRT_SUCCESS;
}

krt_result krt_context_extensions(krt_context *ctx, const char **names, uint32_t *count)
{
    if (!ctx || !count)
        return krt__fail(KRT_ERROR_INVALID_ARGUMENT, "krt_context_extensions: %s is NULL", ctx ? "count" : "ctx");
    const krt__driver_entry *drv = ctx->drv;
    if (!names) {
        *count = drv->num_extensions;
        return KRT_SUCCESS;
    }
    uint32_t n = *count < drv->num_extensions ? *count : drv->num_extensions;
    for (uint32_t i = 0; i < n; i++)
        names[i] = drv->names[i];
    *count = n;
    return KRT_SUCCESS;
}

int krt_context_has_extension(krt_context *ctx, const char *name)
{
    if (!ctx || !name)
        return 0;
    const krt__driver_entry *drv = ctx->drv;
    for (uint32_t i = 0; i < drv->num_extensions; i++)
        if (strcmp(drv->names[i], name) == 0)
            return 1;
    return 0;
}
