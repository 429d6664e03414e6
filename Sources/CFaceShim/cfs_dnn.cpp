// dlib's deep networks: the ResNet face descriptor and the MMOD CNN face detector. The
// layer types below must match the serialized models layer for layer (they are the
// architectures dlib published with dlib_face_recognition_resnet_model_v1.dat and
// mmod_human_face_detector.dat).
#include "cfs_dlib.hpp"

#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#include <dlib/dnn.h>
#pragma clang attribute pop

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

namespace cfs {
namespace descriptor_layers {
using namespace dlib;

// A residual unit: two 3x3 convolutions with affine (frozen batch-norm) layers, added to its input.
template <int filters, template <typename> class norm, int stride, typename input>
using unit = norm<con<filters, 3, 3, 1, 1, relu<norm<con<filters, 3, 3, stride, stride, input>>>>>;

template <template <int, template <typename> class, int, typename> class body, int filters,
          template <typename> class norm, typename input>
using same_size = add_prev1<body<filters, norm, 1, tag1<input>>>;

template <template <int, template <typename> class, int, typename> class body, int filters,
          template <typename> class norm, typename input>
using halving = add_prev2<avg_pool<2, 2, 2, 2, skip1<tag2<body<filters, norm, 2, tag1<input>>>>>>;

template <int filters, typename input> using block = relu<same_size<unit, filters, affine, input>>;
template <int filters, typename input> using block_down = relu<halving<unit, filters, affine, input>>;

template <typename input> using stage0 = block_down<256, input>;
template <typename input> using stage1 = block<256, block<256, block_down<256, input>>>;
template <typename input> using stage2 = block<128, block<128, block_down<128, input>>>;
template <typename input> using stage3 = block<64, block<64, block<64, block_down<64, input>>>>;
template <typename input> using stage4 = block<32, block<32, block<32, input>>>;

using network = loss_metric<fc_no_bias<128, avg_pool_everything<stage0<stage1<stage2<stage3<stage4<
    max_pool<3, 3, 2, 2, relu<affine<con<32, 7, 7, 2, 2, input_rgb_image_sized<CFS_CHIP_SIZE>>>>>>>>>>>>>;
}  // namespace descriptor_layers

namespace detector_layers {
using namespace dlib;
template <long filters, typename input> using down5 = con<filters, 5, 5, 2, 2, input>;
template <long filters, typename input> using same5 = con<filters, 5, 5, 1, 1, input>;
template <typename input>
using downsampler = relu<affine<down5<32, relu<affine<down5<32, relu<affine<down5<16, input>>>>>>>>>;
template <typename input> using refine = relu<affine<same5<45, input>>>;
using network = loss_mmod<con<1, 9, 9, 1, 1, refine<refine<refine<downsampler<input_rgb_image_pyramid<pyramid_down<6>>>>>>>>;
}  // namespace detector_layers

struct dnn_models {
    std::unique_ptr<descriptor_layers::network> descriptor;
    std::unique_ptr<detector_layers::network> detector;
};

struct dnn_engine {
    std::unique_ptr<descriptor_layers::network> descriptor;
    std::unique_ptr<detector_layers::network> detector;
    dlib::rand random;
};

/// Worker threads each run their own engine, so BLAS must not start threads of its own
/// (OpenBLAS would oversubscribe the cores). Honoured only when the user set nothing.
static void single_threaded_blas() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (std::getenv("OPENBLAS_NUM_THREADS") != nullptr) return;
        using setter = void (*)(int);
        if (auto set = reinterpret_cast<setter>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) set(1);
    });
}

template <typename network>
static std::unique_ptr<network> load_network(const char *path, const char *what) {
    require_readable(path, what);
    auto net = std::make_unique<network>();
    try {
        dlib::deserialize(path) >> *net;
    } catch (const dlib::serialization_error &e) {
        throw failure(CFS_MODEL_INVALID, std::string("invalid model file (") + what + "): " + path + ": " + e.what());
    }
    return net;
}

std::shared_ptr<const dnn_models> load_dnn_models(const char *descriptor, const char *cnn) {
    single_threaded_blas();
    auto models = std::make_shared<dnn_models>();
    if (descriptor != nullptr && *descriptor != 0)
        models->descriptor = load_network<descriptor_layers::network>(descriptor, "face descriptor");
    if (cnn != nullptr && *cnn != 0) models->detector = load_network<detector_layers::network>(cnn, "CNN face detector");
    return models;
}

bool has_cnn_detector(const dnn_models &models) { return models.detector != nullptr; }

std::shared_ptr<dnn_engine> make_dnn_engine(const dnn_models &models, uint64_t seed) {
    auto engine = std::make_shared<dnn_engine>();
    if (models.descriptor) engine->descriptor = std::make_unique<descriptor_layers::network>(*models.descriptor);
    if (models.detector) engine->detector = std::make_unique<detector_layers::network>(*models.detector);
    engine->random.set_seed(std::to_string(seed));
    return engine;
}

void cnn_detect(dnn_engine &engine, const cfs_image *image, const cfs_detect_options &options,
                std::vector<cfs_rect> &boxes) {
    if (!engine.detector) throw failure(CFS_MODEL_UNAVAILABLE, "the CNN face detector is not loaded");
    detection_input input;
    prepare_detection_input(image, options.max_side, input);
    dlib::matrix<dlib::rgb_pixel> pixels;
    if (input.is_scaled) dlib::assign_image(pixels, input.scaled);
    else dlib::assign_image(pixels, view_of(image));
    dlib::pyramid_down<2> pyramid;
    for (int32_t i = 0; i < options.upsample; i++) dlib::pyramid_up(pixels, pyramid);
    // The threshold adjustment goes to the network's own decision, so a negative one finds more.
    std::vector<dlib::mmod_rect> found = engine.detector->process(pixels, options.adjust_threshold);
    std::sort(found.begin(), found.end(),
              [](const auto &a, const auto &b) { return a.detection_confidence > b.detection_confidence; });
    boxes.clear();
    for (const auto &detection : found) {
        const dlib::rectangle rect = pyramid.rect_down(detection.rect, (unsigned int)options.upsample);
        boxes.push_back(map_back(rect, detection.detection_confidence, input));
    }
}

/// The mean of the network's outputs over `chips`, as doubles.
static dlib::matrix<double, 0, 1> mean_descriptor(descriptor_layers::network &net,
                                                  const std::vector<dlib::matrix<dlib::rgb_pixel>> &chips) {
    dlib::matrix<double, 0, 1> sum = dlib::zeros_matrix<double>(CFS_DESCRIPTOR_LENGTH, 1);
    for (const auto &output : net(chips, 16)) sum += dlib::matrix_cast<double>(output);
    return sum / double(chips.size());
}

void descriptors(dnn_engine &engine, const uint8_t *chips, int32_t count, const cfs_descriptor_options &options,
                 float *out) {
    if (!engine.descriptor) throw failure(CFS_MODEL_UNAVAILABLE, "the face descriptor model is not loaded");
    if (count <= 0 || count > 4096) throw failure(CFS_INVALID_ARGUMENT, "descriptor batch must hold 1-4096 chips");
    if (options.jitters < 0 || options.jitters > 1000) throw failure(CFS_INVALID_ARGUMENT, "jitters must be 0-1000");
    const size_t chip_bytes = size_t(CFS_CHIP_SIZE) * CFS_CHIP_SIZE * 3;
    std::vector<dlib::matrix<dlib::rgb_pixel>> inputs(static_cast<size_t>(count));
    for (int32_t i = 0; i < count; i++) {
        inputs[i].set_size(CFS_CHIP_SIZE, CFS_CHIP_SIZE);
        std::memcpy(&inputs[i](0, 0), chips + size_t(i) * chip_bytes, chip_bytes);
    }
    auto &net = *engine.descriptor;
    const bool plain = options.jitters <= 1 && !options.flip;
    if (plain) {
        // One batch through the network, as dlib's own binding does.
        const auto outputs = net(inputs, 16);
        for (int32_t i = 0; i < count; i++)
            for (long k = 0; k < CFS_DESCRIPTOR_LENGTH; k++) out[i * CFS_DESCRIPTOR_LENGTH + k] = outputs[i](k);
        return;
    }
    for (int32_t i = 0; i < count; i++) {
        std::vector<dlib::matrix<dlib::rgb_pixel>> variants;
        auto add_variants = [&](const dlib::matrix<dlib::rgb_pixel> &base) {
            if (options.jitters <= 1) variants.push_back(base);
            else
                for (int32_t j = 0; j < options.jitters; j++) variants.push_back(dlib::jitter_image(base, engine.random));
        };
        add_variants(inputs[i]);
        if (options.flip) add_variants(dlib::fliplr(inputs[i]));
        const dlib::matrix<double, 0, 1> mean = mean_descriptor(net, variants);
        for (long k = 0; k < CFS_DESCRIPTOR_LENGTH; k++) out[i * CFS_DESCRIPTOR_LENGTH + k] = float(mean(k));
    }
}

}  // namespace cfs
