import Foundation

extension PairsFile {
    /// Image file endings `identities(root:)` reads.
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png"]

    /// Every pair of a folder of identities laid out as `ROOT/<Name>/<images>`: each two
    /// images of one identity is a same pair, each two images of different identities a
    /// different pair. Names and files are sorted, so the list is the same on every run.
    public static func identities(root: String) throws -> Parsed {
        let folders = try listing(root).filter { isDirectory("\(root)/\($0)") }
        var images: [(identity: Int, path: String)] = []
        for (index, name) in folders.enumerated() {
            let folder = "\(root)/\(name)"
            for file in try listing(folder) where imageExtensions.contains((file as NSString).pathExtension.lowercased()) {
                images.append((index, "\(folder)/\(file)"))
            }
        }
        var pairs: [ImagePair] = []
        for (offset, first) in images.enumerated() {
            for second in images[(offset + 1)...] {
                pairs.append(ImagePair(first: first.path, second: second.path, same: first.identity == second.identity, fold: nil))
            }
        }
        guard pairs.contains(where: \.same), pairs.contains(where: { !$0.same }) else {
            throw EvalError("\(root) needs at least two identity folders and one with two images")
        }
        return Parsed(pairs: pairs, isLFW: false)
    }

    private static func listing(_ directory: String) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw EvalError("cannot read the folder \(directory)")
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }
}
