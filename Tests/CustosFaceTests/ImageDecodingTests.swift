import CustosCore
import CustosFace
import CustosTestSupport
import Foundation
import Testing

@Suite("Image decoding: formats, limits, hostile input", needsSharedData)
struct ImageDecodingTests {
    func code(_ data: Data, limits: ImageLimits = .default) -> FaceError.Code? {
        do {
            _ = try DecodedImage(data: data, limits: limits)
            return nil
        } catch {
            return error.code
        }
    }

    @Test func emptyInputIsRefused() {
        #expect(code(Data()) == .imageEmpty)
    }

    @Test func inputOverTheByteLimitIsRefusedBeforeDecoding() throws {
        let data = try Fixtures.data("exif/hopper.jpg")
        #expect(code(data, limits: ImageLimits(maxBytes: data.count - 1)) == .imageTooLarge)
        #expect(code(data, limits: ImageLimits(maxBytes: data.count)) == nil)
    }

    @Test func truncatedJPEGIsRefused() throws {
        let data = try Fixtures.data("identities/Barack_Obama/obama.jpg")
        for length in [2, 20, 200, data.count / 2, data.count - 10] {
            #expect(code(data.prefix(length)) == .imageTruncated, "\(length) bytes")
        }
    }

    @Test func truncatedPNGIsRefused() throws {
        let data = try Fixtures.data("identities/Alex_Lacamoire/alex-lacamoire.png")
        for length in [5, 40, data.count / 2, data.count - 20] {
            #expect(code(data.prefix(length)) == .imageTruncated, "\(length) bytes")
        }
    }

    @Test func corruptDataIsRefused() throws {
        var jpeg = [UInt8](try Fixtures.data("exif/hopper.jpg"))
        let sof = try #require(JPEGEditor.startOfFrame(jpeg))
        jpeg[sof + 7] = 0   // zero components in the frame header
        #expect(code(Data(jpeg)) == .imageCorrupt)

        var png = [UInt8](PNGBuilder.png(width: 4, height: 4))
        png[20] ^= 0xFF   // IHDR body no longer matches its CRC
        #expect(code(Data(png)) == .imageCorrupt)
    }

    @Test func otherFormatsAreUnsupported() {
        #expect(code(Data("GIF89a not really".utf8)) == .imageUnsupportedFormat)
        #expect(code(Data([0x42, 0x4D, 0, 0, 0, 0])) == .imageUnsupportedFormat)   // BMP
        #expect(code(Data(repeating: 0, count: 1000)) == .imageUnsupportedFormat)
    }

    @Test func hugeDeclaredDimensionsAreRefusedBeforeDecoding() throws {
        // PNG bomb: a 100k x 100k header over a few bytes of data.
        #expect(code(PNGBuilder.png(width: 100_000, height: 100_000, rows: 1)) == .imageDimensionsTooLarge)
        // 25 MP header: just over the default 24 MP.
        #expect(code(PNGBuilder.png(width: 5000, height: 5000, rows: 1)) == .imageDimensionsTooLarge)
        let jpeg = try #require(JPEGEditor.declaring(try Fixtures.data("exif/hopper.jpg"), width: 65000, height: 65000))
        #expect(code(jpeg) == .imageDimensionsTooLarge)
        // The limit is configurable.
        #expect(code(PNGBuilder.png(width: 64, height: 64), limits: ImageLimits(maxPixels: 4095)) == .imageDimensionsTooLarge)
        #expect(code(PNGBuilder.png(width: 64, height: 64), limits: ImageLimits(maxPixels: 4096)) == nil)
    }

    @Test func pngWithAlphaAndGrayJPEGBecomeRGB() throws {
        let png = try DecodedImage(data: try Fixtures.data("identities/Alex_Lacamoire/alex-lacamoire.png"))
        #expect(png.width == 424 && png.height == 394)
        let gray = try DecodedImage(data: try Fixtures.data("gray/hopper_gray.jpg"))
        #expect(gray.width == 128 && gray.height == 128)
        let pixels = gray.rgb
        #expect(pixels.count == 128 * 128 * 3)
        let grayPixels = stride(from: 0, to: pixels.count, by: 3).filter { (i: Int) -> Bool in
            pixels[i] == pixels[i + 1] && pixels[i] == pixels[i + 2]
        }
        #expect(grayPixels.count == 128 * 128)
    }

    @Test func headerIsReadWithoutDecoding() throws {
        let header = try DecodedImage.header(of: try Fixtures.data("exif/image_T1.jpg"))
        #expect(header == ImageHeader(format: .jpeg, width: 640, height: 480, channels: 3, orientation: 6))
        let bomb = try DecodedImage.header(of: PNGBuilder.png(width: 100_000, height: 100_000, rows: 1))
        #expect(bomb.format == .png && bomb.width == 100_000)
    }

    @Test func exifOrientationTurnsTheImageUpright() throws {
        let data = try Fixtures.data("exif/image_T1.jpg")
        let upright = try DecodedImage(data: data)
        #expect(upright.width == 480 && upright.height == 640)
        let stored = try DecodedImage(data: data, limits: ImageLimits(applyExifOrientation: false))
        #expect(stored.width == 640 && stored.height == 480)
        // Orientation 3 is a half turn: pixel (x, y) upright is (w-1-x, h-1-y) stored.
        let turned = try DecodedImage(data: try Fixtures.data("exif/hopper_orientation_3.jpg"))
        let raw = try DecodedImage(data: try Fixtures.data("exif/hopper_orientation_3.jpg"), limits: ImageLimits(applyExifOrientation: false))
        let a = turned.rgb, b = raw.rgb
        #expect(Array(a[0..<3]) == Array(b[(b.count - 3)...]))
    }

    @Test func rgbRoundTripAndCrop() throws {
        let pixels = (0..<(4 * 3 * 3)).map { UInt8($0) }
        let image = try DecodedImage(rgb: pixels, width: 4, height: 3)
        #expect(image.rgb == pixels)
        let crop = try image.cropped(left: 1, top: 1, width: 10, height: 10)
        #expect(crop.width == 3 && crop.height == 2)
        #expect(Array(crop.rgb[0..<3]) == [15, 16, 17])
        #expect(throws: FaceError.self) { try DecodedImage(rgb: pixels, width: 5, height: 3) }
    }
}
