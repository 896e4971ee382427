/* Faults: a lost device, which contexts use it, its recovery, and the test knob that injects a fault.
 *
 * A device is lost when its backend says so (zp_backend_ops.device_lost: ze_cuda once CUDA reported one of its sticky
 * errors, after which every call on that device's context fails) or when a kernel named by KRT_ZE_FAULT completed on
 * it. Lost, it refuses new work with ZE_RESULT_ERROR_DEVICE_LOST and every wait or query of its work answers the same
 * (stream.c, signal.c, cmdlist.c, cmdqueue.c, memory.c, module.c), never another cause: a failed allocation on a lost
 * device is DEVICE_LOST, not OUT_OF_DEVICE_MEMORY.
 *
 * Level Zero says what DEVICE_LOST means (the device hung, was reset or removed) but leaves recovery to the driver. Here
 * a lost device is recovered once no context uses it: each context counts as a user of every device it made a list,
 * a queue, a module or an allocation on (bit i of its `used`), from that first use until zeContextDestroy. When the
 * last user goes, or when a context starts using a lost device that no context uses, the backend recovers it
 * (device_recover) and it is no longer lost. While another context that used it is alive, the device stays lost: that
 * context's objects were made on the device as it was before the fault, and on ze_cuda recovering would free them
 * (a reset destroys everything of the CUDA context). Leaf of the object model: calls only the backend. */
#include "zp.h"

/* Guards every device's users and the recovery, so that a context starting to use a device and the last one leaving
 * it cannot cross (a recovery under a new user's feet). Taken at a context's first use of each device and at its
 * destroy, never on the launch path. */
static pthread_mutex_t use_lock = PTHREAD_MUTEX_INITIALIZER;

bool zp_device_lost(ze_device_handle_t dev) {
    if (atomic_load_explicit(&dev->lost, memory_order_acquire)) return true;
    return zp_be->device_lost && zp_be->device_lost(dev->bdev);
}

/* KRT_ZE_FAULT_UNRECOVERABLE=1, a test knob beside KRT_ZE_FAULT: a lost device is never recovered, as a GPU whose
 * driver cannot reset it; zeKrtDriverStatus says so. */
static bool unrecoverable(void) {
    const char *v = getenv("KRT_ZE_FAULT_UNRECOVERABLE");
    return v && v[0] && strcmp(v, "0") != 0;
}

const char *zp_recover_failure(ze_device_handle_t dev) {
    if (!zp_device_lost(dev)) return "";
    if (unrecoverable()) return "KRT_ZE_FAULT_UNRECOVERABLE is set (a test knob: the driver refuses to recover it)";
    return zp_be->recover_failure ? zp_be->recover_failure(dev->bdev) : "";
}

/* Caller holds use_lock; the device has no user. */
static void recover_locked(ze_device_handle_t dev) {
    if (!zp_device_lost(dev) || unrecoverable()) return;
    if (zp_be->device_recover && zp_be->device_recover(dev->bdev) != ZE_RESULT_SUCCESS) return;
    if (zp_be->device_lost && zp_be->device_lost(dev->bdev)) return; /* the backend could not make it usable */
    atomic_store_explicit(&dev->lost, false, memory_order_release);
}

void zp_context_use(ze_context_handle_t ctx, ze_device_handle_t dev) {
    /* Devices past 64 (no backend lists that many) are never counted, so never recovered. */
    if (!ctx || !dev || dev->index >= 64) return;
    uint64_t bit = (uint64_t)1 << dev->index;
    if (atomic_load_explicit(&ctx->used, memory_order_acquire) & bit) return;
    pthread_mutex_lock(&use_lock);
    if (!(atomic_fetch_or_explicit(&ctx->used, bit, memory_order_acq_rel) & bit)) {
        /* A lost device no context uses may be recovered now, before this context makes anything on it. */
        if (dev->users == 0) recover_locked(dev);
        dev->users++;
    }
    pthread_mutex_unlock(&use_lock);
}

void zp_context_release(ze_context_handle_t ctx) {
    uint64_t used = atomic_exchange_explicit(&ctx->used, 0, memory_order_acq_rel);
    if (!used) return;
    /* Through the context's driver handle, not the driver's global: fault.c stays a leaf of the object model. */
    ze_driver_handle_t drv = ctx->driver;
    pthread_mutex_lock(&use_lock);
    for (uint32_t i = 0; i < drv->num_devices && i < 64; i++) {
        if (!(used & ((uint64_t)1 << i))) continue;
        ze_device_handle_t dev = &drv->devices[i];
        if (dev->users > 0 && --dev->users == 0) recover_locked(dev);
    }
    pthread_mutex_unlock(&use_lock);
}

ze_result_t zp_context_status(ze_context_handle_t ctx) {
    uint64_t used = atomic_load_explicit(&ctx->used, memory_order_acquire);
    ze_driver_handle_t drv = ctx->driver;
    for (uint32_t i = 0; i < drv->num_devices && i < 64; i++)
        if ((used & ((uint64_t)1 << i)) && zp_device_lost(&drv->devices[i])) return ZE_RESULT_ERROR_DEVICE_LOST;
    return ZE_RESULT_SUCCESS;
}

/* KRT_ZE_FAULT=NAME, a test knob (docs/driver.md, "Faults"): every launch of a kernel named NAME, on any device of
 * the driver, loses its device when it completes, as a kernel that wrote out of bounds on a GPU does. The kernel
 * itself runs as usual. Read when a kernel is created, so that a test can set it before its kernels exist. */
bool zp_fault_wanted(const char *kernel_name) {
    const char *want = getenv("KRT_ZE_FAULT");
    return want && want[0] && kernel_name && strcmp(want, kernel_name) == 0;
}

static void fault_fire(void *data) {
    ze_device_handle_t dev = *(ze_device_handle_t *)data;
    free(data);
    atomic_store_explicit(&dev->lost, true, memory_order_release);
}

/* A host step rather than the kernel's completion callback: it runs in stream order, after the kernel and before the
 * next command of the queue starts, so a wait that returns after anything later on the queue (a synchronize's barrier,
 * the launch's own signal, which this step's token arms) finds the device already lost. */
ze_result_t zp_fault_after(zp_bqueue *bq, ze_kernel_handle_t k, zp_btoken **done) {
    ze_device_handle_t *data = malloc(sizeof *data);
    if (!data) return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    *data = k->module->dev;
    return zp_be->host_task(bq, fault_fire, data, 0, NULL, done);
}

/* The live streams. A lost device answers every wait at once, and refuses the barrier a client would append to wait
 * with, so a client that frees memory after learning of the loss could free what a command already handed to a CPU
 * backend still writes. zeMemFree, zeVirtualMemUnmap and zeVirtualMemFree on a context that used a lost device
 * therefore first let every queue of a lost device run out (zp_fault_run_out); physical memory can be destroyed only
 * once unmapped. The
 * lock is taken when a stream is made or destroyed, never on the launch path. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static zp_stream *live_streams;

void zp_fault_track(zp_stream *st) {
    pthread_mutex_lock(&live_lock);
    st->live_prev = NULL;
    st->live_next = live_streams;
    if (live_streams) live_streams->live_prev = st;
    live_streams = st;
    pthread_mutex_unlock(&live_lock);
}

void zp_fault_untrack(zp_stream *st) {
    pthread_mutex_lock(&live_lock);
    if (st->live_prev) st->live_prev->live_next = st->live_next;
    else if (live_streams == st) live_streams = st->live_next;
    if (st->live_next) st->live_next->live_prev = st->live_prev;
    st->live_prev = st->live_next = NULL;
    pthread_mutex_unlock(&live_lock);
}

/* What was handed to the backend queues of lost devices has run out when this returns (a CPU backend runs it; ze_cuda's
 * fail at once), and so has a stream's pass over its held-back commands that another thread may be making (a host
 * task's completion runs the commands behind it on the thread that completed it; on a lost device the pass drops
 * them, stream.c): taking the stream's lock waits for that pass. Commands still held back run no more. Called before
 * what a command may use is freed or destroyed: memory, a kernel (zeKernelDestroy; a destroy of a kernel a pass was
 * still launching raced with it under ThreadSanitizer). */
void zp_fault_run_out(void) {
    pthread_mutex_lock(&live_lock);
    for (zp_stream *st = live_streams; st; st = st->live_next)
        if (zp_device_lost(st->dev)) {
            pthread_mutex_lock(&st->lock);
            pthread_mutex_unlock(&st->lock);
            zp_be->queue_finish(st->bq);
        }
    pthread_mutex_unlock(&live_lock);
}
