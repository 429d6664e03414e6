import CFaceShim
import CustosCore
import CustosFace
import CustosTestSupport
import CustosFakes
import Foundation
import Testing

/// Mutations of real images: bit flips, overwritten runs, truncation, inserted and deleted
/// bytes, patched JPEG frame sizes, and PNGs whose chunk CRCs are fixed after mutating (so
/// the damage reaches the decoder instead of stopping at the checksum).
enum ImageMutator {
    static func mutate(_ input: [UInt8], random: inout SplitMix) -> [UInt8] {
        var bytes = input
        guard !bytes.isEmpty else { return bytes }
        let steps = Int.random(in: 1...4, using: &random)
        for _ in 0..<steps {
            let position = Int.random(in: 0..<max(1, bytes.count), using: &random)
            switch Int.random(in: 0..<8, using: &random) {
            case 0: bytes[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &random))
            case 1: bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 2:
                let end = min(bytes.count, position + Int.random(in: 1...64, using: &random))
                for i in position..<end { bytes[i] = UInt8.random(in: 0...255, using: &random) }
            case 3: bytes = Array(bytes.prefix(position))
            case 4: bytes.insert(contentsOf: (0..<Int.random(in: 1...16, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, at: position)
            case 5:
                let end = min(bytes.count, position + Int.random(in: 1...256, using: &random))
                bytes.removeSubrange(position..<end)
            case 6:
                if let sof = JPEGEditor.startOfFrame(bytes), sof + 7 < bytes.count {
                    for i in (sof + 3)...(sof + 6) { bytes[i] = UInt8.random(in: 0...255, using: &random) }
                }
            default: bytes[position] = [0x00, 0xFF, 0xD8, 0xD9, 0xDA, 0xC0, 0xC2, 0xC4][Int.random(in: 0..<8, using: &random)]
            }
            if bytes.isEmpty { break }
        }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), Bool.random(using: &random) { fixPNGChecksums(&bytes) }
        return bytes
    }

    static func fixPNGChecksums(_ bytes: inout [UInt8]) {
        var index = 8
        while index + 12 <= bytes.count {
            let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            guard length >= 0, index + 12 + length <= bytes.count else { return }
            let crc = PNGBuilder.crc32(Array(bytes[(index + 4)..<(index + 8 + length)]))
            bytes.replaceSubrange((index + 8 + length)..<(index + 12 + length), with: PNGBuilder.bigEndian(crc))
            index += 12 + length
        }
    }
}

/// Feeds mutated and truncated real images through decode + detect: every outcome must be a
/// result or a FaceError; no crash, no hang, bounded memory. `CUSTOS_FUZZ_ITERATIONS` and
/// `CUSTOS_FUZZ_SEED` make longer or other runs (bench/fuzz-face.sh).
@Suite("Robustness: mutated images through decode and detect", needsSharedData)
struct FaceRobustnessTests {
    static var iterations: Int { Int(ProcessInfo.processInfo.environment["CUSTOS_FUZZ_ITERATIONS"] ?? "") ?? 1500 }
    static var seed: UInt64 { UInt64(ProcessInfo.processInfo.environment["CUSTOS_FUZZ_SEED"] ?? "") ?? 20_240_601 }

    static func residentMegabytes() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kilobytes / 1024
    }

    /// Bytes the allocator has handed out and not had back (unlike RSS, not inflated by
    /// freed memory the allocator keeps for reuse).
    static func allocatedMegabytes() -> Double {
        Double(cfs_allocated_bytes()) / 1_048_576
    }

    @Test func mutatedImagesNeverCrashHangOrLeak() throws {
        let engine = try Fixtures.engine()
        let seeds = try ["exif/hopper.jpg", "exif/hopper_orientation_6.jpg", "gray/hopper_gray.jpg", "small/obama-240p.jpg",
                         "profile/hopper_45.png", "noface/frame_000100.jpg"].map { [UInt8](try Fixtures.data($0)) }
            + [[UInt8](PNGBuilder.png(width: 48, height: 32))]
        let limits = ImageLimits(maxBytes: 4 * 1024 * 1024, maxPixels: 4_000_000)
        let options = FaceOptions(upsample: 0, maxDetectionSide: 480, landmarks: .five, descriptor: false)
        var random = SplitMix(seed: Self.seed)
        var outcomes: [String: Int] = [:]
        var slowest = 0.0
        var early: [Double] = [], late: [Double] = []
        for iteration in 0..<Self.iterations {
            let input = ImageMutator.mutate(seeds[iteration % seeds.count], random: &random)
            let start = Date()
            do throws(FaceError) {
                let image = try DecodedImage(data: Data(input), limits: limits)
                _ = try engine.withWorker { (worker) throws(FaceError) in try worker.analyze(image, options: options) }
                outcomes["decoded", default: 0] += 1
            } catch {
                outcomes[error.code.rawValue, default: 0] += 1
            }
            slowest = max(slowest, Date().timeIntervalSince(start))
            // Samples of memory in use; other suites run in parallel, so compare the least
            // seen early with the least seen late: a leak raises the floor, a neighbour's
            // transient allocation does not.
            if iteration % max(1, Self.iterations / 40) == 0 && iteration >= Self.iterations / 10 {
                if iteration < Self.iterations / 2 { early.append(Self.allocatedMegabytes()) } else { late.append(Self.allocatedMegabytes()) }
            }
        }
        let floorEarly = early.min() ?? 0, floorLate = late.min() ?? 0
        print("fuzz: \(Self.iterations) cases (seed \(Self.seed)): \(outcomes.sorted { $0.key < $1.key }); slowest "
              + "\(String(format: "%.3f", slowest)) s; allocated \(Int(floorEarly)) -> \(Int(floorLate)) MB; RSS \(Int(Self.residentMegabytes())) MB")
        #expect(slowest < 10)
        #expect(floorLate - floorEarly < 64, "memory in use grew from \(floorEarly) MB to \(floorLate) MB")
        #expect((outcomes["decoded"] ?? 0) > 0 && outcomes.count >= 3)
        #expect(outcomes["engine_failure"] == nil)
    }

    @Test func everyPrefixOfAJPEGAndAPNGIsHandled() throws {
        for file in ["exif/hopper.jpg", "profile/hopper_45.png"] {
            let bytes = try Fixtures.data(file)
            var codes = Set<String>()
            for length in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 400)) {
                do { _ = try DecodedImage(data: bytes.prefix(length)) } catch { codes.insert(error.code.rawValue) }
            }
            #expect(codes.isSubset(of: ["image_empty", "image_truncated", "image_corrupt"]), "\(file): \(codes)")
            #expect(codes.contains("image_truncated"))
        }
    }
}
