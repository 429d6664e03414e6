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
        let span = recorded[recorded.count - 1].offsetMs - first
        if pace && span > 0 { try await Task.sleep(nanoseconds: UInt64(span) * 1_000_000) }
        let end = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let start = end - span
        return try recorded.map { frame in
            CapturedImage(capturedAtMs: start + frame.offsetMs - first, jpeg: try Data(contentsOf: frame.url))
        }
    }

    /// The frames with their offsets in milliseconds.
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
            return try names.map { name in
                guard let ms = times[name] else { throw CustosError.invalidConfiguration("\(sidecar.path) has no time for \(name)") }
                return (directory.appendingPathComponent(name), ms)
            }
        }
        guard framesPerSecond > 0 else { throw CustosError.invalidConfiguration("frames per second must be positive") }
        return names.enumerated().map { index, name in
            (directory.appendingPathComponent(name), Int64((Double(index) * 1000 / framesPerSecond).rounded()))
        }
    }
}
