import CustosCore
import CustosTestSupport
import Foundation
import Testing

/// Runs the built `custos` binary (beside the test bundle, as `swift test` builds it).
enum FaceCLI {
    static var binary: URL? {
        if let path = ProcessInfo.processInfo.environment["CUSTOS_BINARY"] { return URL(fileURLWithPath: path) }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("custos")
        return FileManager.default.isExecutableFile(atPath: beside.path) ? beside : nil
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("CUSTOS_") }
        environment["CUSTOS_MODELS_DIR"] = try FaceModelFilesForTests.directory()
        let output = try ChildProcess.run(executable: try #require(binary).path, arguments: arguments,
                                          environment: environment)
        return (output.status, String(decoding: output.stdout, as: UTF8.self), String(decoding: output.stderr, as: UTF8.self))
    }
}

import CustosFace

enum FaceModelFilesForTests {
    static func directory() throws -> String { try FaceModelFiles.locate(searchFrom: [SharedData.packageRoot]).directory.path }
}

let needsBinary = Testing.ConditionTrait.enabled(if: FaceCLI.binary != nil, "the custos binary is not built beside the tests")

@Suite("custos face / eval commands", needsSharedData, needsBinary)
struct FaceCLITests {
    func face(_ path: String) -> String { SharedData.url("faces/" + path).path }

    @Test func analyzePrintsFacesAndErrorsAsJSON() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("custos-empty-\(UUID().uuidString).jpg")
        try Data().write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        let result = try FaceCLI.run(["face", "analyze", "--preset", "thorough", "--descriptor", face("group/two_people.jpg"), empty.path])
        #expect(result.status == 1)   // one image failed
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let images = try #require(json["images"] as? [[String: Any]])
        #expect(images.count == 2)
        let faces = try #require(images[0]["faces"] as? [[String: Any]])
        #expect(faces.count == 2)
        #expect((faces[0]["descriptor"] as? [Double])?.count == 128)
        #expect((faces[0]["landmarks"] as? [String: Any])?["points68"] != nil)
        #expect((images[1]["error"] as? [String: Any])?["code"] as? String == "image_empty")
    }

    @Test func compareExitsZeroForSameThreeForDifferentOneForErrors() throws {
        let same = try FaceCLI.run(["face", "compare", face("identities/Barack_Obama/obama.jpg"), face("identities/Barack_Obama/obama2.jpg")])
        #expect(same.status == 0 && same.stdout.contains("\"decision\":\"same\""))
        let different = try FaceCLI.run(["face", "compare", face("identities/Barack_Obama/obama.jpg"), face("identities/Joe_Biden/biden.jpg")])
        #expect(different.status == 3 && different.stdout.contains("\"decision\":\"different\""))
        let strict = try FaceCLI.run(["face", "compare", "--threshold", "0.2", face("identities/Barack_Obama/obama.jpg"),
                                      face("identities/Barack_Obama/obama2.jpg")])
        #expect(strict.status == 3)
        let noFace = try FaceCLI.run(["face", "compare", face("identities/Barack_Obama/obama.jpg"), face("noface/dog.jpg")])
        #expect(noFace.status == 1 && noFace.stdout.contains("no_face"))
        let usage = try FaceCLI.run(["face", "compare", "--threshold", "x", "a", "b"])
        #expect(usage.status == 2)
    }

    /// Lays the identities out as LFW does (Name/Name_000i.jpg) and writes a 2-fold pairs.txt
    /// and a TSV with the same pairs.
    func makePairs() throws -> (directory: URL, lfw: URL, tsv: URL, perFold: Int) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custos-pairs-\(UUID().uuidString)")
        let root = directory.appendingPathComponent("root")
        var counts: [String: Int] = [:]
        for row in try SharedData.manifest("faces/MANIFEST.tsv") where row["file"]?.hasPrefix("identities/") == true {
            let identity = try #require(row["identity"]), file = try #require(row["file"])
            let folder = root.appendingPathComponent(identity)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            counts[identity, default: 0] += 1
            let name = String(format: "%@_%04d.jpg", identity, counts[identity] ?? 0)
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(name), withDestinationURL: SharedData.url("faces/" + file))
        }
        let names = counts.keys.sorted()
        var same: [String] = [], different: [String] = []
        for name in names where (counts[name] ?? 0) >= 2 { same.append("\(name)\t1\t2") }
        for (index, name) in names.enumerated() { different.append("\(name)\t1\t\(names[(index + 1) % names.count])\t1") }
        let perFold = min(same.count, different.count) / 2
        var lfw = "2\t\(perFold)\n"
        var tsv = "img1\timg2\tsame\n"
        for fold in 0..<2 {
            for line in same[(fold * perFold)..<((fold + 1) * perFold)] {
                lfw += line + "\n"
                let f = line.split(separator: "\t")
                tsv += "\(f[0])/\(f[0])_0001.jpg\t\(f[0])/\(f[0])_0002.jpg\t1\n"
            }
            for line in different[(fold * perFold)..<((fold + 1) * perFold)] {
                lfw += line + "\n"
                let f = line.split(separator: "\t")
                tsv += "\(f[0])/\(f[0])_0001.jpg\t\(f[2])/\(f[2])_0001.jpg\t0\n"
            }
        }
        let lfwFile = directory.appendingPathComponent("pairs.txt"), tsvFile = directory.appendingPathComponent("pairs.tsv")
        try lfw.write(to: lfwFile, atomically: true, encoding: .utf8)
        try tsv.write(to: tsvFile, atomically: true, encoding: .utf8)
        return (directory, lfwFile, tsvFile, perFold)
    }

    @Test func evalPairsOnLFWFormatAndTSV() throws {
        let files = try makePairs()
        defer { try? FileManager.default.removeItem(at: files.directory) }
        let svg = files.directory.appendingPathComponent("roc.svg"), csv = files.directory.appendingPathComponent("roc.csv")
        let root = files.directory.appendingPathComponent("root").path
        let lfw = try FaceCLI.run(["eval", "pairs", "--pairs", files.lfw.path, "--root", root, "--roc", svg.path, "--csv", csv.path,
                                   "--threads", "2"])
        #expect(lfw.status == 0, "\(lfw.stderr)")
        let expected = "pairs: \(4 * files.perFold) (\(2 * files.perFold) same, \(2 * files.perFold) different)"
        #expect(files.perFold >= 10)
        #expect(lfw.stdout.contains(expected), "\(lfw.stdout)")
        #expect(lfw.stdout.contains("detection fallbacks (centre region): 0"))
        #expect(lfw.stdout.contains("accuracy (2-fold cross-validated): 1.0000"), "\(lfw.stdout)")
        for line in ["TAR @ FAR=1e-01", "TAR @ FAR=1e-02", "TAR @ FAR=1e-03", "EER: 0.0000"] { #expect(lfw.stdout.contains(line)) }
        #expect(try String(contentsOf: svg, encoding: .utf8).contains("<polyline"))
        #expect(try String(contentsOf: csv, encoding: .utf8).hasPrefix("threshold,far,tar\n"))

        let tsv = try FaceCLI.run(["eval", "pairs", "--pairs", files.tsv.path, "--root", root, "--flip", "--jitters", "2"])
        #expect(tsv.status == 0)
        #expect(tsv.stdout.contains(expected), "\(tsv.stdout)")
        #expect(!tsv.stdout.contains("accuracy"))
        #expect(tsv.stdout.contains("EER: 0.0000"))
    }

    @Test func evalPairsFallsBackToTheCentreWhenNoFaceIsFound() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custos-fallback-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tsv = "\(face("noface/dog.jpg"))\t\(face("exif/hopper.jpg"))\t0\n\(face("exif/hopper.jpg"))\t\(face("exif/hopper_orientation_3.jpg"))\t1\n"
        try tsv.write(to: directory.appendingPathComponent("p.tsv"), atomically: true, encoding: .utf8)
        let result = try FaceCLI.run(["eval", "pairs", "--pairs", directory.appendingPathComponent("p.tsv").path])
        #expect(result.stdout.contains("detection fallbacks (centre region): 1"), "\(result.stdout)")
    }
}
