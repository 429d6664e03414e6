// HOG face detection, shape predictors (5- and 68-point landmarks) and aligned chips.
#include "cfs_dlib.hpp"

#include <cstdio>

namespace cfs {

struct hog_models {
    dlib::frontal_face_detector detector;
    dlib::shape_predictor shape5;
    std::unique_ptr<dlib::shape_predictor> shape68;
};

struct hog_engine {
    dlib::frontal_face_detector detector;
};

void require_readable(const char *path, const char *what) {
    std::FILE *file = std::fopen(path, "rb");
    if (file == nullptr) throw failure(CFS_MODEL_MISSING, std::string("missing model file (") + what + "): " + path);
    std::fclose(file);
}

static void load_shape_predictor(const char *path, const char *what, dlib::shape_predictor &predictor,
                                 unsigned long parts) {
    require_readable(path, what);
    try {
        dlib::deserialize(path) >> predictor;
    } catch (const dlib::serialization_error &e) {
        throw failure(CFS_MODEL_INVALID, std::string("invalid model file (") + what + "): " + path + ": " + e.what());
    }
    if (predictor.num_parts() != parts)
        throw failure(CFS_MODEL_INVALID, std::string("model file (") + what + ") has " +
                                             std::to_string(predictor.num_parts()) + " points, expected " +
                                             std::to_string(parts) + ": " + path);
}

std::shared_ptr<const hog_models> load_hog_models(const char *shape5, const char *shape68) {
    if (shape5 == nullptr || *shape5 == 0) throw failure(CFS_MODEL_MISSING, "the 5-point shape predictor is required");
    auto models = std::make_shared<hog_models>();
    models->detector = dlib::get_frontal_face_detector();
    load_shape_predictor(shape5, "5-point landmarks", models->shape5, 5);
    if (shape68 != nullptr && *shape68 != 0) {
        models->shape68 = std::make_unique<dlib::shape_predictor>();
        load_shape_predictor(shape68, "68-point landmarks", *models->shape68, 68);
    }
    return models;
}

bool has_shape_predictor_68(const hog_models &models) { return models.shape68 != nullptr; }

std::shared_ptr<hog_engine> make_hog_engine(const hog_models &models) {
    auto engine = std::make_shared<hog_engine>();
    engine->detector = models.detector;
    return engine;
}

/// Runs the detector on `image` after `upsample` doublings (dlib's pyramid_up, as dlib's own
/// Python binding does), with boxes mapped back to `image`'s coordinates.
template <typename image_type>
static void detect_upsampled(dlib::frontal_face_detector &detector, const image_type &image, int32_t upsample,
                             double adjust_threshold, std::vector<dlib::rect_detection> &found) {
    if (upsample == 0) {
        detector(image, found, adjust_threshold);
        return;
    }
    dlib::pyramid_down<2> pyramid;
    dlib::array2d<dlib::rgb_pixel> larger;
    dlib::pyramid_up(image, larger, pyramid);
    for (int32_t i = 1; i < upsample; i++) dlib::pyramid_up(larger, pyramid);
    detector(larger, found, adjust_threshold);
    for (auto &detection : found) detection.rect = pyramid.rect_down(detection.rect, upsample);
}

void hog_detect(hog_engine &engine, const cfs_image *image, const cfs_detect_options &options,
                std::vector<cfs_rect> &boxes) {
    detection_input input;
    prepare_detection_input(image, options.max_side, input);
    std::vector<dlib::rect_detection> found;
    if (input.is_scaled)
        detect_upsampled(engine.detector, input.scaled, options.upsample, options.adjust_threshold, found);
    else
        detect_upsampled(engine.detector, view_of(image), options.upsample, options.adjust_threshold, found);
    std::sort(found.begin(), found.end(),
              [](const auto &a, const auto &b) { return a.detection_confidence > b.detection_confidence; });
    boxes.clear();
    for (const auto &detection : found) boxes.push_back(map_back(detection.rect, detection.detection_confidence, input));
}

void landmarks(const hog_models &models, const cfs_image *image, const cfs_rect &box, int32_t model,
               cfs_point *points) {
    const dlib::shape_predictor *predictor = nullptr;
    if (model == 5) predictor = &models.shape5;
    else if (model == 68) predictor = models.shape68.get();
    else throw failure(CFS_INVALID_ARGUMENT, "landmark model must be 5 or 68");
    if (predictor == nullptr) throw failure(CFS_MODEL_UNAVAILABLE, "the 68-point shape predictor is not loaded");
    const dlib::full_object_detection shape = (*predictor)(view_of(image), to_dlib(box));
    for (unsigned long i = 0; i < shape.num_parts(); i++) {
        points[i].x = double(shape.part(i).x());
        points[i].y = double(shape.part(i).y());
    }
}

void chip(const cfs_image *image, const cfs_point *points, int32_t count, int32_t size, double padding,
          uint8_t *rgb) {
    if (count != 5 && count != 68) throw failure(CFS_INVALID_ARGUMENT, "a chip needs 5 or 68 landmarks");
    if (size <= 0 || size > 1024 || !(padding >= 0 && padding <= 4))
        throw failure(CFS_INVALID_ARGUMENT, "chip size must be 1-1024 and padding 0-4");
    std::vector<dlib::point> parts;
    dlib::rectangle bounds;
    for (int32_t i = 0; i < count; i++) {
        if (!std::isfinite(points[i].x) || !std::isfinite(points[i].y) || std::fabs(points[i].x) > 1e7 ||
            std::fabs(points[i].y) > 1e7)
            throw failure(CFS_INVALID_ARGUMENT, "landmark out of range");
        parts.emplace_back(std::lround(points[i].x), std::lround(points[i].y));
        bounds += parts.back();
    }
    const dlib::full_object_detection shape(bounds, parts);
    dlib::matrix<dlib::rgb_pixel> out;
    dlib::extract_image_chip(view_of(image), dlib::get_face_chip_details(shape, (unsigned long)size, padding), out);
    if (out.nr() != size || out.nc() != size) throw failure(CFS_INTERNAL, "chip has an unexpected size");
    std::memcpy(rgb, &out(0, 0), size_t(size) * size_t(size) * 3);
}

}  // namespace cfs
