import CFaceShim
import CustosCore
import CustosFace
import Foundation
import Testing

/// The shim's own HOG gradients (cfs_fhog_gradient.hpp) and bilinear RGB resize
/// (cfs_resize.hpp) stand in for dlib's in every HOG detection: each must compute exactly
/// what dlib's does, and detection must actually reach them.
@Suite("HOG detection kernels")
struct HOGKernelTests {
    @Test(arguments: [[3, 10], [4, 11], [17, 33], [64, 80], [97, 161], [240, 320]])
    func gradientsEqualDlibs(_ shape: [Int]) throws {
        try requireSupportedCPU()
        #expect(cfs_fhog_gradient_matches_dlib(Int32(shape[0]), Int32(shape[1]), UInt64(shape[0] * 1000 + shape[1])) == 1,
                "\(shape)")
    }

    @Test(arguments: [
        // rows, columns -> rows, columns
        [480, 640, 400, 533],     // a pyramid_down<6> level of a 640x480 frame
        [960, 1280, 800, 1067],   // one of the upsampled frame
        [37, 53, 31, 44],
        [480, 640, 959, 1279],    // pyramid_up of a 640x480 frame
        [5, 7, 9, 13],
        [100, 100, 100, 100],     // same size
        [1, 1, 3, 5],             // a single pixel
        [1, 9, 1, 4],             // one row
        [9, 1, 4, 1],             // one column
        [3, 4, 17, 29],
        [250, 17, 201, 14],
        [120, 900, 50, 200],      // neighbours too far apart for the shuffles: gathered
        [481, 641, 240, 320],     // about halving (a detection copy of a larger photo)
    ])
    func resizeEqualsDlibs(_ shape: [Int]) throws {
        try requireSupportedCPU()
        let s = shape.map(Int32.init)
        #expect(cfs_resize_matches_dlib(s[0], s[1], s[2], s[3], UInt64(shape.reduce(11, &*))) == 1, "\(shape)")
    }

    @Test(needsSharedData)
    func detectionUsesThem() throws {
        let engine = try Fixtures.engine()
        // Both counted per thread: the analysis runs on this one.
        let (gradients, resizes) = (cfs_fhog_gradient_calls(), cfs_rgb_resizes())
        let faces = try engine.analyze(try Fixtures.data("identities/Angelina_Jolie/img5.jpg"), options: FaceOptions())
        #expect(!faces.isEmpty)
        #expect(cfs_fhog_gradient_calls() > gradients, "dlib's fhog computed its own gradients, not the shim's")
        #expect(cfs_rgb_resizes() > resizes, "dlib's pyramids resized with their own code, not the shim's")
    }

    private func requireSupportedCPU() throws {
        var error = cfs_error()
        try #require(cfs_cpu_supported(&error) == 1, "this CPU cannot run the face engine")
    }
}
