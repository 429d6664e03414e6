// Geometry and encoding of decoded images: a projective (homography) warp with bilinear
// sampling, and JPEG encoding to memory with libjpeg(-turbo). Used to build presentation
// attacks (a photo moved or tilted in front of the camera) from genuine frames.
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <jerror.h>
#include <jpeglib.h>

#include "cfs_internal.hpp"

using cfs::check_image;
using cfs::failure;
using cfs::guarded;

namespace {

/// Bilinear sample of `image` at (u, v) into `out` (3 bytes); black outside the image (a
/// pixel covers +-0.5 around its centre, so the outermost half pixel repeats the edge).
void sample(const cfs_image *image, double u, double v, uint8_t *out) {
    const double width = image->width, height = image->height;
    if (!(u >= -0.5 && u < width - 0.5 && v >= -0.5 && v < height - 0.5)) {   // also NaN
        out[0] = out[1] = out[2] = 0;
        return;
    }
    u = std::min(std::max(u, 0.0), width - 1);
    v = std::min(std::max(v, 0.0), height - 1);
    const long x0 = long(std::floor(u)), y0 = long(std::floor(v));
    const long x1 = std::min(x0 + 1, long(image->width) - 1), y1 = std::min(y0 + 1, long(image->height) - 1);
    const double fx = u - double(x0), fy = v - double(y0);
    const size_t stride = size_t(image->width) * 3;
    const uint8_t *a = image->rgb + size_t(y0) * stride + size_t(x0) * 3;
    const uint8_t *b = image->rgb + size_t(y0) * stride + size_t(x1) * 3;
    const uint8_t *c = image->rgb + size_t(y1) * stride + size_t(x0) * 3;
    const uint8_t *d = image->rgb + size_t(y1) * stride + size_t(x1) * 3;
    for (int channel = 0; channel < 3; channel++) {
        const double top = a[channel] + (b[channel] - a[channel]) * fx;
        const double bottom = c[channel] + (d[channel] - c[channel]) * fx;
        out[channel] = uint8_t(std::lround(std::min(255.0, std::max(0.0, top + (bottom - top) * fy))));
    }
}

/// libjpeg's error manager, leaving through longjmp with a status and the library's message.
struct jpeg_errors {
    jpeg_error_mgr manager;
    std::jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

void on_jpeg_error(j_common_ptr cinfo) {
    auto *errors = reinterpret_cast<jpeg_errors *>(cinfo->err);
    (*cinfo->err->format_message)(cinfo, errors->message);
    std::longjmp(errors->jump, 1);
}

void on_jpeg_output(j_common_ptr) {}   // warnings are not printed

/// Plain C state only between setjmp and longjmp: nothing with a destructor is skipped.
/// libjpeg's memory destination writes `*buffer` (malloc'd; the caller frees it, also on
/// failure) and `*length`, which live in the caller's frame, not this one.
int32_t encode_jpeg(const cfs_image *image, int32_t quality, unsigned char **buffer, unsigned long *length,
                    cfs_error *error) {
    jpeg_compress_struct cinfo;
    jpeg_errors errors;
    std::memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&errors.manager);
    errors.manager.error_exit = on_jpeg_error;
    errors.manager.output_message = on_jpeg_output;
    errors.message[0] = 0;
    if (setjmp(errors.jump)) {
        jpeg_destroy_compress(&cinfo);
        const bool memory = errors.manager.msg_code == JERR_OUT_OF_MEMORY;
        return cfs_set_error(error, memory ? CFS_OUT_OF_MEMORY : CFS_INTERNAL, "JPEG encoder: %s", errors.message);
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, buffer, length);
    cinfo.image_width = JDIMENSION(image->width);
    cinfo.image_height = JDIMENSION(image->height);
    cinfo.input_components = 3;
    cinfo.in_color_space = JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    jpeg_start_compress(&cinfo, TRUE);
    const size_t stride = size_t(image->width) * 3;
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = image->rgb + size_t(cinfo.next_scanline) * stride;
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    return CFS_OK;
}

}  // namespace

extern "C" {

int32_t cfs_image_warp(const cfs_image *image, const double *matrix, int32_t width, int32_t height, uint8_t *rgb,
                       cfs_error *error) {
    return guarded(error, [&] {
        if (matrix == nullptr || rgb == nullptr) throw failure(CFS_INVALID_ARGUMENT, "invalid warp arguments");
        check_image(image);
        if (width <= 0 || height <= 0 || int64_t(width) * height > (int64_t(1) << 30))
            throw failure(CFS_INVALID_ARGUMENT, "invalid warp output size");
        for (int index = 0; index < 9; index++)
            if (!std::isfinite(matrix[index])) throw failure(CFS_INVALID_ARGUMENT, "the warp matrix is not finite");
        const double *m = matrix;
        for (int32_t y = 0; y < height; y++) {
            uint8_t *row = rgb + size_t(y) * size_t(width) * 3;
            for (int32_t x = 0; x < width; x++) {
                const double w = m[6] * x + m[7] * y + m[8];
                uint8_t *out = row + size_t(x) * 3;
                if (!(w > 1e-12)) {
                    out[0] = out[1] = out[2] = 0;
                    continue;
                }
                sample(image, (m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w, out);
            }
        }
        return int32_t(CFS_OK);
    });
}

int32_t cfs_image_encode_jpeg(const cfs_image *image, int32_t quality, uint8_t **data, size_t *size, cfs_error *error) {
    return guarded(error, [&] {
        if (data == nullptr || size == nullptr) throw failure(CFS_INVALID_ARGUMENT, "no result pointers");
        *data = nullptr;
        *size = 0;
        check_image(image);
        if (quality < 1 || quality > 100) throw failure(CFS_INVALID_ARGUMENT, "JPEG quality must be 1-100");
        unsigned char *buffer = nullptr;
        unsigned long length = 0;
        const int32_t status = encode_jpeg(image, quality, &buffer, &length, error);
        if (status == CFS_OK) {
            *data = buffer;
            *size = size_t(length);
        } else {
            std::free(buffer);
        }
        return status;
    });
}

void cfs_buffer_free(uint8_t *data) { std::free(data); }

}  // extern "C"
