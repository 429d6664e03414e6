// The pixel gradients of HOG features on colour images, eight pixels at a time. dlib's fhog
// takes, at each pixel, the colour channel whose gradient is longest; its own version gathers
// the twelve neighbour bytes of eight pixels one at a time into vectors. Here each of the
// three rows is read in two 16-byte loads and the channels are sorted out with byte
// shuffles; the arithmetic (integers: differences, squared lengths, the same choice on ties)
// is the same, so the gradients are too (HOGKernelTests compares the two at every
// position of random images, and checks that detection reaches this one).
//
// dlib's fhog calls get_gradient unqualified with a dlib image view, so these non-template
// overloads in namespace dlib, declared before any fhog code is instantiated (cfs_dlib.hpp
// includes this file), are the ones its calls resolve to.
#pragma once

#include <immintrin.h>

namespace cfs {

/// Gradients this thread has computed through the shim's own function, eight pixels a call.
inline thread_local unsigned long long fhog_gradient_calls = 0;

/// For eight pixels starting at `first` (a pixel offset from where two loads start, the
/// second `second_load` bytes after the first): where channel `channel`'s byte of each lies,
/// as shuffle masks for each load (-128: from the other one).
struct byte_pick {
    alignas(16) signed char first_load[16];
    alignas(16) signed char second_load[16];
};

constexpr byte_pick make_byte_pick(int first, int channel, int second_load) {
    byte_pick pick{};
    for (int i = 0; i < 16; ++i) pick.first_load[i] = pick.second_load[i] = -128;
    for (int i = 0; i < 8; ++i) {
        const int at = 3 * (first + i) + channel;
        if (at < 16) pick.first_load[i] = static_cast<signed char>(at);
        else pick.second_load[i] = static_cast<signed char>(at - second_load);
    }
    return pick;
}

// The middle row is read from the pixel left of the first (30 bytes: loads at 0 and 14);
// the rows above and below from the first pixel (24 bytes: loads at 0 and 8).
inline constexpr byte_pick left_picks[3] = {make_byte_pick(0, 0, 14), make_byte_pick(0, 1, 14), make_byte_pick(0, 2, 14)};
inline constexpr byte_pick right_picks[3] = {make_byte_pick(2, 0, 14), make_byte_pick(2, 1, 14), make_byte_pick(2, 2, 14)};
inline constexpr byte_pick vertical_picks[3] = {make_byte_pick(0, 0, 8), make_byte_pick(0, 1, 8), make_byte_pick(0, 2, 8)};

__attribute__((target("avx2,fma"))) inline __m256i picked(__m128i first, __m128i second, const byte_pick &pick) {
    const __m128i bytes = _mm_or_si128(_mm_shuffle_epi8(first, _mm_load_si128(reinterpret_cast<const __m128i *>(pick.first_load))),
                                       _mm_shuffle_epi8(second, _mm_load_si128(reinterpret_cast<const __m128i *>(pick.second_load))));
    return _mm256_cvtepu8_epi32(bytes);
}

/// The gradient at pixels `column` .. `column` + 7 of the row `middle` (RGB bytes), with the
/// rows above and below; reads pixels `column` - 1 .. `column` + 8 of `middle`.
__attribute__((target("avx2,fma"))) inline void fhog_gradient(const unsigned char *above, const unsigned char *middle,
                                                            const unsigned char *below, long column, __m256 &grad_x,
                                                            __m256 &grad_y, __m256 &length) {
    const unsigned char *centre = middle + 3 * (column - 1);
    const __m128i centre_first = _mm_loadu_si128(reinterpret_cast<const __m128i *>(centre));
    const __m128i centre_second = _mm_loadu_si128(reinterpret_cast<const __m128i *>(centre + 14));
    const __m128i above_first = _mm_loadu_si128(reinterpret_cast<const __m128i *>(above + 3 * column));
    const __m128i above_second = _mm_loadu_si128(reinterpret_cast<const __m128i *>(above + 3 * column + 8));
    const __m128i below_first = _mm_loadu_si128(reinterpret_cast<const __m128i *>(below + 3 * column));
    const __m128i below_second = _mm_loadu_si128(reinterpret_cast<const __m128i *>(below + 3 * column + 8));
    __m256i dx[3], dy[3], squared[3];
    for (int k = 0; k < 3; ++k) {
        dx[k] = _mm256_sub_epi32(picked(centre_first, centre_second, right_picks[k]),
                                 picked(centre_first, centre_second, left_picks[k]));
        dy[k] = _mm256_sub_epi32(picked(below_first, below_second, vertical_picks[k]),
                                 picked(above_first, above_second, vertical_picks[k]));
        squared[k] = _mm256_add_epi32(_mm256_mullo_epi32(dx[k], dx[k]), _mm256_mullo_epi32(dy[k], dy[k]));
    }
    // Red where it is strictly longer than green, then that unless blue is at least as long.
    const __m256i red = _mm256_cmpgt_epi32(squared[0], squared[1]);
    const __m256i x = _mm256_blendv_epi8(dx[1], dx[0], red);
    const __m256i y = _mm256_blendv_epi8(dy[1], dy[0], red);
    const __m256i len = _mm256_blendv_epi8(squared[1], squared[0], red);
    const __m256i kept = _mm256_cmpgt_epi32(len, squared[2]);
    grad_x = _mm256_cvtepi32_ps(_mm256_blendv_epi8(dx[2], x, kept));
    grad_y = _mm256_cvtepi32_ps(_mm256_blendv_epi8(dy[2], y, kept));
    length = _mm256_cvtepi32_ps(_mm256_blendv_epi8(squared[2], len, kept));
    ++fhog_gradient_calls;
}

template <typename view_type>
__attribute__((target("avx2,fma"))) inline void fhog_gradient(int row, int column, const view_type &image,
                                                            dlib::simd8f &grad_x, dlib::simd8f &grad_y, dlib::simd8f &length) {
    const auto bytes = [&](long r) { return reinterpret_cast<const unsigned char *>(&image[r][0]); };
    __m256 x, y, len;
    fhog_gradient(bytes(row - 1), bytes(row), bytes(row + 1), column, x, y, len);
    grad_x = x;
    grad_y = y;
    length = len;
}

}  // namespace cfs

namespace dlib {

__attribute__((target("avx2,fma"))) inline void get_gradient(int row, int column, const const_image_view<array2d<rgb_pixel>> &image,
                                                           simd8f &grad_x, simd8f &grad_y, simd8f &length) {
    cfs::fhog_gradient(row, column, image, grad_x, grad_y, length);
}

__attribute__((target("avx2,fma"))) inline void get_gradient(int row, int column, const const_image_view<cfs::rgb_view> &image,
                                                           simd8f &grad_x, simd8f &grad_y, simd8f &length) {
    cfs::fhog_gradient(row, column, image, grad_x, grad_y, length);
}

}  // namespace dlib
