import Foundation

/// A pair of images to compare, with the ground truth.
public struct ImagePair: Sendable, Hashable {
    public var first: String
    public var second: String
    public var same: Bool
    public var fold: Int?

    public init(first: String, second: String, same: Bool, fold: Int?) {
        self.first = first
        self.second = second
        self.same = same
        self.fold = fold
    }
}

/// Reads the two pair-list formats of `custos eval pairs`:
///  - LFW `pairs.txt`: a header `FOLDS N`, then per fold N lines `Name i j` (same person)
///    and N lines `Name1 i Name2 j` (different people); images at `ROOT/Name/Name_000i.jpg`;
///  - TSV: `img1<TAB>img2<TAB>same` (same: 1/0, true/false, yes/no), paths relative
///    to ROOT or absolute; a header line is skipped.
public enum PairsFile {
    public struct Parsed {
        public var pairs: [ImagePair]
        public var isLFW: Bool
    }

    /// Reads and parses the pairs file at `path`.
    public static func read(_ path: String, root: String) throws -> Parsed {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch { throw EvalError("cannot read \(path)") }
        return try parse(text, root: root)
    }

    public static func parse(_ text: String, root: String) throws -> Parsed {
        let lines = text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        guard let first = lines.first else { throw EvalError("the pairs file is empty") }
        // LFW's header is one or two integers (tab- or space-separated): "10\t300".
        let fields = first.split(whereSeparator: \.isWhitespace)
        let header = fields.compactMap { Int($0) }
        if header.count == fields.count && header.count == 2 {
            return Parsed(pairs: try lfw(Array(lines.dropFirst()), folds: header[0], perFold: header[1], root: root), isLFW: true)
        }
        if header.count == fields.count && header.count == 1 {
            return Parsed(pairs: try lfw(Array(lines.dropFirst()), folds: 1, perFold: header[0], root: root), isLFW: true)
        }
        return Parsed(pairs: try tsv(lines, root: root), isLFW: false)
    }

    public static func lfwPath(root: String, name: String, number: String) throws -> String {
        guard let index = Int(number), index >= 0 else { throw EvalError("bad image number '\(number)' in the pairs file") }
        return "\(root)/\(name)/\(name)_\(String(format: "%04d", index)).jpg"
    }

    private static func lfw(_ lines: [String], folds: Int, perFold: Int, root: String) throws -> [ImagePair] {
        guard folds > 0, perFold > 0 else { throw EvalError("bad pairs.txt header") }
        var pairs: [ImagePair] = []
        for (index, line) in lines.enumerated() {
            let fields = line.split(whereSeparator: \.isWhitespace).map(String.init)
            let fold = min(folds - 1, index / (2 * perFold))
            switch fields.count {
            case 3:
                pairs.append(ImagePair(first: try lfwPath(root: root, name: fields[0], number: fields[1]),
                                       second: try lfwPath(root: root, name: fields[0], number: fields[2]), same: true, fold: fold))
            case 4:
                pairs.append(ImagePair(first: try lfwPath(root: root, name: fields[0], number: fields[1]),
                                       second: try lfwPath(root: root, name: fields[2], number: fields[3]), same: false, fold: fold))
            default:
                throw EvalError("pairs.txt line \(index + 2) has \(fields.count) fields, expected 3 or 4")
            }
        }
        return pairs
    }

    private static func tsv(_ lines: [String], root: String) throws -> [ImagePair] {
        var pairs: [ImagePair] = []
        for (index, line) in lines.enumerated() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count >= 3 else { throw EvalError("TSV line \(index + 1) needs img1<TAB>img2<TAB>same") }
            let same: Bool
            switch fields[2].lowercased() {
            case "1", "true", "yes": same = true
            case "0", "false", "no": same = false
            default:
                if index == 0 { continue }   // a header
                throw EvalError("TSV line \(index + 1): 'same' must be 1/0, got '\(fields[2])'")
            }
            let resolve = { (path: String) in path.hasPrefix("/") ? path : "\(root)/\(path)" }
            pairs.append(ImagePair(first: resolve(fields[0]), second: resolve(fields[1]), same: same, fold: nil))
        }
        guard !pairs.isEmpty else { throw EvalError("no pairs in the TSV file") }
        return pairs
    }
}
