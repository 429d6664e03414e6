import CustosCore
import CustosTestSupport
import Foundation
import Testing

/// `custos eval calibrate` run as a built binary (see `FaceCLI`).
@Suite("custos eval calibrate", needsSharedData, needsBinary)
struct CalibrateCLITests {
    let identities = SharedData.url("faces/identities")

    /// Image counts per identity folder, as the command reads them.
    func imageCounts() throws -> [Int] {
        let folders = try FileManager.default.contentsOfDirectory(atPath: identities.path).filter { !$0.hasPrefix(".") }
        return try folders.map { folder in
            try FileManager.default.contentsOfDirectory(atPath: identities.appendingPathComponent(folder).path)
                .filter { ["jpg", "jpeg", "png"].contains(($0 as NSString).pathExtension.lowercased()) }.count
        }
    }

    @Test func calibratesOnEveryPairOfTheIdentities() throws {
        let result = try FaceCLI.run(["eval", "calibrate", "--identities", identities.path, "--target-fmr", "1e-3", "--threads", "2", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let counts = try imageCounts()
        let total = counts.reduce(0, +)
        let same = counts.map { $0 * ($0 - 1) / 2 }.reduce(0, +)
        #expect(json["same_pairs"] as? Int == same)
        #expect(json["different_pairs"] as? Int == total * (total - 1) / 2 - same)
        let calibration = try #require(json["calibration"] as? [String: Any])
        let fmr = try #require(calibration["fmr"] as? Double), fnmr = try #require(calibration["fnmr"] as? Double)
        let threshold = try #require(calibration["threshold"] as? Double)
        #expect(fmr <= 1e-3)
        #expect(fnmr <= 0.05, "FNMR \(fnmr)")
        #expect(threshold > 0.4 && threshold < 0.8)
        let different = try #require(json["different_pairs"] as? Int)
        #expect(calibration["false_matches"] as? Int == Int((fmr * Double(different)).rounded()))
        // About 2,200 different pairs cannot show a rate of 1e-3: the rule of three needs 3,000.
        #expect(calibration["impostor_pairs_needed"] as? Int == 3000)
        #expect(calibration["enough_impostors"] as? Bool == false)
        if let next = calibration["next_impostor_distance"] as? Double { #expect(next > threshold) }
        // With false matches at the target, the point that admits none is given too.
        if calibration["false_matches"] as? Int ?? 0 > 0 {
            let strict = try #require(json["no_false_match"] as? [String: Any])
            #expect(strict["false_matches"] as? Int == 0)
            #expect(try #require(strict["threshold"] as? Double) < threshold)
        }
    }

    @Test func printsRatesCountsAndTheCaveatForAPairsFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custos-calibrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tsv = """
        img1\timg2\tsame
        Barack_Obama/obama.jpg\tBarack_Obama/obama2.jpg\t1
        Joe_Biden/biden.jpg\tJoe_Biden/biden2.jpg\t1
        Barack_Obama/obama.jpg\tJoe_Biden/biden.jpg\t0
        Barack_Obama/obama2.jpg\tJoe_Biden/biden2.jpg\t0

        """
        let file = directory.appendingPathComponent("pairs.tsv")
        try tsv.write(to: file, atomically: true, encoding: .utf8)
        let result = try FaceCLI.run(["eval", "calibrate", "--pairs", file.path, "--root", identities.path, "--target-fmr", "0.1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("pairs: 4 (2 same, 2 different)"), "\(result.stdout)")
        #expect(result.stdout.contains("target FMR: 1e-01"))
        #expect(result.stdout.contains("threshold: "))
        #expect(result.stdout.contains("FMR: 0.000000 (0 of 2 different pairs at or below the threshold)"), "\(result.stdout)")
        #expect(result.stdout.contains("FNMR: 0.000000 (0 of 2 same pairs above the threshold)"), "\(result.stdout)")
        #expect(result.stdout.contains("caveat: 2 different pairs are too few to support FMR 1e-01"), "\(result.stdout)")
        #expect(result.stdout.contains("at least 30 are needed"))
    }

    @Test func usageErrors() throws {
        #expect(try FaceCLI.run(["eval", "calibrate"]).status == 2)
        #expect(try FaceCLI.run(["eval", "calibrate", "--pairs", "p.tsv", "--identities", identities.path]).status == 2)
        #expect(try FaceCLI.run(["eval", "calibrate", "--identities", identities.path, "--target-fmr", "0"]).status == 2)
        #expect(try FaceCLI.run(["eval", "calibrate", "--identities", identities.path, "--target-fmr", "x"]).status == 2)
        #expect(try FaceCLI.run(["eval", "calibrate", "--identities", "/nonexistent-custos-folder"]).status == 2)
    }
}
