import CFaceShim
import CustosCore
import Foundation

/// A plane projective transform (3x3 matrix, row-major) of image coordinates: pixel
/// (x, y) goes to (u/w, v/w) where (u, v, w) = M * (x, y, 1). x grows to the right, y down.
public struct Homography: Sendable, Hashable {
    /// The nine entries, row-major.
    public let matrix: [Double]

    /// Throws `invalid_options` unless there are nine finite entries.
    public init(rowMajor matrix: [Double]) throws(FaceError) {
        guard matrix.count == 9, matrix.allSatisfy(\.isFinite) else {
            throw FaceError(.invalidOptions, "a homography needs 9 finite entries, got \(matrix)")
        }
        self.matrix = matrix
    }

    /// For entries that are known to be finite.
    private init(unchecked matrix: [Double]) { self.matrix = matrix }

    public static let identity = Homography(unchecked: [1, 0, 0, 0, 1, 0, 0, 0, 1])

    /// Moves every point by (dx, dy).
    public static func translation(dx: Double, dy: Double) -> Homography {
        Homography(unchecked: [1, 0, dx, 0, 1, dy, 0, 0, 1])
    }

    /// A 2-D affine map: (x, y) -> (a x + b y + c, d x + e y + f).
    public static func affine(a: Double, b: Double, c: Double, d: Double, e: Double, f: Double) -> Homography {
        Homography(unchecked: [a, b, c, d, e, f, 0, 0, 1])
    }

    /// This transform after `other`: `self.applied(to: other.applied(to: p))`.
    public func after(_ other: Homography) -> Homography {
        let a = matrix, b = other.matrix
        var product = [Double](repeating: 0, count: 9)
        for row in 0..<3 {
            for column in 0..<3 {
                product[row * 3 + column] = (0..<3).reduce(0) { $0 + a[row * 3 + $1] * b[$1 * 3 + column] }
            }
        }
        return Homography(unchecked: product)
    }

    /// The inverse transform; nil when the matrix is (nearly) singular.
    public var inverse: Homography? {
        let m = matrix
        let cofactors = [
            m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3],
        ]
        let determinant = m[0] * cofactors[0] + m[1] * cofactors[3] + m[2] * cofactors[6]
        let scale = m.map(abs).max() ?? 0
        guard determinant.isFinite, abs(determinant) > 1e-12 * max(1, scale * scale * scale) else { return nil }
        return Homography(unchecked: cofactors.map { $0 / determinant })
    }

    /// Where the transform takes a point (nil when it goes to infinity).
    public func applied(to point: FacePoint) -> FacePoint? {
        let m = matrix
        let w = m[6] * point.x + m[7] * point.y + m[8]
        guard abs(w) > 1e-12 else { return nil }
        return FacePoint(x: (m[0] * point.x + m[1] * point.y + m[2]) / w, y: (m[3] * point.x + m[4] * point.y + m[5]) / w)
    }
}

extension DecodedImage {
    /// The image moved by `transform`, which maps INPUT pixel coordinates to OUTPUT ones (a
    /// translation by (10, 0) moves the picture 10 px to the right), into a `width` x
    /// `height` image (default: this image's size). Bilinear sampling; what comes from
    /// outside the input is black. Throws `invalid_options` when the transform cannot be
    /// inverted or the size is out of range.
    public func warped(by transform: Homography, width: Int? = nil, height: Int? = nil) throws(FaceError) -> DecodedImage {
        guard let inverse = transform.inverse else { throw FaceError(.invalidOptions, "the warp transform cannot be inverted") }
        return try warped(sampling: inverse, width: width ?? self.width, height: height ?? self.height)
    }

    /// The warp by its inverse: `outputToInput` maps OUTPUT pixel coordinates to the INPUT
    /// point each output pixel samples (what `cfs_image_warp` takes).
    public func warped(sampling outputToInput: Homography, width: Int, height: Int) throws(FaceError) -> DecodedImage {
        guard width > 0, height > 0, width <= 16384, height <= 16384 else {
            throw FaceError(.invalidOptions, "warp output size must be 1-16384 px a side, got \(width)x\(height)")
        }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        try ShimStatus.check { error in
            rgb.withUnsafeMutableBufferPointer { out in
                outputToInput.matrix.withUnsafeBufferPointer {
                    cfs_image_warp(handle, $0.baseAddress, Int32(width), Int32(height), out.baseAddress, error)
                }
            }
        }
        return try DecodedImage(rgb: rgb, width: width, height: height)
    }

    /// The image as a baseline JPEG (4:2:0) at `quality` (1-100; libjpeg's standard tables).
    public func jpegData(quality: Int = 90) throws(FaceError) -> Data {
        guard (1...100).contains(quality) else { throw FaceError(.invalidOptions, "JPEG quality must be 1-100, got \(quality)") }
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        try ShimStatus.check { cfs_image_encode_jpeg(handle, Int32(quality), &bytes, &size, $0) }
        guard let bytes else { throw FaceError(.engineFailure, "the JPEG encoder returned nothing") }
        defer { cfs_buffer_free(bytes) }
        return Data(bytes: bytes, count: size)
    }
}
