import CustosAPI
import CustosTestSupport
import Foundation
import Testing

/// Server biometrics through the `custos idv` commands against a real `custos serve`, with
/// recorded frames from ../shared/data/liveness.
@Suite(.serialized, needsReleaseBuildAndFaces)
struct IDVCLITests {
    /// A folder holding frames `range` of a liveness sequence.
    func frames(_ range: ClosedRange<Int>, of sequence: String = "blink_selfie", repeating: Bool = false) throws -> String {
        let directory = CLI.temporaryDirectory()
        for (index, number) in range.enumerated() {
            let source = SharedData.url(String(format: "liveness/frames/%@/frame_%04d.jpg", sequence, repeating ? range.lowerBound : number))
            try FileManager.default.copyItem(atPath: source.path, toPath: String(format: "%@/f%03d.jpg", directory, index))
        }
        return directory
    }

    /// Creates and activates `user` on `served` in a fresh profile; runs `custos idv …` in it.
    func activatedProfile(_ user: String, on served: IdentityCLITests.Served) throws -> ([String]) throws -> CLI.Result {
        let profile = CLI.temporaryDirectory() + "/profile"
        let created = try served.admin(["user", "create", user, "--json"])
        let code = try WireJSON.decoder().decode(CreatedUser.self, from: Data(created.stdout.utf8)).activation.activationCode
        let activated = try CLI.run(["device", "activate", "--user", user, "--code", code, "--password-stdin", "--server", served.server,
                                     "--profile", profile], stdin: "a good long password\n")
        #expect(activated.status == 0, "\(activated.stderr)")
        return { arguments in try CLI.run(["idv"] + arguments + ["--profile", profile]) }
    }

    @Test func optInAuthenticateRotateAuditOptOut() throws {
        let served = try IdentityCLITests.Served(extra: ["--liveness-actions", "blink"])
        defer { served.stop() }
        let idv = try activatedProfile("dora", on: served)

        let missing = try idv(["status"])
        #expect(missing.status == 7 && missing.stdout.contains("600"))
        let enrolled = try idv(["optin", "--frames", try frames(1...25), "--fps", "12", "--consent-version", "v2"])
        #expect(enrolled.status == 0 && enrolled.stdout.contains("ENROLLED"), "\(enrolled.stdout) \(enrolled.stderr)")
        #expect(try idv(["status"]).status == 0)

        let matched = try idv(["authenticate", "--frames", try frames(38...50), "--fps", "12", "--reason", "CLI payment", "--json"])
        #expect(matched.status == 0, "\(matched.stderr)")
        let result = try WireJSON.decoder().decode(IDVResultResponse.self, from: Data(matched.stdout.utf8))
        #expect(result.biometricResult?.displayText == "MATCHED" && result.idvAuditInfo.reason == "CLI payment" && result.attemptsLeft == 5)

        // Declining the start: the 240 path, no attempt used, no frames needed.
        let declined = try idv(["authenticate", "--decline", "--reason", "Not now"])
        #expect(declined.status == 8 && declined.stdout.contains("error 240 (user_cancelled)") && declined.stdout.contains("cancelled (240)"),
                "\(declined.stdout) \(declined.stderr)")
        #expect(try idv(["status"]).stdout.contains("5 attempts left"))

        let photo = try idv(["authenticate", "--frames", try frames(60...70, repeating: true), "--fps", "12"])
        #expect(photo.status == 4 && photo.stdout.contains("LIVENESS_FAILED") && photo.stdout.contains("4 attempts left"), "\(photo.stdout)")
        #expect(photo.stdout.contains("the challenge asked for: blink\n") && !photo.stdout.contains("hint:"), "\(photo.stdout)")

        let noDocument = try idv(["kyc", "--frames", try frames(1...3)])
        #expect(noDocument.status == 2 && noDocument.stderr.contains("--document"))
        let noFrames = try idv(["authenticate", "--frames", "/nonexistent"])
        #expect(noFrames.status == 2)

        let rotated = try CLI.run(["admin", "keys", "rotate", "--dev", "--data-dir", served.dataDir])
        #expect(rotated.status == 0 && rotated.stdout.contains("1 template(s) re-encrypted"), "\(rotated.stdout) \(rotated.stderr)")
        let after = try idv(["authenticate", "--frames", try frames(104...118), "--fps", "12"])
        #expect(after.status == 0 && after.stdout.contains("MATCHED"), "\(after.stdout) \(after.stderr)")

        let audit = try CLI.run(["admin", "audit", "verify", "--dev", "--data-dir", served.dataDir])
        #expect(audit.status == 0, "\(audit.stdout) \(audit.stderr)")
        let listed = try CLI.run(["admin", "audit", "list", "--user", "dora", "--data-dir", served.dataDir])
        #expect(listed.stdout.contains("biometric.enrolled") && listed.stdout.contains("idv.verdict"))

        #expect(try idv(["optout"]).status == 0)
        #expect(try idv(["status"]).status == 7)
    }

    /// A recording of blinks against a challenge for a head turn: the answer names the action
    /// asked for and says why recorded frames could not show it.
    @Test func aLivenessFailureNamesTheActionsAskedFor() throws {
        let served = try IdentityCLITests.Served(extra: ["--liveness-actions", "turn_left"])
        defer { served.stop() }
        let idv = try activatedProfile("turner", on: served)
        let failed = try idv(["optin", "--frames", try frames(1...25), "--fps", "12"])
        #expect(failed.status == 4 && failed.stdout.contains("LIVENESS_FAILED"), "\(failed.stdout) \(failed.stderr)")
        #expect(failed.stdout.contains("the challenge asked for: turn_left\n"), "\(failed.stdout)")
        #expect(failed.stdout.contains("hint: recorded frames show only what was recorded"), "\(failed.stdout)")
    }

    @Test func documentScanAndTheRelyingPartysReads() throws {
        let served = try IdentityCLITests.Served(extra: ["--liveness-actions", "blink"])
        defer { served.stop() }
        let idv = try activatedProfile("erin", on: served)
        let portrait = SharedData.url("liveness/frames/blink_selfie/frame_0120.jpg").path
        let back = SharedData.url("faces/profile/hopper_45.png").path

        let noTemplate = try idv(["document-scan", "--front", portrait])
        #expect(noTemplate.status == 7 && noTemplate.stdout.contains("600"), "\(noTemplate.stdout) \(noTemplate.stderr)")
        #expect(try idv(["optin", "--frames", try frames(1...25), "--fps", "12"]).status == 0)

        let matched = try idv(["document-scan", "--front", portrait, "--back", back, "--reason", "Second ID", "--json"])
        #expect(matched.status == 0, "\(matched.stdout) \(matched.stderr)")
        let result = try WireJSON.decoder().decode(IDVResultResponse.self, from: Data(matched.stdout.utf8))
        #expect(result.biometricResult?.displayText == "MATCHED" && result.workflow == 7 && result.challengeMode == 10)
        let transaction = result.idvAuditInfo.idvAuditTransactionID

        let other = try idv(["document-scan", "--front", SharedData.url("liveness/frames/talking_obama/frame_0001.jpg").path])
        #expect(other.status == 4 && other.stdout.contains("NOT_MATCHED") && other.stdout.contains("4 attempts left"), "\(other.stdout)")
        let declined = try idv(["document-scan", "--front", portrait, "--decline"])
        #expect(declined.status == 8 && declined.stdout.contains("error 240 (user_cancelled)"), "\(declined.stdout) \(declined.stderr)")
        #expect(try idv(["document-scan"]).status == 2)
        #expect(try idv(["document-scan", "--front", "/nonexistent.jpg"]).status == 2)

        // The relying party: the verdict with the sides kept, and the images as uploaded.
        let verdict = try served.admin(["idv", "verdict", transaction])
        #expect(verdict.status == 0 && verdict.stdout.contains("MATCHED") && verdict.stdout.contains("documents: front, back"), "\(verdict.stdout)")
        let saved = CLI.temporaryDirectory() + "/back.png"
        let read = try served.admin(["idv", "document", transaction, "--side", "back", "--out", saved])
        #expect(read.status == 0 && read.stdout.contains("image/png"), "\(read.stdout) \(read.stderr)")
        #expect(FileManager.default.contents(atPath: saved) == FileManager.default.contents(atPath: back))
        #expect((try FileManager.default.attributesOfItem(atPath: saved)[.posixPermissions] as? Int) == 0o600)
        let missing = try served.admin(["idv", "document", "0123abcd", "--out", saved])
        #expect(missing.status == 1 && missing.stderr.contains("idv_transaction_not_found"), "\(missing.stderr)")
        let listed = try CLI.run(["admin", "audit", "list", "--user", "erin", "--data-dir", served.dataDir])
        #expect(listed.stdout.contains("idv.document_viewed"), "\(listed.stdout)")
    }
}
