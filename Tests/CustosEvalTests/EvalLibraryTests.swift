import CustosCore
import CustosEval
import CustosFace
import CustosTestSupport
import Foundation
import Testing

/// The evaluation library, without the binary: pairs files, data-set readers, calibration.
@Suite struct EvalLibraryTests {
    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("custos-eval-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func lfwAndTSVPairsFilesParse() throws {
        let lfw = try PairsFile.parse("1\t2\nAda\t1\t2\nAda\t3\t4\nAda\t1\tBob\t2\nBob\t1\tCy\t3\n", root: "/lfw")
        #expect(lfw.isLFW && lfw.pairs.count == 4)
        #expect(lfw.pairs[0] == ImagePair(first: "/lfw/Ada/Ada_0001.jpg", second: "/lfw/Ada/Ada_0002.jpg", same: true, fold: 0))
        #expect(lfw.pairs[3] == ImagePair(first: "/lfw/Bob/Bob_0001.jpg", second: "/lfw/Cy/Cy_0003.jpg", same: false, fold: 0))

        let tsv = try PairsFile.parse("a.jpg\tb.jpg\t1\nc.jpg\t/abs/d.jpg\t0\n", root: "/data")
        #expect(!tsv.isLFW && tsv.pairs.map(\.same) == [true, false])
        #expect(tsv.pairs[1].second == "/abs/d.jpg")
    }

    @Test(arguments: [
        ("", "the pairs file is empty"),
        ("1\t1\nAda\t1\n", "pairs.txt line 2 has 2 fields, expected 3 or 4"),
        ("1\t1\nAda\tx\t2\n", "bad image number 'x' in the pairs file"),
        ("a.jpg\tb.jpg\t1\nc.jpg\td.jpg\tmaybe\n", "TSV line 2: 'same' must be 1/0, got 'maybe'"),
    ])
    func badPairsFilesNameTheirFault(text: String, message: String) {
        #expect(throws: EvalError(message)) { try PairsFile.parse(text, root: "/r") }
    }

    @Test func aMissingPairsFileIsNamed() {
        #expect(throws: EvalError("cannot read /nonexistent/pairs.txt")) { try PairsFile.read("/nonexistent/pairs.txt", root: "/") }
    }

    @Test func calibrationFindsTheHighestThresholdWithinTheTarget() throws {
        // Genuine pairs at 0.2-0.5, impostors at 0.45 and from 0.7 up.
        let pairs = [0.2, 0.3, 0.4, 0.5].map { FacePairMetrics.Pair(distance: $0, same: true) }
            + [0.45, 0.7, 0.8, 0.9].map { FacePairMetrics.Pair(distance: $0, same: false) }
        let strict = try #require(Calibration(FacePairMetrics(pairs: pairs), targetFMR: 0))
        #expect(strict.falseMatches == 0 && strict.threshold < 0.45 && strict.threshold >= 0.4)
        #expect(strict.falseNonMatches == 1 && strict.fnmr == 0.25 && strict.nextImpostorDistance == 0.45)
        let lenient = try #require(Calibration(FacePairMetrics(pairs: pairs), targetFMR: 0.25))
        #expect(lenient.falseMatches == 1 && lenient.fmr == 0.25 && lenient.falseNonMatches == 0)
        #expect(lenient.impostorPairsNeeded == 12 && !lenient.enoughImpostors)
        #expect(Calibration(FacePairMetrics(pairs: Array(pairs.prefix(4))), targetFMR: 0.1) == nil)
        let points = FacePairMetrics(pairs: pairs).roc
        #expect(ROCChart.csv(points).hasPrefix("threshold,"))
        #expect(ROCChart.svg(points, title: "t", impostors: 4).contains("<svg"))
    }

    @Test func identityFoldersMakeEveryPair() throws {
        let root = try Self.temporaryDirectory()
        for (name, files) in [("Ada", ["1.jpg", "2.png"]), ("Bob", ["1.jpg", "notes.txt"])] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(name)", withIntermediateDirectories: true)
            for file in files { FileManager.default.createFile(atPath: "\(root)/\(name)/\(file)", contents: Data()) }
        }
        let parsed = try PairsFile.identities(root: root)
        #expect(parsed.pairs.count == 3 && parsed.pairs.filter(\.same).count == 1)
        #expect(throws: EvalError.self) { try PairsFile.identities(root: "\(root)/Bob") }
    }

    @Test func aLivenessDataSetReadsItsManifest() throws {
        let root = try Self.temporaryDirectory()
        try FileManager.default.createDirectory(atPath: "\(root)/frames/blink", withIntermediateDirectories: true)
        for index in 1...3 { FileManager.default.createFile(atPath: "\(root)/frames/blink/\(String(format: "%04d", index)).jpg", contents: Data()) }
        try Data("file\tkind\tnotes\nframes/blink/0001.jpg\tlive_sequence\tfps=12\nprint.jpg\tspoof_print\tA4\n".utf8)
            .write(to: URL(fileURLWithPath: "\(root)/MANIFEST.tsv"))
        let data = try LivenessDataSet(directory: root)
        #expect(data.sequences.count == 1 && data.sequences[0].paths.count == 3)
        #expect(data.stills.map(\.kind) == ["spoof_print"])
        try Data("file\tkind\n".utf8).write(to: URL(fileURLWithPath: "\(root)/MANIFEST.tsv"))
        #expect(throws: EvalError("\(root)/MANIFEST.tsv needs the columns file, kind and notes")) { try LivenessDataSet(directory: root) }
    }

    /// A small real evaluation: two photos of one person against one of another.
    @Test(.enabled(if: SharedData.isAvailable || TestEnvironment.facesRequired, Comment(rawValue: SharedData.missingMessage)))
    func realPhotosScoreSameBelowDifferent() throws {
        let jolie = SharedData.files(in: "faces/identities/Angelina_Jolie").prefix(2).map { SharedData.url($0).path }
        let obama = try #require(SharedData.files(in: "faces/identities/Barack_Obama").first.map { SharedData.url($0).path })
        try #require(jolie.count == 2)
        let pairs = [ImagePair(first: jolie[0], second: jolie[1], same: true, fold: nil),
                     ImagePair(first: jolie[0], second: obama, same: false, fold: nil)]
        let scored = ScoredPairs(pairs, engine: try SharedFaceEngine.engine(), options: .selfie, threads: 1)
        #expect(scored.failures.isEmpty, "\(scored.failures)")
        let distances = Dictionary(uniqueKeysWithValues: scored.metrics.pairs.map { ($0.same, $0.distance) })
        #expect(try #require(distances[true]) < 0.575 && 0.575 < (try #require(distances[false])))
    }
}
