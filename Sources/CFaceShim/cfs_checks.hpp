// Internal to CFaceShim: what the checks of the shim's own kernels against dlib's share
// (the *_matches_dlib functions the tests call).
#pragma once

#include "cfs_dlib.hpp"

namespace cfs {

/// For the checks against dlib: an RGB image of noise from `seed`; with `coarse_levels`, a
/// quarter of the bytes are cut to four levels, which makes equal neighbours and ties.
inline void fill_random_rgb(dlib::array2d<dlib::rgb_pixel> &image, uint64_t seed, bool coarse_levels) {
    for (long r = 0; r < image.nr(); ++r) {
        for (long c = 0; c < image.nc(); ++c) {
            unsigned char values[3];
            for (auto &value : values) {
                seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
                value = static_cast<unsigned char>(seed >> 40);
                if (coarse_levels && (seed >> 62) == 0) value &= 0xC0;
            }
            image[r][c] = dlib::rgb_pixel(values[0], values[1], values[2]);
        }
    }
}

}  // namespace cfs
