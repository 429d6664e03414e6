// Internal to CFaceShim: the C side (decoding, EXIF, the image object).
#ifndef CFS_DECODE_H
#define CFS_DECODE_H

#include "CFaceShim.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A decoded image: packed RGB rows, top-down, owned (malloc'd).
struct cfs_image {
    uint8_t *rgb;
    int32_t width;
    int32_t height;
};

/// Writes code and message into `error` (when not NULL) and returns `code`.
int32_t cfs_set_error(cfs_error *error, int32_t code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/// JPEG: header only (info) or full decode into RGB with the pixel limit; `orientation`
/// receives the EXIF orientation (1 when absent).
int32_t cfs_jpeg_probe(const uint8_t *data, size_t size, cfs_image_info *info, cfs_error *error);
int32_t cfs_jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels, struct cfs_image *out,
                        int32_t *orientation, cfs_error *error);

/// PNG: the same, through libpng's simplified API (alpha dropped, gray expanded).
int32_t cfs_png_probe(const uint8_t *data, size_t size, cfs_image_info *info, cfs_error *error);
int32_t cfs_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, struct cfs_image *out,
                       cfs_error *error);

/// The orientation (1-8) in an APP1 payload that starts with "Exif\0\0"; 1 when absent or invalid.
int32_t cfs_exif_orientation(const uint8_t *payload, size_t size);

/// Rewrites `image` so that it displays upright for an EXIF orientation (2-8; 1 is a no-op).
int32_t cfs_apply_orientation(struct cfs_image *image, int32_t orientation, cfs_error *error);

#ifdef __cplusplus
}
#endif

#endif
