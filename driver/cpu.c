/* What a CPU device reports of the processor it runs on, the same for every backend whose device is the host's CPU
 * (ze_pocl, the host device). */
#include "zp.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* The CPU's PCI vendor id, from the processor itself (x86: CPUID leaf 0's vendor string), or 0 where it is not known:
 * nothing rather than a guess. PoCL 3.1 reports Intel's 0x8086 for every x86 CPU, an AMD EPYC included. */
static uint32_t cpu_vendor_id(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0, &a, &b, &c, &d)) return 0;
    char v[12];
    memcpy(v, &b, 4);
    memcpy(v + 4, &d, 4);
    memcpy(v + 8, &c, 4);
    static const struct {
        char name[13];
        uint32_t id;
    } known[] = {{"GenuineIntel", 0x8086}, {"AuthenticAMD", 0x1022}, {"HygonGenuine", 0x1d94}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (memcmp(v, known[i].name, 12) == 0) return known[i].id;
#endif
    return 0;
}

void zp_cpu_device_info(zp_device_info *info) {
    if (info->gpu) return;
    info->vendor_id = cpu_vendor_id();
}
