import Foundation

/// The rules of the selfie workflows; every value is configuration.
public struct IDVPolicy: Sendable, Hashable {
    public var liveness = LivenessPolicy()
    /// Descriptor distance at or below which two faces are the same person (`custos eval
    /// calibrate`, docs/security.md). On the project's 2211 face pairs `--target-fmr 1e-3` gives 0.6213
    /// (2 false matches of 2137); the default stays below the first false match (0.6158) and
    /// above every genuine pair (0.5742): no false match and no false non-match there.
    public static let calibratedThreshold = 0.575
    public var matchThreshold: Double = IDVPolicy.calibratedThreshold
    /// How liveness frames are analysed: the selfie preset (HOG on a copy of at most 480 px,
    /// 68-point landmarks, descriptors). Detecting on 400 px is about 13% faster per
    /// authentication but lets more tilted photos through on 24-frame windows
    /// (`WINDOW=24 bench/liveness.sh`): the boxes seed the landmarks.
    public var frameOptions = FaceOptions.selfie
    /// Largest selfie frame, pixels (width x height, read from the header before decoding):
    /// a frame is a camera picture, and a 4880 x 4880 one costs 70 MiB to decode.
    public var maximumFramePixels = 2_000_000
    /// Frames of a take where HOG found no face that get a second look by the CNN detector
    /// (when its model is loaded); the KYC document always gets one.
    public var cnnFallbackFrames = 2
    /// Faces described in a document image at most (KYC, document scan; the largest is the portrait).
    public var maximumDocumentFaces = 4
    /// How long a document scan's images are kept for the relying party's review, seconds
    /// (housekeeping deletes them then; deleting the user deletes them at once). They are
    /// identity documents, not templates: an opt-out leaves them.
    public var documentRetention: TimeInterval = 30 * 24 * 3600
    /// How many of the best frames go into a template (and into the live probe).
    public var templateFrames: Int = 3
    /// How long a transaction may take from initiation to frames, seconds.
    public var transactionLifetime: TimeInterval = 600
    /// A take once submitted is recognised as a replay for this long, seconds (its frame
    /// fingerprints are kept sealed until then); 0 turns the check off (benchmarks that
    /// replay one recording).
    public var seenFrameMemory: TimeInterval = 90 * 24 * 3600
    /// The most earlier takes of a user a new one is compared with (newest first).
    public var seenTakesCompared = 200
    /// Who may enrol a template where the user has none: the user's session alone, or only
    /// with a relying party's single-use grant. Replacing a template always needs proof.
    public var enrollment: EnrollmentAuthorization = .session
    /// While a template exists, an enrolment replaces it only within this many seconds after
    /// a MATCHED server biometric authentication (or with a grant).
    public var reenrollmentWindow: TimeInterval = 300
    /// How long a relying party's enrolment grant stays usable, seconds.
    public var enrollmentGrantLifetime: TimeInterval = 24 * 3600
    /// Development only: the app's answer also carries the distance, threshold and liveness
    /// reason (otherwise only the relying party reads them, by API key).
    public var resultDetailToApp = false
    /// Longest `reason` and consent version, characters.
    public var maximumReasonLength = 200

    public init() {}

    public func validate() throws(LivenessPolicyError) {
        try liveness.validate()
        guard matchThreshold > 0, matchThreshold < 2 else { throw LivenessPolicyError(message: "match threshold must be in (0, 2)") }
        guard maximumFramePixels >= 64 * 64, maximumDocumentFaces >= 1 else {
            throw LivenessPolicyError(message: "the frame pixel cap must be at least 4096 and the document face cap at least 1")
        }
        guard (1...10).contains(templateFrames) else { throw LivenessPolicyError(message: "template frames must be 1-10") }
        guard documentRetention > 0 else { throw LivenessPolicyError(message: "the document retention period must be positive") }
        guard reenrollmentWindow >= 0, enrollmentGrantLifetime > 0 else {
            throw LivenessPolicyError(message: "the re-enrolment window and the grant lifetime must be positive")
        }
        guard transactionLifetime >= liveness.challengeLifetime else {
            throw LivenessPolicyError(message: "the transaction lifetime must be at least the challenge lifetime")
        }
    }
}

/// Who may enrol a biometric template where the user has none.
public enum EnrollmentAuthorization: String, Sendable, Hashable, CaseIterable {
    /// The user's session (opt-in and KYC as the seed describes them).
    case session
    /// Every enrolment needs a single-use grant from the relying party (API key).
    case grant
}

/// One frame as the client captured it.
public struct CapturedFrame: Sendable {
    /// Capture time in milliseconds (the client's clock; only differences count).
    public var capturedAtMilliseconds: Int64
    /// JPEG bytes.
    public var jpeg: Data

    public init(capturedAtMilliseconds: Int64, jpeg: Data) {
        self.capturedAtMilliseconds = capturedAtMilliseconds
        self.jpeg = jpeg
    }
}

/// The liveness challenge handed to the client once it confirmed the start.
public struct IssuedChallenge: Sendable, Equatable {
    public var transactionID: String
    public var workflow: IDVWorkflow
    /// Single-use; only its digest is stored.
    public var nonce: String
    public var challenge: LivenessChallenge
    public var expiresAt: Date
    public var minimumFrames: Int
    public var maximumFrames: Int
    public var maximumFrameBytes: Int
}
