/* The backend this build of the object model runs on (backend.h): one object model, one backend per library.
 * driver.mk builds libze_pocl with zp_pocl_backend, cuda.mk libze_cuda with ZP_BACKEND=zp_cuda_backend and
 * host.mk libkrt's host driver with ZP_BACKEND=zp_host_backend. Every file of the object model reaches the
 * backend through zp_be; this file depends on nothing else of it. */
#include "zp.h"

#ifndef ZP_BACKEND
#define ZP_BACKEND zp_pocl_backend
#endif
const zp_backend_ops *zp_be = &ZP_BACKEND;
