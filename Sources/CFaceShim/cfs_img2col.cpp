// dlib::cpu::img2col, the lowering every convolution of the descriptor and CNN networks runs
// before its matrix product, written again for speed. Debian's libdlib calls it through its
// PLT, so this definition, exported by the executable, is the one those calls reach (ELF
// symbol interposition). Where a build of dlib binds it internally, dlib's own runs instead;
// the results are the same either way (Img2ColTests compares the two element by element).
//
// What changes is how the rows are filled: dlib tests every element against the image's
// bounds; here a filter row wholly inside the image is one copy of filter_nc floats (3 for
// every 3x3 convolution, unrolled) and only the border rows and columns are tested. That is
// about 2 ms of a 15.8 ms descriptor on a 2-core AMD EPYC.
#include "cfs_dlib.hpp"

#include <dlfcn.h>

#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#include <dlib/cuda/tensor.h>
#include <dlib/matrix.h>
#pragma clang attribute pop

namespace {

unsigned long long lowerings = 0;  // __atomic builtins: no inline std::atomic code to compile for AVX2

/// One output row: for each channel, `filter_nr` rows of `filter_nc` values around (r, c),
/// zero outside the image. `FNC` > 0 fixes filter_nc at compile time.
template <long FNC>
__attribute__((target("avx2,fma"))) inline void fill_row(float *out, const float *sample, long channels, long nr, long nc,
                                                       long r, long c, long filter_nr, long filter_nc_at_run_time) {
    const long filter_nc = FNC > 0 ? FNC : filter_nc_at_run_time;
    const bool columns_inside = c >= 0 && c + filter_nc <= nc;
    for (long k = 0; k < channels; ++k) {
        const float *plane = sample + k * nr * nc;
        for (long y = 0; y < filter_nr; ++y, out += filter_nc) {
            const long yy = r + y;
            if (yy < 0 || yy >= nr) {
                for (long x = 0; x < filter_nc; ++x) out[x] = 0.0f;
                continue;
            }
            const float *row = plane + yy * nc;
            if (columns_inside) {
                for (long x = 0; x < filter_nc; ++x) out[x] = row[c + x];
            } else {
                for (long x = 0; x < filter_nc; ++x) {
                    const long xx = c + x;
                    out[x] = xx >= 0 && xx < nc ? row[xx] : 0.0f;
                }
            }
        }
    }
}

}  // namespace

namespace dlib {
namespace cpu {

// Same contract as dlib's (dlib/cuda/cpu_dlib.h): `output` becomes the Toeplitz matrix of
// sample `n`, one row per output position (row-major over positions), columns ordered by
// channel, filter row, filter column.
__attribute__((target("avx2,fma"))) void img2col(matrix<float> &output, const tensor &data, long n, long filter_nr,
                                                long filter_nc, long stride_y, long stride_x, long padding_y,
                                                long padding_x) {
    __atomic_fetch_add(&lowerings, 1, __ATOMIC_RELAXED);
    const long channels = data.k(), nr = data.nr(), nc = data.nc();
    const float *sample = data.host() + channels * nr * nc * n;
    const long out_nr = 1 + (nr + 2 * padding_y - filter_nr) / stride_y;
    const long out_nc = 1 + (nc + 2 * padding_x - filter_nc) / stride_x;
    output.set_size(out_nr * out_nc, channels * filter_nr * filter_nc);
    if (output.size() == 0) return;
    float *out = &output(0, 0);
    const long row_length = channels * filter_nr * filter_nc;
    const long max_r = nr + padding_y - (filter_nr - 1);
    const long max_c = nc + padding_x - (filter_nc - 1);
    for (long r = -padding_y; r < max_r; r += stride_y) {
        for (long c = -padding_x; c < max_c; c += stride_x, out += row_length) {
            if (filter_nc == 3)
                fill_row<3>(out, sample, channels, nr, nc, r, c, filter_nr, 3);
            else
                fill_row<0>(out, sample, channels, nr, nc, r, c, filter_nr, filter_nc);
        }
    }
}

}  // namespace cpu
}  // namespace dlib

extern "C" unsigned long long cfs_img2col_calls(void) { return __atomic_load_n(&lowerings, __ATOMIC_RELAXED); }

extern "C" __attribute__((target("avx2,fma"))) int32_t cfs_img2col_matches_dlib(int32_t channels, int32_t rows, int32_t columns, int32_t filter_rows,
                                            int32_t filter_columns, int32_t stride_y, int32_t stride_x,
                                            int32_t padding_y, int32_t padding_x, uint64_t seed) {
    using lowering = void (*)(dlib::matrix<float> &, const dlib::tensor &, long, long, long, long, long, long, long);
    auto *own = static_cast<lowering>(&dlib::cpu::img2col);
    auto *theirs = reinterpret_cast<lowering>(
        dlsym(RTLD_NEXT, "_ZN4dlib3cpu7img2colERNS_6matrixIfLl0ELl0ENS_33memory_manager_stateless_kernel_1IcEENS_16row_major_layoutEEERKNS_6tensorElllllll"));
    if (theirs == nullptr || theirs == own) return -1;  // compared with itself, it would prove nothing
    dlib::resizable_tensor data(2, channels, rows, columns);
    float *values = data.host();
    for (size_t i = 0; i < data.size(); ++i) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        values[i] = float(int64_t(seed >> 33) % 2001 - 1000) / 1000.0f;
    }
    for (long n = 0; n < 2; ++n) {
        dlib::matrix<float> mine, reference;
        own(mine, data, n, filter_rows, filter_columns, stride_y, stride_x, padding_y, padding_x);
        theirs(reference, data, n, filter_rows, filter_columns, stride_y, stride_x, padding_y, padding_x);
        if (mine.nr() != reference.nr() || mine.nc() != reference.nc()) return 0;
        if (std::memcmp(&mine(0, 0), &reference(0, 0), sizeof(float) * mine.size()) != 0) return 0;
    }
    return 1;
}
