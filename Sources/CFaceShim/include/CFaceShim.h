// CFaceShim: a plain C API over dlib (detection, landmarks, aligned chips, descriptors)
// and over libjpeg/libpng (decoding from memory with limits and EXIF orientation).
//
// Rules of this API:
//  - every type is an opaque handle or a plain struct; every name starts with `cfs_`;
//  - every entry point catches all exceptions: it returns a status (CFS_OK or an error)
//    and, on error, fills the caller's `cfs_error` with the same code and a one-line
//    message. Nothing throws across this boundary and nothing aborts;
//  - a `cfs_models` is immutable once loaded and may be shared by threads; a `cfs_engine`
//    (dlib's detector and networks keep per-call state) must be used by one thread at a time;
//  - a `cfs_image` is immutable once decoded and may be read by several engines at once.
#ifndef CFACESHIM_H
#define CFACESHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Status codes. Stable: the Swift layer maps each to a snake_case code.
typedef enum cfs_status {
    CFS_OK = 0,
    CFS_IMAGE_EMPTY = 1,                  ///< zero bytes
    CFS_IMAGE_TOO_LARGE = 2,              ///< more bytes than the configured limit
    CFS_IMAGE_DIMENSIONS_TOO_LARGE = 3,   ///< header declares more pixels than the limit
    CFS_IMAGE_TRUNCATED = 4,              ///< data ends before the image does
    CFS_IMAGE_CORRUPT = 5,                ///< malformed data
    CFS_IMAGE_UNSUPPORTED_FORMAT = 6,     ///< neither JPEG nor PNG
    CFS_MODEL_MISSING = 7,                ///< a model file cannot be opened
    CFS_MODEL_INVALID = 8,                ///< a model file does not deserialize
    CFS_MODEL_UNAVAILABLE = 9,            ///< an optional model was not loaded but is needed
    CFS_CPU_UNSUPPORTED = 10,             ///< the CPU lacks AVX2/FMA, which this build needs
    CFS_INVALID_ARGUMENT = 11,            ///< a caller error (null pointer, bad size, …)
    CFS_OUT_OF_MEMORY = 12,
    CFS_INTERNAL = 13                     ///< any other exception
} cfs_status;

/// Filled on error: the status again and a NUL-terminated one-line message.
typedef struct cfs_error {
    int32_t code;
    char message[256];
} cfs_error;

/// Returns 1 when this CPU can run the shim (AVX2 and FMA); otherwise 0 and an error.
int32_t cfs_cpu_supported(cfs_error *error);

/// The OpenBLAS kernels this process should ask for, or NULL when what it has is right.
/// OpenBLAS picks its kernels by CPU model when it loads; a model newer than the library
/// (an Emerald Rapids Xeon under Debian 12's 0.3.21, for one) gets its generic "Prescott"
/// kernels, which run the face networks' matrix products at about half speed. Then this
/// names the best set the CPU and OS support ("SkylakeX" for AVX-512, "Haswell" for
/// AVX2+FMA), to be set as OPENBLAS_CORETYPE before OpenBLAS loads, i.e. in a fresh process.
/// NULL too when OPENBLAS_CORETYPE is set already or the BLAS is not OpenBLAS.
const char *cfs_blas_preferred_coretype(void);

/// The kernel set OpenBLAS runs (e.g. "SkylakeX"), or NULL when the BLAS is not OpenBLAS.
const char *cfs_blas_corename(void);

/// How many convolution lowerings (img2col) the shim's own img2col has done in this process:
/// it replaces dlib's where libdlib calls it through its PLT (see cfs_img2col.cpp).
unsigned long long cfs_img2col_calls(void);

/// 1 when the shim's img2col writes exactly what dlib's own does for two random samples of
/// the given shape, filter, stride and padding; 0 when not; -1 when dlib's own cannot be found apart from it.
/// AVX2 code: call only where cfs_cpu_supported says yes.
int32_t cfs_img2col_matches_dlib(int32_t channels, int32_t rows, int32_t columns, int32_t filter_rows,
                                 int32_t filter_columns, int32_t stride_y, int32_t stride_x,
                                 int32_t padding_y, int32_t padding_x, uint64_t seed);

/// How many times this thread has computed HOG gradients (eight pixels each) with the shim's
/// own function, which dlib's fhog reaches in place of its own (see cfs_fhog_gradient.hpp).
unsigned long long cfs_fhog_gradient_calls(void);

/// 1 when the shim's HOG gradients equal dlib's own at every position of a random RGB image of
/// `rows` x `columns` (at least 3 x 10), through both image types detection uses; 0 when not.
/// AVX2 code: call only where cfs_cpu_supported says yes.
int32_t cfs_fhog_gradient_matches_dlib(int32_t rows, int32_t columns, uint64_t seed);

/// How many RGB images this thread has resized with the shim's bilinear resize, which dlib's
/// image pyramids reach in place of their own (see cfs_resize.hpp).
unsigned long long cfs_rgb_resizes(void);

/// 1 when the shim's bilinear resize of a random RGB image of `rows` x `columns` to
/// `out_rows` x `out_columns` equals dlib's own byte for byte (from both image types
/// detection uses); 0 when not. AVX2 code: call only where cfs_cpu_supported says yes.
int32_t cfs_resize_matches_dlib(int32_t rows, int32_t columns, int32_t out_rows, int32_t out_columns, uint64_t seed);

/// glibc only, process-wide: serve allocations up to 256 MiB from the heap and keep up to
/// 512 MiB of freed memory, so that the large image and feature buffers every detection
/// allocates are reused instead of being mapped, zero-filled and unmapped each time (about
/// 10% of a detection on large images, measured on the calling thread). Threads other than
/// the main one allocate from glibc arenas whose heaps stop at 64 MiB, so there larger
/// buffers are still mapped, and the kept memory is per arena. Call once, before starting workers.
void cfs_tune_allocator(void);

/// glibc only, process-wide, for batch commands: every thread allocates from the main arena,
/// whose heap grows without the 64 MiB bound of the other arenas' heaps. The CNN detector's
/// convolutions each take a buffer of up to about 100 MB (dlib's img2col, made per call);
/// above that bound a thread's arena maps a fresh one and unmaps it on every call, so each
/// detection faults in and zero-fills its buffers again. One arena serialises the threads'
/// larger allocations, so the server does not use it. Call before any thread but the main
/// one has allocated: a thread keeps the arena it first used.
void cfs_use_one_arena(void);

/// Bytes currently allocated through malloc (glibc's mallinfo2; 0 elsewhere): memory in use,
/// not counting freed memory the allocator keeps. For leak checks.
uint64_t cfs_allocated_bytes(void);

// ---------------------------------------------------------------------------------------
// Images

typedef struct cfs_image cfs_image;

typedef enum cfs_format { CFS_FORMAT_UNKNOWN = 0, CFS_FORMAT_JPEG = 1, CFS_FORMAT_PNG = 2 } cfs_format;

typedef struct cfs_decode_limits {
    uint64_t max_bytes;     ///< refuse larger inputs before looking at them (0: no limit)
    uint64_t max_pixels;    ///< refuse headers declaring more pixels (0: no limit)
    int32_t apply_exif;     ///< 1: rotate/flip by the EXIF orientation of JPEGs
} cfs_decode_limits;

/// What the header says, without decoding pixels.
typedef struct cfs_image_info {
    int32_t format;         ///< cfs_format
    int64_t width;          ///< as stored
    int64_t height;
    int32_t channels;       ///< as stored: 1 gray, 2 gray+alpha, 3 colour, 4 colour+alpha / CMYK
    int32_t orientation;    ///< EXIF orientation 1-8 (1 when absent)
} cfs_image_info;

/// Reads the header only (format, declared size, channels, EXIF orientation).
int32_t cfs_image_probe(const uint8_t *data, size_t size, cfs_image_info *info, cfs_error *error);

/// Decodes JPEG or PNG bytes into 8-bit RGB (gray replicated, alpha dropped, CMYK converted),
/// applying EXIF orientation when asked. On success `*image` owns the pixels.
int32_t cfs_image_decode(const uint8_t *data, size_t size, const cfs_decode_limits *limits,
                         cfs_image **image, cfs_error *error);

/// Wraps a copy of packed RGB pixels (width*height*3 bytes, rows top-down).
int32_t cfs_image_from_rgb(const uint8_t *rgb, int32_t width, int32_t height, cfs_image **image,
                           cfs_error *error);

int32_t cfs_image_width(const cfs_image *image);
int32_t cfs_image_height(const cfs_image *image);
/// Packed RGB rows, top-down, width*height*3 bytes; valid while the image lives.
const uint8_t *cfs_image_pixels(const cfs_image *image);
/// A copy of the rectangle (clipped to the image) as a new image.
int32_t cfs_image_crop(const cfs_image *image, int32_t left, int32_t top, int32_t width, int32_t height,
                       cfs_image **out, cfs_error *error);
void cfs_image_free(cfs_image *image);

// ---------------------------------------------------------------------------------------
// Geometry and encoding (test material: presentation attacks built from genuine frames)

/// Warps `image` through a plane projective transform (a homography) into `width` x `height`
/// RGB pixels written to `rgb` (width*height*3 bytes, rows top-down). `matrix` is 3x3,
/// row-major, and maps OUTPUT pixel coordinates to INPUT coordinates (the inverse of the
/// motion it shows): output pixel (x, y) samples the input at (u/w, v/w), where
/// (u, v, w) = matrix * (x, y, 1), pixel centres at whole coordinates. Bilinear; where
/// that point falls outside the input (or w <= 0) the pixel is black.
int32_t cfs_image_warp(const cfs_image *image, const double *matrix, int32_t width, int32_t height, uint8_t *rgb,
                       cfs_error *error);

/// Encodes `image` as a baseline JPEG (4:2:0, libjpeg's standard tables at `quality`, 1-100).
/// On success `*data` (allocated here, `*size` bytes) belongs to the caller: release it with
/// cfs_buffer_free.
int32_t cfs_image_encode_jpeg(const cfs_image *image, int32_t quality, uint8_t **data, size_t *size, cfs_error *error);

/// Releases a buffer returned by the shim (NULL is allowed).
void cfs_buffer_free(uint8_t *data);

// ---------------------------------------------------------------------------------------
// Models and engines

typedef struct cfs_models cfs_models;
typedef struct cfs_engine cfs_engine;

/// Paths of dlib's model files; NULL (or "") leaves an optional model out.
typedef struct cfs_model_paths {
    const char *shape_predictor_5;    ///< required
    const char *shape_predictor_68;   ///< optional (iBUG 300-W license: not for commercial use)
    const char *face_descriptor;      ///< optional: dlib_face_recognition_resnet_model_v1.dat
    const char *cnn_detector;         ///< optional: mmod_human_face_detector.dat
} cfs_model_paths;

/// Loads the models once; the result is immutable and may back any number of engines.
int32_t cfs_models_load(const cfs_model_paths *paths, cfs_models **models, cfs_error *error);
/// 1 when the optional model was loaded.
int32_t cfs_models_has_shape_predictor_68(const cfs_models *models);
int32_t cfs_models_has_cnn_detector(const cfs_models *models);
void cfs_models_free(cfs_models *models);

/// A per-thread engine: its own copies of the detectors and networks. `models` must
/// outlive it. Seeds the jitter random generator with `seed`.
int32_t cfs_engine_create(const cfs_models *models, uint64_t seed, cfs_engine **engine, cfs_error *error);
void cfs_engine_free(cfs_engine *engine);

// ---------------------------------------------------------------------------------------
// Detection

typedef enum cfs_detector { CFS_DETECTOR_HOG = 0, CFS_DETECTOR_CNN = 1 } cfs_detector;

typedef struct cfs_detect_options {
    int32_t detector;          ///< cfs_detector
    int32_t upsample;          ///< times to double the image before detecting (0-4)
    int32_t max_side;          ///< detect on a copy scaled so its longer side is at most this (0: never)
    double adjust_threshold;   ///< added to the detector's threshold (0: dlib's default)
} cfs_detect_options;

/// A face box in image pixels (dlib's inclusive rectangle, as left/top/right/bottom).
typedef struct cfs_rect {
    int64_t left, top, right, bottom;
    double score;              ///< detector confidence
} cfs_rect;

/// Detects faces; writes up to `capacity` boxes (best first) and how many it wrote to `*count`.
int32_t cfs_detect(cfs_engine *engine, const cfs_image *image, const cfs_detect_options *options,
                   cfs_rect *boxes, int32_t capacity, int32_t *count, cfs_error *error);

// ---------------------------------------------------------------------------------------
// Landmarks, chips, descriptors

typedef struct cfs_point { double x, y; } cfs_point;

/// Runs the 5- or 68-point shape predictor on a box; writes `model` points.
int32_t cfs_landmarks(const cfs_models *models, const cfs_image *image, const cfs_rect *box, int32_t model,
                      cfs_point *points, cfs_error *error);

/// Extracts the aligned chip (size x size RGB, `padding` around the face as in dlib's
/// get_face_chip_details) from 5 or 68 landmarks into `rgb` (size*size*3 bytes).
int32_t cfs_chip(const cfs_image *image, const cfs_point *points, int32_t point_count, int32_t size,
                 double padding, uint8_t *rgb, cfs_error *error);

typedef struct cfs_descriptor_options {
    int32_t jitters;   ///< 0 or 1: the chip as is; N > 1: the mean over N jittered copies
    int32_t flip;      ///< 1: also the mirrored chip, and average
} cfs_descriptor_options;

/// The 128-d descriptors of `count` 150x150 RGB chips (count*150*150*3 bytes) into
/// `descriptors` (count*128 floats).
int32_t cfs_descriptors(cfs_engine *engine, const uint8_t *chips, int32_t count,
                        const cfs_descriptor_options *options, float *descriptors, cfs_error *error);

/// Side of the chips the descriptor network takes.
#define CFS_CHIP_SIZE 150
/// Length of a descriptor.
#define CFS_DESCRIPTOR_LENGTH 128

#ifdef __cplusplus
}
#endif

#endif
