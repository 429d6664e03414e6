import CustosCore
import CustosFace
import CustosTestSupport
import Foundation
import Testing

enum Fixtures {
    /// The engine every test of the run shares (see `SharedFaceEngine`).
    static func engine() throws -> FaceEngine { try SharedFaceEngine.engine() }

    static func data(_ path: String) throws -> Data { try SharedData.data("faces/" + path) }

    private static let cache = FaceCache()

    /// Faces found with `options` in a file under faces/ (memoized: several suites read the
    /// same portraits).
    static func faces(_ path: String, _ options: FaceOptions = .thorough) throws -> [Face] {
        if let known = cache.get(path, options) { return known }
        let faces = try engine().analyze(data(path), options: options)
        cache.set(path, options, faces)
        return faces
    }

    /// Manifest rows of faces/ with the given kind.
    static func files(kind: String) throws -> [[String: String]] {
        try SharedData.manifest("faces/MANIFEST.tsv").filter { $0["kind"] == kind }
    }

    /// The face with the largest box.
    static func largest(_ faces: [Face]) -> Face? { faces.max { $0.box.width * $0.box.height < $1.box.width * $1.box.height } }
}

final class FaceCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: [Face]] = [:]
    private func key(_ path: String, _ options: FaceOptions) -> String { "\(path)|\(options)" }
    func get(_ path: String, _ options: FaceOptions) -> [Face]? { lock.withLock { entries[key(path, options)] } }
    func set(_ path: String, _ options: FaceOptions, _ faces: [Face]) { lock.withLock { entries[key(path, options)] = faces } }
}

#if DEBUG
/// dlib compiled without optimisation takes seconds per image: these tests run in release
/// (`swift test -c release`, as `make test` does).
let isOptimizedBuild = false
#else
let isOptimizedBuild = true
#endif

/// Tests that read ../shared/data skip with a clear message when it is absent, and in debug
/// builds (see `isOptimizedBuild`).
let needsSharedData = Testing.ConditionTrait.enabled(
    if: SharedData.isAvailable && isOptimizedBuild,
    Comment(rawValue: isOptimizedBuild ? SharedData.missingMessage : "face tests run in release builds only (swift test -c release)"))

/// Builds small PNG files for hostile-input tests (stored deflate blocks, real CRCs).
enum PNGBuilder {
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }

    static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
    }

    /// zlib stream of `raw` in stored (uncompressed) blocks.
    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65535, raw.count - offset)
            let final: UInt8 = offset + length >= raw.count ? 1 : 0
            out += [final, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += raw[offset..<(offset + length)]
            offset += length
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + bigEndian((b << 16) | a)
    }

    /// An 8-bit RGB PNG of `width` x `height` whose IDAT holds `rows` rows of `fill` (the
    /// header may declare more than the data holds).
    static func png(width: UInt32, height: UInt32, rows: Int? = nil, fill: UInt8 = 128) -> Data {
        let header = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]
        let rowCount = rows ?? Int(height)
        var raw: [UInt8] = []
        for _ in 0..<rowCount { raw += [0] + [UInt8](repeating: fill, count: Int(width) * 3) }
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        return Data(signature + chunk("IHDR", header) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", []))
    }
}

/// Edits of real JPEG files.
enum JPEGEditor {
    /// Offset of the first SOF0/SOF1/SOF2 marker's segment (the byte after FFCx), or nil.
    static func startOfFrame(_ bytes: [UInt8]) -> Int? {
        var index = 2
        while index + 4 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            let length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xC2).contains(marker) { return index + 2 }
            index += 2 + length
        }
        return nil
    }

    /// The file with its frame header declaring `width` x `height`.
    static func declaring(_ data: Data, width: Int, height: Int) -> Data? {
        var bytes = [UInt8](data)
        guard let sof = startOfFrame(bytes) else { return nil }
        bytes[sof + 3] = UInt8(height >> 8); bytes[sof + 4] = UInt8(height & 0xFF)
        bytes[sof + 5] = UInt8(width >> 8); bytes[sof + 6] = UInt8(width & 0xFF)
        return Data(bytes)
    }
}
