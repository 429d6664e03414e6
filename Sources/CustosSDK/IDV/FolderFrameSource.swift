import Foundation

/// Frames recorded earlier: the JPEG files of a folder in name order. Capture times come
/// from a `timestamps.txt` sidecar (one `<file name> <milliseconds>` per line) when there is
/// one, else from a fixed frame rate. Like a camera, it delivers the frames no faster than
/// they were recorded (`pace`), stamped from the moment the capture started.
public struct FolderFrameSource: FrameSource {
    public let directory: URL
    public let framesPerSecond: Double
    public let pace: Bool

    public init(directory: URL, framesPerSecond: Double = 10, pace: Bool = true) {
        self.directory = directory
        self.framesPerSecond = framesPerSecond
        self.pace = pace
    }

    public func capture(_ request: CaptureRequest) async throws -> [CapturedImage] {
        let recorded = try frames()
        guard !recorded.isEmpty else { throw CustosError.invalidConfiguration("no JPEG frames in \(directory.path)") }
        guard recorded.count <= request.maximumFrames else {
            throw CustosError.invalidConfiguration("\(directory.path) has \(recorded.count) frames; the server takes at most \(request.maximumFrames)")
        }
        let first = recorded[0].offsetMs
        let (span, overflow) = recorded[recorded.count - 1].offsetMs.subtractingReportingOverflow(first)
        guard !overflow, span <= Int64(request.maximumDurationMs) else {
            throw CustosError.invalidConfiguration("the frames in \(directory.path) span \(overflow ? "too long" : "\(span) ms"); "
                                                   + "the challenge allows at most \(request.maximumDurationMs) ms")
        }
        if pace && span > 0 { try await Task.sleep(for: .milliseconds(span)) }
        let end = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let start = end - span
        // Offsets do not decrease (see `frames()`), so each lies within [first, first + span].
        return try recorded.map { frame in
            CapturedImage(capturedAtMs: start + (frame.offsetMs - first), jpeg: try Data(contentsOf: frame.url))
        }
    }

    /// The frames with their offsets in milliseconds, which never decrease in name order.
    func frames() throws -> [(url: URL, offsetMs: Int64)] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { ["jpg", "jpeg"].contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
        let sidecar = directory.appendingPathComponent("timestamps.txt")
        if let text = try? String(contentsOf: sidecar, encoding: .utf8) {
            var times: [String: Int64] = [:]
            for line in text.split(whereSeparator: \.isNewline) {
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                guard parts.count == 2, let ms = Int64(parts[1]) else {
                    throw CustosError.invalidConfiguration("\(sidecar.path): lines must read '<file name> <milliseconds>'")
                }
                times[String(parts[0])] = ms
            }
            var previous: (name: String, ms: Int64)?
            return try names.map { name in
                guard let ms = times[name] else { throw CustosError.invalidConfiguration("\(sidecar.path) has no time for \(name)") }
                if let previous, ms < previous.ms {
                    throw CustosError.invalidConfiguration(
                        "\(sidecar.path): times must not decrease in name order (\(name) at \(ms) after \(previous.name) at \(previous.ms))")
                }
                previous = (name, ms)
                return (directory.appendingPathComponent(name), ms)
            }
        }
        guard framesPerSecond.isFinite, framesPerSecond > 0 else {
            throw CustosError.invalidConfiguration("frames per second must be a positive number")
        }
        return try names.enumerated().map { index, name in
            guard let ms = Int64(exactly: (Double(index) * 1000 / framesPerSecond).rounded()) else {
                throw CustosError.invalidConfiguration("a frame rate of \(framesPerSecond) per second spaces the frames too far apart")
            }
            return (directory.appendingPathComponent(name), ms)
        }
    }
}
