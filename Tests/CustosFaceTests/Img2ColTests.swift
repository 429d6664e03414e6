import CFaceShim
import CustosCore
import CustosFace
import Foundation
import Testing

/// The shim's img2col (cfs_img2col.cpp) stands in for dlib's in every convolution: it must
/// write exactly what dlib's own writes, and dlib's networks must actually reach it.
@Suite("Convolution lowering")
struct Img2ColTests {
    @Test(arguments: [
        // channels, rows, columns, filter rows, filter columns, stride y, stride x, padding y, padding x
        [3, 150, 150, 7, 7, 2, 2, 0, 0],   // the descriptor network's first layer
        [32, 37, 37, 3, 3, 1, 1, 1, 1],
        [64, 19, 19, 3, 3, 2, 2, 1, 1],
        [3, 61, 47, 5, 5, 2, 2, 0, 0],     // the CNN detector's downsampling layers
        [45, 20, 23, 9, 9, 1, 1, 4, 4],    // the CNN detector's 9x9 layers
        [5, 9, 11, 3, 3, 1, 1, 0, 0],
        [2, 8, 8, 5, 5, 3, 2, 2, 1],
        [1, 4, 4, 3, 3, 1, 1, 2, 2],       // padding wider than the image's border
        [1, 3, 3, 3, 3, 1, 1, 0, 0],       // a single output position
    ])
    func writesWhatDlibWrites(_ shape: [Int]) throws {
        var error = cfs_error()
        try #require(cfs_cpu_supported(&error) == 1, "this CPU cannot run the face engine")
        let s = shape.map(Int32.init)
        #expect(cfs_img2col_matches_dlib(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], UInt64(shape.reduce(7, &*))) == 1,
                "\(shape)")
    }

    @Test(needsSharedData)
    func descriptorsUseIt() throws {
        let engine = try Fixtures.engine()
        let before = cfs_img2col_calls()
        let faces = try engine.analyze(try Fixtures.data("identities/Angelina_Jolie/img5.jpg"), options: FaceOptions())
        #expect(faces.first?.descriptor != nil)
        #expect(cfs_img2col_calls() > before, "dlib's network ran its own img2col, not the shim's")
    }
}
