// Checks for cfs_fhog_gradient.hpp: the shim's HOG gradients against dlib's own template.
#include "cfs_checks.hpp"

namespace {

template <typename view_type>
__attribute__((target("avx2,fma"))) bool same_gradients(const view_type &image) {
    for (int r = 1; r + 1 < image.nr(); ++r) {
        for (int c = 1; c + 8 < image.nc(); ++c) {
            dlib::simd8f x, y, len, dlib_x, dlib_y, dlib_len;
            cfs::fhog_gradient(r, c, image, x, y, len);
            // Named with its template argument, so that only dlib's templates are candidates.
            dlib::impl_fhog::get_gradient<view_type>(r, c, image, dlib_x, dlib_y, dlib_len);
            float a[24], b[24];
            x.store(a), y.store(a + 8), len.store(a + 16);
            dlib_x.store(b), dlib_y.store(b + 8), dlib_len.store(b + 16);
            if (std::memcmp(a, b, sizeof a) != 0) return false;
        }
    }
    return true;
}

}  // namespace

extern "C" unsigned long long cfs_fhog_gradient_calls(void) { return cfs::fhog_gradient_calls; }

extern "C" __attribute__((target("avx2,fma"))) int32_t cfs_fhog_gradient_matches_dlib(int32_t rows, int32_t columns,
                                                                                     uint64_t seed) {
    if (rows < 3 || columns < 10) return 0;
    dlib::array2d<dlib::rgb_pixel> image(rows, columns);
    cfs::fill_random_rgb(image, seed, true);
    const dlib::const_image_view<dlib::array2d<dlib::rgb_pixel>> view(image);
    const cfs::rgb_view raw{reinterpret_cast<uint8_t *>(&image[0][0]), image.nr(), image.nc()};
    return same_gradients(view) && same_gradients(dlib::const_image_view<cfs::rgb_view>(raw)) ? 1 : 0;
}
