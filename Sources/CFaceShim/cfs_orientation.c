// Turns a decoded image upright according to its EXIF orientation.
#include <stdlib.h>
#include <string.h>

#include "cfs_decode.h"

int32_t cfs_apply_orientation(struct cfs_image *image, int32_t orientation, cfs_error *error) {
    if (orientation < 2 || orientation > 8) return CFS_OK;
    const int64_t w = image->width, h = image->height;
    const int swaps = orientation >= 5;   // 5-8 exchange width and height
    const int64_t dw = swaps ? h : w, dh = swaps ? w : h;
    uint8_t *out = malloc((size_t)(w * h * 3));
    if (out == NULL) return cfs_set_error(error, CFS_OUT_OF_MEMORY, "out of memory rotating a %lldx%lld image",
                                          (long long)w, (long long)h);
    for (int64_t y = 0; y < dh; y++) {
        for (int64_t x = 0; x < dw; x++) {
            int64_t sx, sy;   // the source pixel shown at (x, y)
            switch (orientation) {
            case 2: sx = w - 1 - x; sy = y; break;                 // mirrored
            case 3: sx = w - 1 - x; sy = h - 1 - y; break;         // rotated 180
            case 4: sx = x; sy = h - 1 - y; break;                 // flipped vertically
            case 5: sx = y; sy = x; break;                         // transposed
            case 6: sx = y; sy = h - 1 - x; break;                 // needs 90 clockwise
            case 7: sx = w - 1 - y; sy = h - 1 - x; break;         // transversed
            default: sx = w - 1 - y; sy = x; break;                // 8: needs 90 counter-clockwise
            }
            memcpy(out + (y * dw + x) * 3, image->rgb + (sy * w + sx) * 3, 3);
        }
    }
    free(image->rgb);
    image->rgb = out;
    image->width = (int32_t)dw;
    image->height = (int32_t)dh;
    return CFS_OK;
}
