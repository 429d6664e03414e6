import Foundation

/// The liveness data `custos eval liveness` reads (`../shared/data/liveness`), described by
/// its MANIFEST.tsv (columns file, subject, kind, …, notes):
///  - `frames/<name>/*.jpg`: frame sequences of genuine videos; the frame rate comes from the
///    notes (`fps=12`), and sequences whose notes list eyes-closed frame ranges
///    ("eyes closed … around frames 6-7, 21-22") are judged on blinks, the others on turns;
///  - still images of kind `spoof_print`, `spoof_replay` (presentation-attack samples) and
///    `live_image` (a genuine capture, for reference).
public struct LivenessDataSet {
    /// One genuine frame sequence.
    public struct Sequence {
        public let name: String
        public let fps: Double
        /// Frame files, in order.
        public let paths: [String]
        /// Frame numbers (1-based, inclusive) with the eyes closed; empty for turn sequences.
        public let eyesClosed: [ClosedRange<Int>]
        public var isBlinkSequence: Bool { !eyesClosed.isEmpty }
    }

    /// A still image and its manifest kind.
    public struct Still {
        public let path: String
        public let kind: String
    }

    public let sequences: [Sequence]
    public let stills: [Still]

    public static let stillKinds: Set<String> = ["spoof_print", "spoof_replay", "live_image"]

    public init(directory: String) throws {
        let manifestPath = "\(directory)/MANIFEST.tsv"
        guard let text = try? String(contentsOfFile: manifestPath, encoding: .utf8) else {
            throw EvalError("cannot read \(manifestPath)")
        }
        var lines = text.split(whereSeparator: \.isNewline).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let header = lines.isEmpty ? [] : lines.removeFirst()
        guard let fileColumn = header.firstIndex(of: "file"), let kindColumn = header.firstIndex(of: "kind"),
              let notesColumn = header.firstIndex(of: "notes") else {
            throw EvalError("\(manifestPath) needs the columns file, kind and notes")
        }
        let rows = lines.filter { $0.count > max(fileColumn, kindColumn, notesColumn) }
        var notesByFolder: [String: String] = [:]
        var stills: [Still] = []
        for row in rows {
            let file = row[fileColumn]
            let parts = file.split(separator: "/")
            if parts.count == 3, parts[0] == "frames", notesByFolder[String(parts[1])] == nil {
                notesByFolder[String(parts[1])] = row[notesColumn]
            }
            let isImage = PairsFile.imageExtensions.contains((file as NSString).pathExtension.lowercased())
            if Self.stillKinds.contains(row[kindColumn]), isImage { stills.append(Still(path: "\(directory)/\(file)", kind: row[kindColumn])) }
        }
        sequences = try notesByFolder.keys.sorted().map { name in
            try Self.sequence(name, directory: directory, notes: notesByFolder[name] ?? "")
        }
        self.stills = stills.sorted { $0.path < $1.path }
        guard !sequences.isEmpty else { throw EvalError("\(manifestPath) lists no frames/<name>/ sequences") }
    }

    private static func sequence(_ name: String, directory: String, notes: String) throws -> Sequence {
        guard let match = notes.firstMatch(of: #/fps=([0-9]+(?:\.[0-9]+)?)/#), let fps = Double(match.1), fps > 0 else {
            throw EvalError("no frame rate (fps=N) in the MANIFEST.tsv notes of frames/\(name)")
        }
        let folder = "\(directory)/frames/\(name)"
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { PairsFile.imageExtensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
        var closed: [ClosedRange<Int>] = []
        if let range = notes.range(of: "eyes closed") {
            for match in notes[range.upperBound...].matches(of: #/([0-9]+)-([0-9]+)/#) {
                if let first = Int(match.1), let last = Int(match.2), first <= last { closed.append(first...last) }
            }
        }
        return Sequence(name: name, fps: fps, paths: files.map { "\(folder)/\($0)" }, eyesClosed: closed)
    }
}
