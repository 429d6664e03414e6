import CustosAPI
import CustosCore
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// A re-enrolment proof belongs to the session that made it: a match on the user's phone
/// proves nothing to a stolen session of her tablet. Opt-out needs the same proof as a
/// replacement (else a stolen session deletes the face and enrols its own as a first
/// template), and refused template changes count against the session that asked.
@Suite(needsFaces) struct TemplateChangeProofTests {
    func camera(_ live: LiveServer, _ sequence: String, _ range: ClosedRange<Int>) throws -> RecordedFrames {
        RecordedFrames(frames: try FaceFixture.frames(sequence, range), framesPerSecond: FaceFixture.framesPerSecond(sequence), clock: live.clock)
    }

    /// An identity policy without probation: the tablet below is an old device of the user's,
    /// past its probation, whose session the attacker stole.
    static func noProbation() -> IdentityPolicy {
        var policy = IdentityPolicy()
        policy.probation = 0
        return policy
    }

    /// The phone enrolled; a tablet bound with a registration code (a confirmed device), whose
    /// session the attacker holds.
    func enrolledWithTablet(_ live: LiveServer) async throws -> (phone: CustosClient, tablet: CustosClient, userID: String) {
        let (phone, userID) = try await live.enrolledUser()
        let link = try await live.admin().issueRegistrationCode(userID)
        let tablet = try live.client()
        let bound = try await tablet.registerDevice(userID: userID, registrationCode: link.registrationCode, deviceName: "tablet")
        #expect(bound.statusCode == 100)
        return (phone, tablet, userID)
    }

    @Test(arguments: StoreKind.available)
    func aMatchOnThePhoneLetsNoOtherSessionChangeTheTemplate(kind: StoreKind) async throws {
        let live = try LiveServer(store: LiveServer.store(kind), policy: Self.noProbation(), idv: IDVFlowTests.blinkOnly)
        defer { live.stop() }
        let (phone, tablet, userID) = try await enrolledWithTablet(live)
        #expect(await errorCode { try await tablet.initiateIDVBiometricOptIn(consentVersion: "v2", frameSource: camera(live, "talking_obama", 1...12)) }
                == "template_change_needs_proof")

        let matched = try await phone.initiateIDVServerBiometricAuthentication(reason: "Pay", frameSource: camera(live, "blink_selfie", 38...50))
        #expect(matched.biometricResult?.displayText == "MATCHED")
        #expect(await errorCode { try await tablet.initiateIDVBiometricOptIn(consentVersion: "v2", frameSource: camera(live, "talking_obama", 10...22)) }
                == "template_change_needs_proof")
        #expect(await errorCode { try await tablet.optOutIDVBiometric() } == "template_change_needs_proof")
        #expect(try live.store.template(userID: userID) != nil)
        let kinds = try LiveServer.audit(live.store).list(userID: userID, transactionID: nil).map(\.kind)
        #expect(!kinds.contains(AuditKind.templateReplaced.rawValue) && !kinds.contains(AuditKind.optOut.rawValue))

        // The phone's own match is still there for the phone (the tablet's refusals spent none of it).
        let replaced = try await phone.initiateIDVBiometricOptIn(consentVersion: "v2", frameSource: camera(live, "blink_selfie", 55...70))
        #expect(replaced.templateCreated)
    }

    /// Opt-out, even under `--enrollment grant`, needs the proof: refused from a bare session,
    /// allowed after a match in the same session (audited with its authority).
    @Test(arguments: StoreKind.available)
    func optOutNeedsAMatchInTheSameSessionOrAGrant(kind: StoreKind) async throws {
        var policy = IDVFlowTests.blinkOnly
        policy.enrollment = .grant
        let live = try LiveServer(store: LiveServer.store(kind), idv: policy)
        defer { live.stop() }
        let (client, userID, _) = try await IdentityFlowTests.activatedUser(live)
        _ = try await live.admin().grantEnrollment(userID)
        #expect(try await client.initiateIDVBiometricOptIn(consentVersion: "v1", frameSource: camera(live, "blink_selfie", 1...25)).templateCreated)

        #expect(await errorCode { try await client.optOutIDVBiometric() } == "template_change_needs_proof")
        #expect(try live.store.template(userID: userID) != nil)
        let matched = try await client.initiateIDVServerBiometricAuthentication(reason: "Opt out", frameSource: camera(live, "blink_selfie", 38...50))
        #expect(matched.biometricResult?.displayText == "MATCHED")
        #expect(try await client.optOutIDVBiometric().result)
        let optOut = try #require(try LiveServer.audit(live.store).list(userID: userID, transactionID: nil).last { $0.kind == AuditKind.optOut.rawValue })
        #expect(optOut.details["authorized_by"] == "recent_match")
        let granted = try #require(try LiveServer.audit(live.store).list(userID: userID, transactionID: nil)
            .first { $0.kind == AuditKind.enrollmentGranted.rawValue })
        #expect(granted.details[AuditActor.detail] == live.relyingPartyKey.id)
    }

    /// A stolen session that keeps asking to change the template without proof is ended.
    @Test func refusedTemplateChangesEndTheSession() async throws {
        let live = try LiveServer(store: LiveServer.store(.sqlite), policy: Self.noProbation(), idv: IDVFlowTests.blinkOnly)
        defer { live.stop() }
        let (_, tablet, userID) = try await enrolledWithTablet(live)
        for _ in 1..<IdentityService.refusedTemplateChangesPerSession {
            #expect(await errorCode { try await tablet.optOutIDVBiometric() } == "template_change_needs_proof")
        }
        #expect(try await tablet.sessions().count >= 1)
        #expect(await errorCode { try await tablet.optOutIDVBiometric() } == "template_change_needs_proof")
        #expect(await errorCode { try await tablet.sessions() } == "invalid_session")
        #expect(try live.store.template(userID: userID) != nil)
        #expect(try live.identity.attemptsLeft(userID: userID, factor: .biometric) == 5)
    }
}
