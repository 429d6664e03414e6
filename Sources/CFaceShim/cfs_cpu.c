// The CPU check, in a file of its own compiled for the baseline x86-64: the dlib code of
// this target is built for AVX2 and FMA and must not run before this says yes.
#include <cpuid.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "cfs_decode.h"

int32_t cfs_cpu_supported(cfs_error *error) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    int avx2 = 0, fma = 0, avx = 0;
    if (__get_cpuid_count(1, 0, &a, &b, &c, &d)) {
        fma = (c >> 12) & 1;
        avx = (c >> 28) & 1;
    }
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) avx2 = (b >> 5) & 1;
    if (avx && avx2 && fma) return 1;
    cfs_set_error(error, CFS_CPU_UNSUPPORTED,
                  "this CPU lacks AVX2/FMA, which the face engine is built for (x86-64-v3 or newer needed)");
    return 0;
#else
    cfs_set_error(error, CFS_CPU_UNSUPPORTED, "the face engine is built for x86-64 with AVX2");
    return 0;
#endif
}

void cfs_tune_allocator(void) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 256 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 512 * 1024 * 1024);
#endif
}

uint64_t cfs_allocated_bytes(void) {
#if defined(__GLIBC__)
    const struct mallinfo2 info = mallinfo2();
    return (uint64_t)info.uordblks + (uint64_t)info.hblkhd;
#else
    return 0;
#endif
}
