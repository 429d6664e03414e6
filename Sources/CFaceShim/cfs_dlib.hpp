// Internal to CFaceShim: every C++ file includes this first, so that all dlib (and standard
// library) code compiled into this target is built the same way: for AVX2 and FMA, with
// dlib's SIMD paths on. cfs_cpu_supported() checks the CPU before any of it runs.
#pragma once

#ifndef DLIB_NO_ABORT_ON_2ND_FATAL_ERROR
#define DLIB_NO_ABORT_ON_2ND_FATAL_ERROR   // a second dlib error must throw, never abort()
#endif
#define DLIB_HAVE_SSE2
#define DLIB_HAVE_SSE3
#define DLIB_HAVE_SSE41
#define DLIB_HAVE_AVX
#define DLIB_HAVE_AVX2

// Let the compiler fuse dlib's SIMD multiply-then-add pairs into FMA instructions (the HOG
// filters are chains of them); results differ from separate rounding by ~1e-7.
#pragma clang fp contract(fast)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <dlib/array2d.h>
#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>
#include <dlib/pixel.h>
#pragma clang attribute pop

#include "cfs_internal.hpp"

namespace cfs {

/// A read-only view of a cfs_image in dlib's generic image interface (no copy).
struct rgb_view {
    uint8_t *data;
    long rows;
    long cols;
};
inline long num_rows(const rgb_view &view) { return view.rows; }
inline long num_columns(const rgb_view &view) { return view.cols; }
inline void *image_data(rgb_view &view) { return view.data; }
inline const void *image_data(const rgb_view &view) { return view.data; }
inline long width_step(const rgb_view &view) { return view.cols * 3; }

}  // namespace cfs

namespace dlib {
template <> struct image_traits<cfs::rgb_view> {
    typedef rgb_pixel pixel_type;
};
}  // namespace dlib

// The shim's own versions of dlib functions that HOG detection spends its time in; each must
// be declared before any dlib code that calls it is instantiated.
#include "cfs_fhog_gradient.hpp"
#include "cfs_resize.hpp"

namespace cfs {

inline rgb_view view_of(const cfs_image *image) { return rgb_view{image->rgb, image->height, image->width}; }

inline dlib::rectangle to_dlib(const cfs_rect &box) { return dlib::rectangle(box.left, box.top, box.right, box.bottom); }

/// The image detection runs on: `image` itself, or a copy scaled down so its longer side is
/// at most `max_side` (halving with dlib's pyramid filter first, then bilinear), with the
/// factors that map boxes back.
struct detection_input {
    dlib::array2d<dlib::rgb_pixel> scaled;
    bool is_scaled = false;
    double scale_x = 1;
    double scale_y = 1;
};

inline void prepare_detection_input(const cfs_image *image, int32_t max_side, detection_input &input) {
    const long longer = std::max(image->width, image->height);
    if (max_side <= 0 || longer <= max_side) return;
    const rgb_view view = view_of(image);
    dlib::array2d<dlib::rgb_pixel> current;
    dlib::assign_image(current, view);
    dlib::pyramid_down<2> halve;
    while (std::max(current.nc(), current.nr()) / 2 >= max_side) {
        dlib::array2d<dlib::rgb_pixel> smaller;
        halve(current, smaller);
        dlib::swap(current, smaller);
    }
    const double factor = double(max_side) / double(std::max(current.nc(), current.nr()));
    const long cols = std::max(1L, std::lround(current.nc() * factor));
    const long rows = std::max(1L, std::lround(current.nr() * factor));
    input.scaled.set_size(rows, cols);
    dlib::resize_image(current, input.scaled, dlib::interpolate_bilinear());
    input.is_scaled = true;
    input.scale_x = double(cols) / double(image->width);
    input.scale_y = double(rows) / double(image->height);
}

/// Maps a box found on the scaled copy back to the original image.
inline cfs_rect map_back(const dlib::rectangle &rect, double score, const detection_input &input) {
    cfs_rect box;
    box.left = std::lround(rect.left() / input.scale_x);
    box.top = std::lround(rect.top() / input.scale_y);
    box.right = std::lround((rect.right() + 1) / input.scale_x) - 1;
    box.bottom = std::lround((rect.bottom() + 1) / input.scale_y) - 1;
    box.score = score;
    return box;
}

}  // namespace cfs

