// Bilinear resizing of RGB images, as dlib's resize_image(in, out, interpolate_bilinear())
// computes it, byte for byte, but eight pixels at a time and without dlib's byte-by-byte
// gathers: each neighbour pixel's three bytes are fetched with one 32-bit gather, and where
// each output column falls in the input is worked out once per image instead of per row.
// HOG detection resizes on every pyramid level (pyramid_down<6>) and to upsample
// (pyramid_up); HOGKernelTests compares this with dlib's own over many sizes and checks that
// detection reaches it.
//
// dlib's pyramids call resize_image unqualified with dlib images, so these non-template
// overloads in namespace dlib, declared before any of that code is instantiated
// (cfs_dlib.hpp includes this file), are the ones those calls resolve to.
#pragma once

namespace cfs {

/// Resizes packed RGB `input` (rows `input_step` bytes apart) into `output`.
void resize_rgb_bilinear(const unsigned char *input, long input_rows, long input_columns, long input_step,
                         unsigned char *output, long output_rows, long output_columns, long output_step);

/// Images this thread has resized through resize_rgb_bilinear.
inline thread_local unsigned long long rgb_resizes = 0;

template <typename in_type, typename out_type>
inline void resize_rgb_image(const in_type &in, out_type &out) {
    using dlib::image_data, dlib::num_columns, dlib::num_rows, dlib::width_step;
    const long rows = num_rows(in), columns = num_columns(in);
    const long out_rows = num_rows(out), out_columns = num_columns(out);
    if (rows * columns == 0 || out_rows * out_columns == 0) return;
    resize_rgb_bilinear(static_cast<const unsigned char *>(image_data(in)), rows, columns, width_step(in),
                        static_cast<unsigned char *>(image_data(out)), out_rows, out_columns, width_step(out));
}

}  // namespace cfs

namespace dlib {

inline void resize_image(const array2d<rgb_pixel> &in, array2d<rgb_pixel> &out, interpolate_bilinear) {
    cfs::resize_rgb_image(in, out);
}

inline void resize_image(const cfs::rgb_view &in, array2d<rgb_pixel> &out, interpolate_bilinear) {
    cfs::resize_rgb_image(in, out);
}

}  // namespace dlib
