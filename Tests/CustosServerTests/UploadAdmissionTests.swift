import CustosAPI
import Foundation
import Testing

/// Only a proven caller may make the server buffer an upload beyond the ordinary body limit:
/// the frames route checks the session on the headers, before the megabytes.
@Suite struct UploadAdmissionTests {
    @Test func aLargeUploadWithoutAValidSessionIsRefusedBeforeItIsBuffered() async throws {
        let live = try LiveServer.sqlite()
        defer { live.stop() }
        let (client, _, _) = try await IdentityFlowTests.activatedUser(live)
        let api = RawAPI(base: live.baseURL)
        // Larger than the ordinary 64 KiB, well under the upload limit.
        let large = IDVFramesRequest(nonce: "n", frames: [FrameUpload(capturedAtMs: 0, image: Data(repeating: 0xFF, count: 300_000))])
        let path = Endpoints.submitFrames.path("idv_unknown")

        let (anonymous, anonymousError) = try await api.postRaw(path, large)
        #expect(anonymous == 401 && anonymousError.error.code == "invalid_session")
        let (forged, forgedError) = try await api.postRaw(path, large, bearer: "cs_forged")
        #expect(forged == 401 && forgedError.error.code == "invalid_session")

        // The same body from the session's owner is read and judged on its merits.
        let (owner, ownerError) = try await api.postRaw(path, large, bearer: client.session.sessionToken)
        #expect(owner != 401 && owner != 413, "\(owner) \(ownerError.error.code)")
    }
}
