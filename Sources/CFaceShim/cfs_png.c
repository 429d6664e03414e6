// PNG decoding from memory through libpng's simplified API, which keeps its own
// setjmp/longjmp inside libpng and reports failures as a message.
#include <stdlib.h>
#include <string.h>

#include <png.h>

#include "cfs_decode.h"

/// libpng reports running out of input as "read beyond end of data" (memory reader) or
/// "Not enough image data"; everything else is a damaged file.
static int32_t classify(const char *message) {
    if (strstr(message, "beyond end") != NULL || strstr(message, "Not enough") != NULL ||
        strstr(message, "unexpected end") != NULL || strstr(message, "Truncated") != NULL)
        return CFS_IMAGE_TRUNCATED;
    return CFS_IMAGE_CORRUPT;
}

static int32_t fail(png_image *image, cfs_error *error) {
    const int32_t code = classify(image->message);
    cfs_set_error(error, code, "PNG: %s", image->message);
    png_image_free(image);
    return code;
}

int32_t cfs_png_probe(const uint8_t *data, size_t size, cfs_image_info *info, cfs_error *error) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) return fail(&image, error);
    info->format = CFS_FORMAT_PNG;
    info->width = image.width;
    info->height = image.height;
    info->channels = (int32_t)PNG_IMAGE_SAMPLE_CHANNELS(image.format);
    info->orientation = 1;
    png_image_free(&image);
    return CFS_OK;
}

int32_t cfs_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels, struct cfs_image *out,
                       cfs_error *error) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) return fail(&image, error);

    const uint64_t width = image.width, height = image.height;
    if (max_pixels > 0 && width * height > max_pixels) {
        png_image_free(&image);
        return cfs_set_error(error, CFS_IMAGE_DIMENSIONS_TOO_LARGE,
                             "PNG header declares %llux%llu pixels, over the limit of %llu",
                             (unsigned long long)width, (unsigned long long)height, (unsigned long long)max_pixels);
    }
    // Without alpha: RGB directly. With alpha: RGBA, then drop alpha (no compositing), as
    // most image libraries' "convert to RGB" do.
    const int alpha = (image.format & PNG_FORMAT_FLAG_ALPHA) != 0;
    image.format = alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
    uint8_t *rgba = malloc((size_t)(width * height * (alpha ? 4 : 3)));
    if (rgba == NULL) {
        png_image_free(&image);
        return cfs_set_error(error, CFS_OUT_OF_MEMORY, "out of memory decoding a %llux%llu PNG",
                             (unsigned long long)width, (unsigned long long)height);
    }
    if (!png_image_finish_read(&image, NULL, rgba, 0, NULL)) {
        free(rgba);
        return fail(&image, error);
    }
    const size_t count = (size_t)(width * height);
    if (alpha) {
        for (size_t i = 0; i < count; i++) {
            rgba[3 * i] = rgba[4 * i];
            rgba[3 * i + 1] = rgba[4 * i + 1];
            rgba[3 * i + 2] = rgba[4 * i + 2];
        }
        uint8_t *rgb = realloc(rgba, count * 3);
        if (rgb != NULL) rgba = rgb;
    }
    out->rgb = rgba;
    out->width = (int32_t)width;
    out->height = (int32_t)height;
    return CFS_OK;
}
