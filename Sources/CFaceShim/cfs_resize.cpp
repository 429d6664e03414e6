// cfs_resize.hpp's resizing, and its comparison with dlib's own.
#include "cfs_checks.hpp"

#include <immintrin.h>

namespace cfs {
namespace {

/// Where each output column falls: the input column on its left, how far past it, and for
/// each eight columns how to fetch their neighbours' bytes with byte shuffles.
struct column_map {
    /// Per column, padded to a multiple of eight (padding: the first column's, never stored).
    std::vector<int32_t> left;
    std::vector<float> fraction;
    std::vector<float> complement;  // 1 - fraction
    /// Per eight columns: each half (four columns) reads 32 bytes of a row from `start[h]`;
    /// the masks are the shuffles that sort them into the left and right neighbours' 32-bit words.
    struct group {
        int32_t start[2];
        int32_t end;  // where the reading ends, in bytes from the row's start
        bool shuffles;  // false where the neighbours lie too far apart for a 32-byte window
        alignas(32) signed char left_first[32], left_second[32], right_first[32], right_second[32];
    };
    std::vector<group> groups;
    long mapped = 0;  // columns taken this way; dlib takes the rest in double precision
};

/// The columns dlib works out four at a time in single precision: its lanes start at the
/// first four positions and each step adds four columns' worth, so the rounding is that of
/// those additions, repeated here. It stops at the first four whose right neighbour of the
/// last lies outside the input.
__attribute__((target("avx2,fma"))) void map_columns(long input_columns, double x_scale, column_map &map) {
    double x = -4 * x_scale;
    const dlib::simd4f step = 4 * x_scale;
    dlib::simd4f position(x, x + x_scale, x + 2 * x_scale, x + 3 * x_scale);
    for (;; map.mapped += 4) {
        position += step;
        const dlib::simd4i left = dlib::simd4i(position);
        const dlib::simd4f fraction = position - left;
        const dlib::simd4f complement = 1 - fraction;
        const dlib::simd4i right = left + 1;
        int32_t lefts[4], rights[4];
        float fractions[4], complements[4];
        left.store(lefts);
        right.store(rights);
        if (rights[3] >= input_columns) break;
        fraction.store(fractions);
        complement.store(complements);
        map.left.insert(map.left.end(), lefts, lefts + 4);
        map.fraction.insert(map.fraction.end(), fractions, fractions + 4);
        map.complement.insert(map.complement.end(), complements, complements + 4);
    }
    const long padded = (map.mapped + 7) / 8 * 8;
    map.left.resize(padded, map.left.empty() ? 0 : map.left[0]);
    map.fraction.resize(padded, 0);
    map.complement.resize(padded, 1);
    map.groups.resize(size_t(padded / 8));
    for (size_t g = 0; g < map.groups.size(); ++g) {
        column_map::group &group = map.groups[g];
        const int32_t *left = &map.left[8 * g];
        const int lanes = int(std::min<long>(8, map.mapped - 8 * long(g)));
        group.shuffles = true;
        for (int h = 0; h < 2; ++h) {
            group.start[h] = 3 * left[std::min(4 * h, lanes - 1)];
            for (int i = 0; i < 4; ++i) {
                const int lane = 4 * h + i;
                for (int side = 0; side < 2; ++side) {
                    signed char *first_half = side == 0 ? group.left_first : group.right_first;
                    signed char *second_half = side == 0 ? group.left_second : group.right_second;
                    for (int byte = 0; byte < 4; ++byte) {
                        const int index = 16 * h + 4 * i + byte;
                        first_half[index] = second_half[index] = -128;
                        // A lane past the map's end, and each word's fourth byte, stay zero.
                        if (lane >= lanes || byte == 3) continue;
                        const int at = 3 * (left[lane] + side) - group.start[h] + byte;
                        if (at < 0 || at >= 32) group.shuffles = false;
                        else if (at < 16) first_half[index] = static_cast<signed char>(at);
                        else second_half[index] = static_cast<signed char>(at - 16);
                    }
                }
            }
        }
        group.end = std::max(group.start[0], group.start[1]) + 32;
    }
}

/// The neighbours' words of eight columns from one row by gathering (one byte past each
/// pixel is read, so the image's last row is read byte by byte instead).
__attribute__((target("avx2,fma"))) inline __m256i gathered_words(const unsigned char *row, __m256i offsets, bool last_row) {
    if (!last_row) return _mm256_i32gather_epi32(reinterpret_cast<const int *>(row), offsets, 1);
    alignas(32) int32_t at[8], words[8];
    _mm256_store_si256(reinterpret_cast<__m256i *>(at), offsets);
    for (int i = 0; i < 8; ++i) words[i] = row[at[i]] | row[at[i] + 1] << 8 | row[at[i] + 2] << 16;
    return _mm256_load_si256(reinterpret_cast<const __m256i *>(words));
}

__attribute__((target("avx2,fma"))) inline __m256i mask(const signed char *bytes) {
    return _mm256_load_si256(reinterpret_cast<const __m256i *>(bytes));
}

/// The same by shuffling two 32-byte windows of the row.
__attribute__((target("avx2,fma"))) inline void shuffled_words(const unsigned char *row, const column_map::group &group,
                                                             __m256i &left, __m256i &right) {
    const __m128i *a = reinterpret_cast<const __m128i *>(row + group.start[0]);
    const __m128i *b = reinterpret_cast<const __m128i *>(row + group.start[1]);
    const __m256i first = _mm256_setr_m128i(_mm_loadu_si128(a), _mm_loadu_si128(b));
    const __m256i second = _mm256_setr_m128i(_mm_loadu_si128(a + 1), _mm_loadu_si128(b + 1));
    left = _mm256_or_si256(_mm256_shuffle_epi8(first, mask(group.left_first)), _mm256_shuffle_epi8(second, mask(group.left_second)));
    right = _mm256_or_si256(_mm256_shuffle_epi8(first, mask(group.right_first)), _mm256_shuffle_epi8(second, mask(group.right_second)));
}

__attribute__((target("avx2,fma"))) inline dlib::simd8f channel(__m256i words, int k) {
    return dlib::simd8f(dlib::simd8i(_mm256_and_si256(_mm256_srli_epi32(words, 8 * k), _mm256_set1_epi32(0xFF))));
}

/// One row of input as the resize reads it: where it starts and how many bytes may be read
/// from there before the end of the image.
struct source_row {
    const unsigned char *bytes;
    long readable;
    bool last;
};

__attribute__((target("avx2,fma"))) inline void neighbour_words(const column_map &map, size_t g, const source_row &row,
                                                              __m256i &left, __m256i &right) {
    const column_map::group &group = map.groups[g];
    if (group.shuffles && group.end <= row.readable) return shuffled_words(row.bytes, group, left, right);
    const __m256i offsets =
        _mm256_mullo_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(&map.left[8 * g])), _mm256_set1_epi32(3));
    left = gathered_words(row.bytes, offsets, row.last);
    right = gathered_words(row.bytes, _mm256_add_epi32(offsets, _mm256_set1_epi32(3)), row.last);
}

/// Eight output pixels of group `g` (`count` of them written).
__attribute__((target("avx2,fma"))) inline void eight_pixels(const column_map &map, size_t g, int count, const source_row &top,
                                                           const source_row &bottom, dlib::simd8f tb_fraction,
                                                           dlib::simd8f tb_complement, unsigned char *out) {
    dlib::simd8f fraction, complement;
    fraction.load(&map.fraction[8 * g]);
    complement.load(&map.complement[8 * g]);
    // dlib's weights and sum, in its order.
    const dlib::simd8f tlf = tb_complement * complement;
    const dlib::simd8f trf = tb_complement * fraction;
    const dlib::simd8f blf = tb_fraction * complement;
    const dlib::simd8f brf = tb_fraction * fraction;
    __m256i tl, tr, bl, br;
    neighbour_words(map, g, top, tl, tr);
    neighbour_words(map, g, bottom, bl, br);
    __m256i packed = _mm256_setzero_si256();
    for (int k = 0; k < 3; ++k) {
        const dlib::simd8i value = dlib::simd8i(tlf * channel(tl, k) + trf * channel(tr, k) + blf * channel(bl, k) + brf * channel(br, k));
        packed = _mm256_or_si256(packed, _mm256_slli_epi32(_mm256_and_si256(value, _mm256_set1_epi32(0xFF)), 8 * k));
    }
    // Four 32-bit words per half to twelve bytes.
    const __m256i squeeze = _mm256_setr_epi8(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1,
                                             0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
    const __m256i bytes = _mm256_shuffle_epi8(packed, squeeze);
    const __m128i low = _mm256_castsi256_si128(bytes), high = _mm256_extracti128_si256(bytes, 1);
    if (count == 8) {
        _mm_storel_epi64(reinterpret_cast<__m128i *>(out), low);
        const int32_t low_rest = _mm_extract_epi32(low, 2), high_rest = _mm_extract_epi32(high, 2);
        std::memcpy(out + 8, &low_rest, 4);
        _mm_storel_epi64(reinterpret_cast<__m128i *>(out + 12), high);
        std::memcpy(out + 20, &high_rest, 4);
        return;
    }
    alignas(16) unsigned char halves[32];
    _mm_store_si128(reinterpret_cast<__m128i *>(halves), low);
    _mm_store_si128(reinterpret_cast<__m128i *>(halves + 16), high);
    for (int i = 0; i < count; ++i) std::memcpy(out + 3 * i, halves + (i < 4 ? 3 * i : 16 + 3 * (i - 4)), 3);
}

}  // namespace

__attribute__((target("avx2,fma"))) void resize_rgb_bilinear(const unsigned char *input, long input_rows, long input_columns,
                                                           long input_step, unsigned char *output, long output_rows,
                                                           long output_columns, long output_step) {
    ++rgb_resizes;
    const double x_scale = (input_columns - 1) / (double)std::max<long>(output_columns - 1, 1);
    const double y_scale = (input_rows - 1) / (double)std::max<long>(output_rows - 1, 1);
    column_map map;
    map_columns(input_columns, x_scale, map);
    const long image_bytes = (input_rows - 1) * input_step + 3 * input_columns;
    const auto source = [&](long r) {
        return source_row{input + r * input_step, image_bytes - r * input_step, r == input_rows - 1};
    };
    const auto pixel = [](const unsigned char *p) { return dlib::rgb_pixel(p[0], p[1], p[2]); };
    double y = -y_scale;
    for (long r = 0; r < output_rows; ++r) {
        y += y_scale;
        const long top = static_cast<long>(std::floor(y));
        const long bottom = std::min(top + 1, input_rows - 1);
        const double tb_frac = y - top;
        const source_row top_row = source(top), bottom_row = source(bottom);
        unsigned char *out = output + r * output_step;
        const dlib::simd8f tb_fraction = tb_frac, tb_complement = 1 - tb_frac;
        for (size_t g = 0; g < map.groups.size(); ++g) {
            eight_pixels(map, g, int(std::min<long>(8, map.mapped - 8 * long(g))), top_row, bottom_row, tb_fraction,
                         tb_complement, out + 24 * g);
        }
        // The columns dlib takes in double precision, with its expression.
        double x = -x_scale + map.mapped * x_scale;
        for (long c = map.mapped; c < output_columns; ++c) {
            x += x_scale;
            const long left = static_cast<long>(std::floor(x));
            const long right = std::min(left + 1, input_columns - 1);
            const double lr_frac = x - left;
            const dlib::rgb_pixel tl = pixel(top_row.bytes + 3 * left), tr = pixel(top_row.bytes + 3 * right);
            const dlib::rgb_pixel bl = pixel(bottom_row.bytes + 3 * left), br = pixel(bottom_row.bytes + 3 * right);
            dlib::rgb_pixel value;
            dlib::assign_pixel(value, 0);
            dlib::vector_to_pixel(value, (1 - tb_frac) * ((1 - lr_frac) * dlib::pixel_to_vector<double>(tl) +
                                                          lr_frac * dlib::pixel_to_vector<double>(tr)) +
                                             tb_frac * ((1 - lr_frac) * dlib::pixel_to_vector<double>(bl) +
                                                        lr_frac * dlib::pixel_to_vector<double>(br)));
            out[3 * c] = value.red, out[3 * c + 1] = value.green, out[3 * c + 2] = value.blue;
        }
    }
}

}  // namespace cfs

extern "C" unsigned long long cfs_rgb_resizes(void) { return cfs::rgb_resizes; }

extern "C" __attribute__((target("avx2,fma"))) int32_t cfs_resize_matches_dlib(int32_t rows, int32_t columns, int32_t out_rows,
                                                                              int32_t out_columns, uint64_t seed) {
    if (rows < 1 || columns < 1 || out_rows < 1 || out_columns < 1) return 0;
    dlib::array2d<dlib::rgb_pixel> image(rows, columns);
    cfs::fill_random_rgb(image, seed, false);
    dlib::array2d<dlib::rgb_pixel> mine(out_rows, out_columns), theirs(out_rows, out_columns), from_view(out_rows, out_columns);
    dlib::resize_image(image, mine, dlib::interpolate_bilinear());
    // Named with its template arguments, so that only dlib's templates are candidates.
    dlib::resize_image<dlib::array2d<dlib::rgb_pixel>, dlib::array2d<dlib::rgb_pixel>>(image, theirs, dlib::interpolate_bilinear());
    const cfs::rgb_view view{reinterpret_cast<uint8_t *>(&image[0][0]), image.nr(), image.nc()};
    dlib::resize_image(view, from_view, dlib::interpolate_bilinear());
    const size_t bytes = size_t(out_rows) * size_t(out_columns) * 3;
    return std::memcmp(&mine[0][0], &theirs[0][0], bytes) == 0 && std::memcmp(&from_view[0][0], &theirs[0][0], bytes) == 0 ? 1 : 0;
}
