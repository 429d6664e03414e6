// The image object: format sniffing, limits checked before decoding, EXIF orientation.
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfs_decode.h"

static const uint8_t jpeg_magic[3] = {0xFF, 0xD8, 0xFF};
static const uint8_t png_magic[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};

int32_t cfs_set_error(cfs_error *error, int32_t code, const char *format, ...) {
    if (error != NULL) {
        error->code = code;
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(error->message, sizeof error->message, format, arguments);
        va_end(arguments);
    }
    return code;
}

/// The format by magic bytes; a prefix of a magic too short to tell is truncated data.
static int32_t sniff(const uint8_t *data, size_t size, int32_t *format, cfs_error *error) {
    if (data == NULL && size > 0) return cfs_set_error(error, CFS_INVALID_ARGUMENT, "no image data");
    if (size == 0) return cfs_set_error(error, CFS_IMAGE_EMPTY, "the image is empty (0 bytes)");
    if (size >= sizeof jpeg_magic && memcmp(data, jpeg_magic, sizeof jpeg_magic) == 0) {
        *format = CFS_FORMAT_JPEG;
        return CFS_OK;
    }
    if (size >= sizeof png_magic && memcmp(data, png_magic, sizeof png_magic) == 0) {
        *format = CFS_FORMAT_PNG;
        return CFS_OK;
    }
    if ((size < sizeof jpeg_magic && memcmp(data, jpeg_magic, size) == 0) ||
        (size < sizeof png_magic && memcmp(data, png_magic, size) == 0))
        return cfs_set_error(error, CFS_IMAGE_TRUNCATED, "the image ends inside its signature (%zu bytes)", size);
    return cfs_set_error(error, CFS_IMAGE_UNSUPPORTED_FORMAT, "not a JPEG or PNG image");
}

int32_t cfs_image_probe(const uint8_t *data, size_t size, cfs_image_info *info, cfs_error *error) {
    if (info == NULL) return cfs_set_error(error, CFS_INVALID_ARGUMENT, "no info to fill");
    memset(info, 0, sizeof *info);
    int32_t format = CFS_FORMAT_UNKNOWN;
    const int32_t status = sniff(data, size, &format, error);
    if (status != CFS_OK) return status;
    return format == CFS_FORMAT_JPEG ? cfs_jpeg_probe(data, size, info, error) : cfs_png_probe(data, size, info, error);
}

int32_t cfs_image_decode(const uint8_t *data, size_t size, const cfs_decode_limits *limits, cfs_image **image,
                         cfs_error *error) {
    if (image == NULL) return cfs_set_error(error, CFS_INVALID_ARGUMENT, "no image pointer to fill");
    *image = NULL;
    const cfs_decode_limits none = {0, 0, 1};
    if (limits == NULL) limits = &none;
    if (limits->max_bytes > 0 && size > limits->max_bytes)
        return cfs_set_error(error, CFS_IMAGE_TOO_LARGE, "the image has %zu bytes, over the limit of %llu", size,
                             (unsigned long long)limits->max_bytes);
    int32_t format = CFS_FORMAT_UNKNOWN;
    int32_t status = sniff(data, size, &format, error);
    if (status != CFS_OK) return status;

    struct cfs_image decoded = {NULL, 0, 0};
    int32_t orientation = 1;
    status = format == CFS_FORMAT_JPEG ? cfs_jpeg_decode(data, size, limits->max_pixels, &decoded, &orientation, error)
                                       : cfs_png_decode(data, size, limits->max_pixels, &decoded, error);
    if (status != CFS_OK) return status;
    if (limits->apply_exif) {
        status = cfs_apply_orientation(&decoded, orientation, error);
        if (status != CFS_OK) {
            free(decoded.rgb);
            return status;
        }
    }
    struct cfs_image *result = malloc(sizeof *result);
    if (result == NULL) {
        free(decoded.rgb);
        return cfs_set_error(error, CFS_OUT_OF_MEMORY, "out of memory");
    }
    *result = decoded;
    *image = result;
    return CFS_OK;
}

int32_t cfs_image_from_rgb(const uint8_t *rgb, int32_t width, int32_t height, cfs_image **image, cfs_error *error) {
    if (image == NULL) return cfs_set_error(error, CFS_INVALID_ARGUMENT, "no image pointer to fill");
    *image = NULL;
    if (rgb == NULL || width <= 0 || height <= 0 || (int64_t)width * height > (int64_t)1 << 30)
        return cfs_set_error(error, CFS_INVALID_ARGUMENT, "invalid RGB image %dx%d", width, height);
    const size_t bytes = (size_t)width * (size_t)height * 3;
    struct cfs_image *result = malloc(sizeof *result);
    uint8_t *copy = malloc(bytes);
    if (result == NULL || copy == NULL) {
        free(result);
        free(copy);
        return cfs_set_error(error, CFS_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(copy, rgb, bytes);
    result->rgb = copy;
    result->width = width;
    result->height = height;
    *image = result;
    return CFS_OK;
}

int32_t cfs_image_crop(const cfs_image *image, int32_t left, int32_t top, int32_t width, int32_t height,
                       cfs_image **out, cfs_error *error) {
    if (image == NULL || out == NULL) return cfs_set_error(error, CFS_INVALID_ARGUMENT, "no image");
    *out = NULL;
    int64_t x0 = left < 0 ? 0 : left, y0 = top < 0 ? 0 : top;
    int64_t x1 = (int64_t)left + width, y1 = (int64_t)top + height;
    if (x1 > image->width) x1 = image->width;
    if (y1 > image->height) y1 = image->height;
    if (x1 <= x0 || y1 <= y0) return cfs_set_error(error, CFS_INVALID_ARGUMENT, "the crop lies outside the image");
    const int32_t cw = (int32_t)(x1 - x0), ch = (int32_t)(y1 - y0);
    struct cfs_image *result = malloc(sizeof *result);
    uint8_t *pixels = malloc((size_t)cw * (size_t)ch * 3);
    if (result == NULL || pixels == NULL) {
        free(result);
        free(pixels);
        return cfs_set_error(error, CFS_OUT_OF_MEMORY, "out of memory");
    }
    for (int32_t y = 0; y < ch; y++)
        memcpy(pixels + (size_t)y * cw * 3, image->rgb + ((size_t)(y0 + y) * image->width + (size_t)x0) * 3,
               (size_t)cw * 3);
    result->rgb = pixels;
    result->width = cw;
    result->height = ch;
    *out = result;
    return CFS_OK;
}

int32_t cfs_image_width(const cfs_image *image) { return image != NULL ? image->width : 0; }
int32_t cfs_image_height(const cfs_image *image) { return image != NULL ? image->height : 0; }
const uint8_t *cfs_image_pixels(const cfs_image *image) { return image != NULL ? image->rgb : NULL; }

void cfs_image_free(cfs_image *image) {
    if (image == NULL) return;
    free(image->rgb);
    free(image);
}
