import CFaceShim
import CustosCore
import Foundation

/// Limits applied to untrusted image bytes before any pixel is decoded.
public struct ImageLimits: Sendable, Hashable {
    /// Larger inputs are refused as `image_too_large` without being looked at.
    public var maxBytes: Int
    /// Headers declaring more pixels are refused as `image_dimensions_too_large`.
    public var maxPixels: Int
    /// Turn JPEGs upright by their EXIF orientation.
    public var applyExifOrientation: Bool

    public init(maxBytes: Int = 20 * 1024 * 1024, maxPixels: Int = 24_000_000, applyExifOrientation: Bool = true) {
        self.maxBytes = maxBytes
        self.maxPixels = maxPixels
        self.applyExifOrientation = applyExifOrientation
    }

    public static let `default` = ImageLimits()
}

/// What an image header says, read without decoding.
public struct ImageHeader: Sendable, Hashable {
    public enum Format: String, Sendable { case jpeg, png }
    public var format: Format
    public var width: Int
    public var height: Int
    public var channels: Int
    /// EXIF orientation 1-8 (1 when absent).
    public var orientation: Int

    public init(format: Format, width: Int, height: Int, channels: Int, orientation: Int) {
        self.format = format
        self.width = width
        self.height = height
        self.channels = channels
        self.orientation = orientation
    }
}

/// A decoded 8-bit RGB image, upright. Immutable, so any number of threads may read it.
public final class DecodedImage: @unchecked Sendable {
    let handle: OpaquePointer

    private init(handle: OpaquePointer) { self.handle = handle }

    deinit { cfs_image_free(handle) }

    /// Decodes JPEG or PNG bytes under `limits`.
    public convenience init(data: Data, limits: ImageLimits = .default) throws(FaceError) {
        var image: OpaquePointer?
        var shimLimits = cfs_decode_limits(max_bytes: UInt64(max(0, limits.maxBytes)), max_pixels: UInt64(max(0, limits.maxPixels)),
                                           apply_exif: limits.applyExifOrientation ? 1 : 0)
        try ShimStatus.check { error in
            data.withUnsafeBytes { bytes in
                cfs_image_decode(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &shimLimits, &image, error)
            }
        }
        guard let image else { throw FaceError(.engineFailure, "decoder returned no image") }
        self.init(handle: image)
    }

    /// Wraps a copy of packed RGB pixels (`width * height * 3` bytes, rows top-down).
    public convenience init(rgb: [UInt8], width: Int, height: Int) throws(FaceError) {
        guard width > 0, height > 0, rgb.count == width * height * 3 else {
            throw FaceError(.invalidOptions, "RGB buffer of \(rgb.count) bytes does not fit \(width)x\(height)")
        }
        var image: OpaquePointer?
        try ShimStatus.check { error in
            rgb.withUnsafeBufferPointer { cfs_image_from_rgb($0.baseAddress, Int32(width), Int32(height), &image, error) }
        }
        guard let image else { throw FaceError(.engineFailure, "no image") }
        self.init(handle: image)
    }

    /// Reads only the header.
    public static func header(of data: Data) throws(FaceError) -> ImageHeader {
        var info = cfs_image_info()
        try ShimStatus.check { error in
            data.withUnsafeBytes { bytes in
                cfs_image_probe(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &info, error)
            }
        }
        return ImageHeader(format: info.format == Int32(CFS_FORMAT_PNG.rawValue) ? .png : .jpeg, width: Int(info.width),
                           height: Int(info.height), channels: Int(info.channels), orientation: Int(info.orientation))
    }

    public var width: Int { Int(cfs_image_width(handle)) }
    public var height: Int { Int(cfs_image_height(handle)) }

    /// A copy of the pixels, packed RGB.
    public var rgb: [UInt8] {
        guard let pixels = cfs_image_pixels(handle) else { return [] }
        return Array(UnsafeBufferPointer(start: pixels, count: width * height * 3))
    }

    /// The whole frame's perceptual fingerprint: luma averaged over a
    /// `FrameFingerprint.gridSide` grid by exact area (each pixel shared between the cells it
    /// overlaps), so a resized or mirrored copy gives the same, or the mirrored, grid.
    public var fingerprint: FrameFingerprint? {
        let side = FrameFingerprint.gridSide, width = self.width, height = self.height
        guard width >= side, height >= side, let pixels = cfs_image_pixels(handle) else { return nil }
        let columns = Self.cellShares(count: width, cells: side), rows = Self.cellShares(count: height, cells: side)
        var grid = [Double](repeating: 0, count: side * side)
        var rowSums = [Double](repeating: 0, count: side)
        for y in 0..<height {
            for cell in 0..<side { rowSums[cell] = 0 }
            let row = pixels + y * width * 3
            for x in 0..<width {
                let pixel = row + x * 3
                let luma = 0.299 * Double(pixel[0]) + 0.587 * Double(pixel[1]) + 0.114 * Double(pixel[2])
                let share = columns[x]
                rowSums[share.cell] += luma * share.weight
                if share.weight < 1 { rowSums[share.cell + 1] += luma * (1 - share.weight) }
            }
            let share = rows[y]
            for cell in 0..<side {
                grid[share.cell * side + cell] += rowSums[cell] * share.weight
                if share.weight < 1 { grid[(share.cell + 1) * side + cell] += rowSums[cell] * (1 - share.weight) }
            }
        }
        return FrameFingerprint(luma: grid)
    }

    /// For each of `count` pixels along an axis: the first grid cell it overlaps and the share
    /// of the pixel in it (the rest falls in the next cell).
    private static func cellShares(count: Int, cells: Int) -> [(cell: Int, weight: Double)] {
        (0..<count).map { index in
            let start = Double(index) * Double(cells) / Double(count), end = Double(index + 1) * Double(cells) / Double(count)
            let cell = min(cells - 1, Int(start))
            let boundary = Double(cell + 1)
            return end <= boundary || cell == cells - 1 ? (cell, 1) : (cell, (boundary - start) / (end - start))
        }
    }

    /// A copy of a rectangle, clipped to the image.
    public func cropped(left: Int, top: Int, width: Int, height: Int) throws(FaceError) -> DecodedImage {
        var out: OpaquePointer?
        try ShimStatus.check { error in
            cfs_image_crop(handle, Int32(clamping: left), Int32(clamping: top), Int32(clamping: width), Int32(clamping: height),
                           &out, error)
        }
        guard let out else { throw FaceError(.engineFailure, "no crop") }
        return DecodedImage(handle: out)
    }
}
