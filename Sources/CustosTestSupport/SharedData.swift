import Foundation

/// The project's shared test data (`../shared/data` beside the repository), found by walking
/// up from this source file to the package root. Tests use this, never hard-coded paths, and
/// skip with `SharedData.missingMessage` when it is absent.
public enum SharedData {
    /// The package root: the nearest directory above this file that holds Package.swift.
    public static let packageRoot: URL = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) { return directory }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// `../shared/data` relative to the package root, or `CUSTOS_SHARED_DATA` when set.
    public static var root: URL {
        if let configured = ProcessInfo.processInfo.environment["CUSTOS_SHARED_DATA"], !configured.isEmpty {
            return URL(fileURLWithPath: configured)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data")
    }

    /// Whether the data is there (its faces manifest is the marker).
    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: root.appendingPathComponent("faces/MANIFEST.tsv").path)
    }

    /// Why tests were skipped.
    public static var missingMessage: String {
        "shared test data not found at \(root.path) (expected ../shared/data beside the repository, or set CUSTOS_SHARED_DATA)"
    }

    /// A file under the data root, e.g. `url("faces/exif/hopper.jpg")`.
    public static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    /// The bytes of a file under the data root.
    public static func data(_ relativePath: String) throws -> Data { try Data(contentsOf: url(relativePath)) }

    /// Files (relative paths) directly inside a folder under the data root, sorted.
    public static func files(in relativeFolder: String, extensions: Set<String> = ["jpg", "jpeg", "png"]) -> [String] {
        let folder = url(relativeFolder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }.sorted()
            .map { relativeFolder + "/" + $0 }
    }

    /// Rows of a tab-separated manifest (header row gives the keys).
    public static func manifest(_ relativePath: String) throws -> [[String: String]] {
        let text = String(decoding: try data(relativePath), as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { fields in
            Dictionary(uniqueKeysWithValues: zip(header, fields + Array(repeating: "", count: max(0, header.count - fields.count))))
        }
    }
}
