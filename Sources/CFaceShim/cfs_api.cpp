// The C entry points for models, engines, detection, landmarks, chips and descriptors:
// argument checks, then the C++ work inside cfs::guarded.
#include "cfs_dlib.hpp"

using cfs::check_image;
using cfs::failure;
using cfs::guarded;

extern "C" {

int32_t cfs_models_load(const cfs_model_paths *paths, cfs_models **models, cfs_error *error) {
    return guarded(error, [&] {
        if (paths == nullptr || models == nullptr) throw failure(CFS_INVALID_ARGUMENT, "no model paths or result pointer");
        *models = nullptr;
        if (!cfs_cpu_supported(error)) return int32_t(CFS_CPU_UNSUPPORTED);
        auto loaded = std::make_unique<cfs_models>();
        loaded->hog = cfs::load_hog_models(paths->shape_predictor_5, paths->shape_predictor_68);
        loaded->dnn = cfs::load_dnn_models(paths->face_descriptor, paths->cnn_detector);
        *models = loaded.release();
        return int32_t(CFS_OK);
    });
}

int32_t cfs_models_has_shape_predictor_68(const cfs_models *models) {
    return models != nullptr && cfs::has_shape_predictor_68(*models->hog) ? 1 : 0;
}
int32_t cfs_models_has_cnn_detector(const cfs_models *models) {
    return models != nullptr && cfs::has_cnn_detector(*models->dnn) ? 1 : 0;
}

void cfs_models_free(cfs_models *models) {
    try {
        delete models;
    } catch (...) {
    }
}

int32_t cfs_engine_create(const cfs_models *models, uint64_t seed, cfs_engine **engine, cfs_error *error) {
    return guarded(error, [&] {
        if (models == nullptr || engine == nullptr) throw failure(CFS_INVALID_ARGUMENT, "no models or result pointer");
        *engine = nullptr;
        auto created = std::make_unique<cfs_engine>();
        created->hog = cfs::make_hog_engine(*models->hog);
        created->dnn = cfs::make_dnn_engine(*models->dnn, seed);
        *engine = created.release();
        return int32_t(CFS_OK);
    });
}

void cfs_engine_free(cfs_engine *engine) {
    try {
        delete engine;
    } catch (...) {
    }
}

int32_t cfs_detect(cfs_engine *engine, const cfs_image *image, const cfs_detect_options *options, cfs_rect *boxes,
                   int32_t capacity, int32_t *count, cfs_error *error) {
    return guarded(error, [&] {
        if (engine == nullptr || options == nullptr || count == nullptr || (boxes == nullptr && capacity > 0) ||
            capacity < 0)
            throw failure(CFS_INVALID_ARGUMENT, "invalid detection arguments");
        check_image(image);
        *count = 0;
        if (options->upsample < 0 || options->upsample > 4) throw failure(CFS_INVALID_ARGUMENT, "upsample must be 0-4");
        if (options->max_side < 0) throw failure(CFS_INVALID_ARGUMENT, "max_side must not be negative");
        if (!std::isfinite(options->adjust_threshold)) throw failure(CFS_INVALID_ARGUMENT, "threshold must be finite");
        // The upsampled working image is bounded too: 4x the side is 16x the pixels, counted
        // on the image detection runs on (scaled down to max_side when it is larger).
        const double longer = double(std::max(image->width, image->height));
        const double scale = options->max_side > 0 && longer > options->max_side ? options->max_side / longer : 1.0;
        const double working = double(image->width) * image->height * scale * scale * std::pow(4.0, options->upsample);
        if (working > 400e6)
            throw failure(CFS_INVALID_ARGUMENT, "upsampling this image would exceed 400 megapixels");
        std::vector<cfs_rect> found;
        if (options->detector == CFS_DETECTOR_HOG) cfs::hog_detect(*engine->hog, image, *options, found);
        else if (options->detector == CFS_DETECTOR_CNN) cfs::cnn_detect(*engine->dnn, image, *options, found);
        else throw failure(CFS_INVALID_ARGUMENT, "unknown detector");
        const size_t written = std::min(found.size(), size_t(capacity));
        std::copy(found.begin(), found.begin() + long(written), boxes);
        *count = int32_t(written);
        return int32_t(CFS_OK);
    });
}

int32_t cfs_landmarks(const cfs_models *models, const cfs_image *image, const cfs_rect *box, int32_t model,
                      cfs_point *points, cfs_error *error) {
    return guarded(error, [&] {
        if (models == nullptr || box == nullptr || points == nullptr)
            throw failure(CFS_INVALID_ARGUMENT, "invalid landmark arguments");
        check_image(image);
        if (box->right < box->left || box->bottom < box->top) throw failure(CFS_INVALID_ARGUMENT, "empty face box");
        cfs::landmarks(*models->hog, image, *box, model, points);
        return int32_t(CFS_OK);
    });
}

int32_t cfs_chip(const cfs_image *image, const cfs_point *points, int32_t point_count, int32_t size, double padding,
                 uint8_t *rgb, cfs_error *error) {
    return guarded(error, [&] {
        if (points == nullptr || rgb == nullptr) throw failure(CFS_INVALID_ARGUMENT, "invalid chip arguments");
        check_image(image);
        cfs::chip(image, points, point_count, size, padding, rgb);
        return int32_t(CFS_OK);
    });
}

int32_t cfs_descriptors(cfs_engine *engine, const uint8_t *chips, int32_t count, const cfs_descriptor_options *options,
                        float *descriptors, cfs_error *error) {
    return guarded(error, [&] {
        if (engine == nullptr || chips == nullptr || options == nullptr || descriptors == nullptr)
            throw failure(CFS_INVALID_ARGUMENT, "invalid descriptor arguments");
        cfs::descriptors(*engine->dnn, chips, count, *options, descriptors);
        return int32_t(CFS_OK);
    });
}

}  // extern "C"
