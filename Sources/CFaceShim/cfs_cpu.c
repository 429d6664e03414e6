// The CPU check, in a file of its own compiled for the baseline x86-64: the dlib code of
// this target is built for AVX2 and FMA and must not run before this says yes.
#include <cpuid.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <strings.h>
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

void cfs_use_one_arena(void) {
#if defined(__GLIBC__)
    mallopt(M_ARENA_MAX, 1);
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

/* Whether the OS saves the AVX (YMM) and, with `zmm`, the AVX-512 registers (XCR0). */
static int os_saves_vector_state(int zmm) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid_count(1, 0, &a, &b, &c, &d) || !((c >> 27) & 1)) return 0; /* OSXSAVE */
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    const unsigned needed = zmm ? 0xE6u : 0x6u; /* XMM|YMM, plus opmask|ZMM_Hi256|Hi16_ZMM */
    return (lo & needed) == needed;
#else
    (void)zmm;
    return 0;
#endif
}

const char *cfs_blas_corename(void) {
    typedef char *(*corename_fn)(void);
    corename_fn corename = (corename_fn)dlsym(RTLD_DEFAULT, "openblas_get_corename");
    return corename == NULL ? NULL : corename();
}

const char *cfs_blas_preferred_coretype(void) {
#if defined(__x86_64__)
    if (getenv("OPENBLAS_CORETYPE") != NULL) return NULL; /* the operator's choice stands */
    const char *name = cfs_blas_corename();
    if (name == NULL || strcasecmp(name, "prescott") != 0) return NULL; /* not OpenBLAS, or its choice is right */
    unsigned a = 0, b = 0, c = 0, d = 0;
    int fma = 0, avx2 = 0, avx512 = 0;
    if (__get_cpuid_count(1, 0, &a, &b, &c, &d)) fma = (c >> 12) & 1;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        avx2 = (b >> 5) & 1;
        /* F, DQ, CD, BW, VL: what OpenBLAS's SkylakeX kernels use. */
        avx512 = ((b >> 16) & 1) && ((b >> 17) & 1) && ((b >> 28) & 1) && ((b >> 30) & 1) && ((b >> 31) & 1);
    }
    if (avx512 && os_saves_vector_state(1)) return "SkylakeX";
    if (avx2 && fma && os_saves_vector_state(0)) return "Haswell";
#endif
    return NULL;
}
