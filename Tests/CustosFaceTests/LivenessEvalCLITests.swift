import CustosCore
import CustosTestSupport
import Foundation
import Testing

/// `custos eval liveness` run as a built binary on a few windows (see `FaceCLI`).
@Suite("custos eval liveness", needsSharedData, needsBinary)
struct LivenessEvalCLITests {
    let data = SharedData.url("liveness")

    @Test func reportsBPCERAndAPCERPerAttackType() throws {
        let result = try FaceCLI.run(["eval", "liveness", "--data", data.path, "--window", "8", "--limit", "2", "--attack-sources", "1",
                                      "--threads", "2", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["window"] as? Int == 8)
        // Three sequences, two windows each: judged or skipped for a stated reason.
        let bpcer = try #require(json["bpcer"] as? [String: Any])
        let skipped = try #require(json["skipped"] as? [String: Int])
        #expect((bpcer["presentations"] as? Int ?? 0) + skipped.values.reduce(0, +) == 6, "\(bpcer) \(skipped)")
        let apcer = try #require(json["apcer"] as? [String: [String: Any]])
        // One source frame per sequence, judged against each of the three actions.
        let repeated = try #require(apcer["repeated_frame"])
        #expect(repeated["presentations"] as? Int == 9)
        #expect(repeated["errors"] as? Int == 0)
        #expect((repeated["failures"] as? [String: Int])?["replay"] == 9)
        for type in ["repeated_frame_reencoded", "affine_photo", "perspective_photo"] { #expect(apcer[type]?["presentations"] as? Int == 9) }
        for type in ["print_photo_affine", "print_photo_perspective", "screen_replay_affine", "screen_replay_perspective"] {
            #expect(apcer[type]?["presentations"] as? Int == 3, "\(type)")
        }
        #expect(json["reference_types"] as? [String] == ["live_still_affine", "live_still_perspective"])
        #expect(json["meets_apcer_target"] is Bool && json["meets_bpcer_target"] is Bool)
    }

    @Test func printsTextForOneAction() throws {
        let result = try FaceCLI.run(["eval", "liveness", "--data", data.path, "--actions", "blink", "--window", "8", "--limit", "1",
                                      "--attack-sources", "0", "--threads", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        for line in ["challenges: blink", "BPCER: ", "APCER per attack type:", "print_photo_perspective", "targets: "] {
            #expect(result.stdout.contains(line), "\(line) in \(result.stdout)")
        }
        #expect(!result.stdout.contains("repeated_frame"))
    }

    @Test func usageErrors() throws {
        #expect(try FaceCLI.run(["eval", "liveness"]).status == 2)
        #expect(try FaceCLI.run(["eval", "liveness", "--data", data.path, "--actions", "nod"]).status == 2)
        #expect(try FaceCLI.run(["eval", "liveness", "--data", data.path, "--window", "1"]).status == 2)
        #expect(try FaceCLI.run(["eval", "liveness", "--data", "/nonexistent-custos-folder"]).status == 2)
    }
}
