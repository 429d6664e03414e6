// Internal to CFaceShim: the C++ objects behind the opaque handles, and the guard that
// turns every exception into a status.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "cfs_decode.h"

namespace cfs {

/// A failure with a status code, thrown inside the shim and caught at its boundary.
struct failure : std::exception {
    int32_t code;
    std::string message;
    failure(int32_t code, std::string message) : code(code), message(std::move(message)) {}
    const char *what() const noexcept override { return message.c_str(); }
};

/// Runs `body` (which returns a status), turning every exception into a status + message.
template <typename Body> int32_t guarded(cfs_error *error, Body &&body) noexcept {
    try {
        return body();
    } catch (const failure &f) {
        return cfs_set_error(error, f.code, "%s", f.message.c_str());
    } catch (const std::bad_alloc &) {
        return cfs_set_error(error, CFS_OUT_OF_MEMORY, "out of memory");
    } catch (const std::exception &e) {
        return cfs_set_error(error, CFS_INTERNAL, "dlib: %s", e.what());
    } catch (...) {
        return cfs_set_error(error, CFS_INTERNAL, "unknown exception");
    }
}

/// Throws `failure(CFS_INVALID_ARGUMENT)` unless `image` has pixels.
inline void check_image(const cfs_image *image) {
    if (image == nullptr || image->rgb == nullptr || image->width <= 0 || image->height <= 0)
        throw failure(CFS_INVALID_ARGUMENT, "no image");
}

struct hog_models;   // frontal detector prototype, shape predictors (cfs_hog.cpp)
struct dnn_models;   // descriptor and CNN networks (cfs_dnn.cpp)
struct hog_engine;   // per-thread HOG detector
struct dnn_engine;   // per-thread networks and jitter RNG

std::shared_ptr<const hog_models> load_hog_models(const char *shape5, const char *shape68);
std::shared_ptr<const dnn_models> load_dnn_models(const char *descriptor, const char *cnn);
bool has_shape_predictor_68(const hog_models &models);
bool has_cnn_detector(const dnn_models &models);

std::shared_ptr<hog_engine> make_hog_engine(const hog_models &models);
std::shared_ptr<dnn_engine> make_dnn_engine(const dnn_models &models, uint64_t seed);

/// Detected boxes, best first, in image coordinates.
void hog_detect(hog_engine &engine, const cfs_image *image, const cfs_detect_options &options,
                std::vector<cfs_rect> &boxes);
void cnn_detect(dnn_engine &engine, const cfs_image *image, const cfs_detect_options &options,
                std::vector<cfs_rect> &boxes);

void landmarks(const hog_models &models, const cfs_image *image, const cfs_rect &box, int32_t model,
               cfs_point *points);
void chip(const cfs_image *image, const cfs_point *points, int32_t count, int32_t size, double padding,
          uint8_t *rgb);
void descriptors(dnn_engine &engine, const uint8_t *chips, int32_t count, const cfs_descriptor_options &options,
                 float *out);

/// Throws `failure(CFS_MODEL_MISSING)` naming the file when it cannot be opened for reading.
void require_readable(const char *path, const char *what);

}  // namespace cfs

struct cfs_models {
    std::shared_ptr<const cfs::hog_models> hog;
    std::shared_ptr<const cfs::dnn_models> dnn;
};

struct cfs_engine {
    std::shared_ptr<cfs::hog_engine> hog;
    std::shared_ptr<cfs::dnn_engine> dnn;
};
