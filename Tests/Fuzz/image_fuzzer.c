// libFuzzer target: the image decoders of CFaceShim (JPEG through libjpeg, PNG through libpng,
// EXIF orientation), exactly as the server calls them on uploaded frames and documents, with
// the server's pixel limit. Built with AddressSanitizer and UndefinedBehaviorSanitizer by
// Tests/Fuzz/build.sh: any overflow, leak, trap or undefined behaviour is a finding.
#include <stddef.h>
#include <stdint.h>

#include "CFaceShim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cfs_image_info info;
    cfs_error error;
    (void)cfs_image_probe(data, size, &info, &error);
    cfs_decode_limits limits = {.max_pixels = 4096 * 4096, .apply_exif = 1};
    cfs_image *image = NULL;
    if (cfs_image_decode(data, size, &limits, &image, &error) == 0 && image != NULL) {
        // Touch the pixels the way the face path does: every row of the decoded image.
        const uint8_t *pixels = cfs_image_pixels(image);
        volatile uint8_t sum = 0;
        int64_t rows = cfs_image_height(image), row_bytes = (int64_t)cfs_image_width(image) * 3;
        for (int64_t y = 0; y < rows; y++) sum += pixels[y * row_bytes + row_bytes - 1];
        cfs_image_free(image);
    }
    return 0;
}
