// EXIF orientation from a JPEG APP1 payload. Every read is bounds-checked: the payload
// comes from untrusted files.
#include <string.h>

#include "cfs_decode.h"

static uint32_t read16(const uint8_t *p, int little) {
    return little ? (uint32_t)p[0] | ((uint32_t)p[1] << 8) : ((uint32_t)p[0] << 8) | (uint32_t)p[1];
}

static uint32_t read32(const uint8_t *p, int little) {
    return little ? read16(p, 1) | (read16(p + 2, 1) << 16) : (read16(p, 0) << 16) | read16(p + 2, 0);
}

int32_t cfs_exif_orientation(const uint8_t *payload, size_t size) {
    static const uint8_t signature[6] = {'E', 'x', 'i', 'f', 0, 0};
    if (payload == NULL || size < sizeof signature + 8 || memcmp(payload, signature, sizeof signature) != 0) return 1;
    const uint8_t *tiff = payload + sizeof signature;
    const size_t length = size - sizeof signature;

    int little;
    if (tiff[0] == 'I' && tiff[1] == 'I') little = 1;
    else if (tiff[0] == 'M' && tiff[1] == 'M') little = 0;
    else return 1;
    if (read16(tiff + 2, little) != 42) return 1;

    const uint32_t ifd = read32(tiff + 4, little);
    if (ifd < 8 || (size_t)ifd + 2 > length) return 1;
    const uint32_t entries = read16(tiff + ifd, little);
    for (uint32_t i = 0; i < entries; i++) {
        const size_t offset = (size_t)ifd + 2 + (size_t)i * 12;
        if (offset + 12 > length) break;
        if (read16(tiff + offset, little) != 0x0112) continue;
        const uint32_t type = read16(tiff + offset + 2, little);
        uint32_t value;
        if (type == 3) value = read16(tiff + offset + 8, little);        // SHORT
        else if (type == 4) value = read32(tiff + offset + 8, little);   // LONG (seen in the wild)
        else return 1;
        return (value >= 1 && value <= 8) ? (int32_t)value : 1;
    }
    return 1;
}
