// JPEG decoding from memory with libjpeg(-turbo). Errors leave through longjmp to the one
// setjmp in each function; nothing allocated between the two escapes its cleanup.
// Truncation (libjpeg's "premature end" warning) and damaged entropy data are errors here,
// not warnings: a biometric decision should not rest on a half-grey picture.
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "cfs_decode.h"

/// Scans past this many are refused (a progressive file with thousands of tiny scans is a
/// known way to make decoders spin).
enum { CFS_JPEG_MAX_SCANS = 1000 };

struct cfs_jpeg_errors {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    int32_t code;
    char message[JMSG_LENGTH_MAX];
};

static void on_error_exit(j_common_ptr cinfo) {
    struct cfs_jpeg_errors *errors = (struct cfs_jpeg_errors *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, errors->message);
    errors->code = CFS_IMAGE_CORRUPT;
    longjmp(errors->jump, 1);
}

static void on_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;   // trace messages
    struct cfs_jpeg_errors *errors = (struct cfs_jpeg_errors *)cinfo->err;
    const int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF) {
        errors->code = CFS_IMAGE_TRUNCATED;
    } else if (code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE || code == JWRN_MUST_RESYNC ||
               code == JWRN_ARITH_BAD_CODE) {
        errors->code = CFS_IMAGE_CORRUPT;
    } else {
        cinfo->err->num_warnings++;
        return;   // tolerated: extraneous bytes, odd but decodable files
    }
    (*cinfo->err->format_message)(cinfo, errors->message);
    longjmp(errors->jump, 1);
}

static void on_progress(j_common_ptr cinfo) {
    if (cinfo->is_decompressor && ((j_decompress_ptr)cinfo)->input_scan_number > CFS_JPEG_MAX_SCANS) {
        struct cfs_jpeg_errors *errors = (struct cfs_jpeg_errors *)cinfo->err;
        errors->code = CFS_IMAGE_CORRUPT;
        snprintf(errors->message, sizeof errors->message, "more than %d scans", CFS_JPEG_MAX_SCANS);
        longjmp(errors->jump, 1);
    }
}

static void prepare(struct jpeg_decompress_struct *cinfo, struct cfs_jpeg_errors *errors,
                    struct jpeg_progress_mgr *progress) {
    cinfo->err = jpeg_std_error(&errors->manager);
    errors->manager.error_exit = on_error_exit;
    errors->manager.emit_message = on_message;
    errors->code = CFS_OK;
    errors->message[0] = 0;
    progress->progress_monitor = on_progress;
}

static int32_t orientation_of(struct jpeg_decompress_struct *cinfo) {
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker != JPEG_APP0 + 1) continue;
        const int32_t value = cfs_exif_orientation(marker->data, marker->data_length);
        if (value != 1) return value;
    }
    return 1;
}

int32_t cfs_jpeg_probe(const uint8_t *data, size_t size, cfs_image_info *info, cfs_error *error) {
    struct jpeg_decompress_struct cinfo;
    struct cfs_jpeg_errors errors;
    struct jpeg_progress_mgr progress;
    memset(&cinfo, 0, sizeof cinfo);
    prepare(&cinfo, &errors, &progress);
    if (setjmp(errors.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return cfs_set_error(error, errors.code, "JPEG: %s", errors.message);
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);
    info->format = CFS_FORMAT_JPEG;
    info->width = cinfo.image_width;
    info->height = cinfo.image_height;
    info->channels = cinfo.num_components;
    info->orientation = orientation_of(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return CFS_OK;
}

/// Adobe CMYK JPEGs store inverted values: channel * K / 255 gives RGB.
static void cmyk_row_to_rgb(const uint8_t *cmyk, uint8_t *rgb, JDIMENSION width) {
    for (JDIMENSION x = 0; x < width; x++) {
        const unsigned k = cmyk[4 * x + 3];
        rgb[3 * x + 0] = (uint8_t)((cmyk[4 * x + 0] * k + 127) / 255);
        rgb[3 * x + 1] = (uint8_t)((cmyk[4 * x + 1] * k + 127) / 255);
        rgb[3 * x + 2] = (uint8_t)((cmyk[4 * x + 2] * k + 127) / 255);
    }
}

int32_t cfs_jpeg_decode(const uint8_t *data, size_t size, uint64_t max_pixels, struct cfs_image *out,
                        int32_t *orientation, cfs_error *error) {
    struct jpeg_decompress_struct cinfo;
    struct cfs_jpeg_errors errors;
    struct jpeg_progress_mgr progress;
    uint8_t *volatile pixels = NULL;
    uint8_t *volatile row = NULL;
    memset(&cinfo, 0, sizeof cinfo);
    prepare(&cinfo, &errors, &progress);
    if (setjmp(errors.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        free(row);
        if (errors.code == CFS_OK) errors.code = CFS_IMAGE_CORRUPT;
        if (errors.code == CFS_IMAGE_DIMENSIONS_TOO_LARGE || errors.code == CFS_OUT_OF_MEMORY)
            return cfs_set_error(error, errors.code, "%s", errors.message);
        return cfs_set_error(error, errors.code, "JPEG: %s", errors.message);
    }
    jpeg_create_decompress(&cinfo);
    cinfo.progress = &progress;
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_save_markers(&cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&cinfo, TRUE);

    const uint64_t width = cinfo.image_width, height = cinfo.image_height;
    if (max_pixels > 0 && width * height > max_pixels) {
        errors.code = CFS_IMAGE_DIMENSIONS_TOO_LARGE;
        snprintf(errors.message, sizeof errors.message, "JPEG header declares %llux%llu pixels, over the limit of %llu",
                 (unsigned long long)width, (unsigned long long)height, (unsigned long long)max_pixels);
        longjmp(errors.jump, 1);
    }
    *orientation = orientation_of(&cinfo);

    const int cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_RGB;
    jpeg_start_decompress(&cinfo);

    pixels = malloc((size_t)(width * height * 3));
    if (cmyk) row = malloc((size_t)width * 4);
    if (pixels == NULL || (cmyk && row == NULL)) {
        errors.code = CFS_OUT_OF_MEMORY;
        snprintf(errors.message, sizeof errors.message, "out of memory decoding a %llux%llu JPEG",
                 (unsigned long long)width, (unsigned long long)height);
        longjmp(errors.jump, 1);
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        uint8_t *target = pixels + (size_t)cinfo.output_scanline * width * 3;
        JSAMPROW rows[1] = {cmyk ? row : target};
        if (jpeg_read_scanlines(&cinfo, rows, 1) != 1) {
            errors.code = CFS_IMAGE_TRUNCATED;
            snprintf(errors.message, sizeof errors.message, "JPEG: data ends before the image does");
            longjmp(errors.jump, 1);
        }
        if (cmyk) cmyk_row_to_rgb(row, target, cinfo.output_width);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    free(row);

    out->rgb = pixels;
    out->width = (int32_t)width;
    out->height = (int32_t)height;
    return CFS_OK;
}
