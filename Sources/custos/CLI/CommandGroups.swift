/// The words that lead to several commands (`admin`, `admin user`, `idv` …): listed with their
/// subcommands, and searched for the nearest command when the words name none.
enum CommandGroups {
    /// `custos admin user`'s subcommands with their summaries; nil when the words lead to none.
    static func listing(_ words: [String]) -> String? {
        let below = CommandLineTool.allCommands.filter { words.count > 0 && path($0).starts(with: words) && path($0).count > words.count }
        guard !below.isEmpty else { return nil }
        let group = words.joined(separator: " ")
        return (["usage: custos \(group) COMMAND [options]", "", "commands:"]
            + CommandSpec.table(below.map { ($0.spec.path, $0.spec.summary) })
            + ["", "Run 'custos \(group) COMMAND --help' for a command's options."]).joined(separator: "\n")
    }

    /// The command or group nearest to the words, word by word, when it is close enough to be a
    /// typo: at most a third of the letters changed.
    static func suggestion(for words: [String]) -> String? {
        guard !words.isEmpty else { return nil }
        var known = Set<[String]>()
        for command in CommandLineTool.allCommands {
            let words = path(command)
            for length in 1...words.count { known.insert(Array(words.prefix(length))) }
        }
        let scored = known.filter { $0.count <= words.count }.compactMap { candidate -> (Int, [String])? in
            let typed = Array(words.prefix(candidate.count))
            let distance = zip(typed, candidate).map { editDistance($0, $1) }.reduce(0, +)
            let letters = candidate.joined().count
            return distance > 0 && distance * 3 <= letters ? (distance * 100 - candidate.count, candidate) : nil
        }
        guard let best = scored.min(by: { $0.0 < $1.0 }) else { return nil }
        return (best.1 + words.dropFirst(best.1.count)).joined(separator: " ")
    }

    private static func path(_ command: Command) -> [String] { command.spec.path.split(separator: " ").map(String.init) }

    /// Levenshtein distance: insertions, deletions and substitutions.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
