import CustosCore
import CustosFace
import CustosTestSupport
import Foundation
import Testing

/// The face engine and liveness frames of the IDV tests.
enum FaceFixture {
    /// The engine every test of the run shares (see `SharedFaceEngine`).
    static func engine() throws -> FaceEngine { try SharedFaceEngine.engine() }

    /// Frames `range` (1-based, inclusive) of a sequence under liveness/frames.
    static func frames(_ sequence: String, _ range: ClosedRange<Int>) throws -> [Data] {
        try range.map { try SharedData.data(String(format: "liveness/frames/%@/frame_%04d.jpg", sequence, $0)) }
    }

    /// The frame rates the sequences were extracted at (MANIFEST notes).
    static func framesPerSecond(_ sequence: String) -> Double { sequence == "blink_selfie" ? 12 : 10 }
}

#if DEBUG
let isOptimizedBuild = false
#else
let isOptimizedBuild = true
#endif

/// IDV tests need ../shared/data, the face models and a release build (dlib unoptimised
/// takes seconds per frame); they skip with the reason otherwise.
let needsFaces = Testing.ConditionTrait.enabled(
    if: SharedData.isAvailable && isOptimizedBuild && (try? FaceFixture.engine()) != nil,
    Comment(rawValue: !isOptimizedBuild ? "face tests run in release builds only (swift test -c release)"
            : !SharedData.isAvailable ? SharedData.missingMessage : "the face models are not installed (scripts/install-deps.sh)"))

/// With `CUSTOS_REQUIRE_FACES=1` (`make test`, CI) the gate above must be open: a missing
/// `../shared/data` or face model fails the run instead of silently skipping every face and
/// server biometric test.
@Test(
    "the shared data, the face models and a release build are there when CUSTOS_REQUIRE_FACES=1",
    .enabled(if: TestEnvironment.facesRequired, "CUSTOS_REQUIRE_FACES is not 1")
)
func facesAreAvailableWhenRequired() throws {
    #expect(isOptimizedBuild, "face tests run in release builds only (swift test -c release)")
    #expect(SharedData.isAvailable, Comment(rawValue: SharedData.missingMessage))
    _ = try FaceFixture.engine()
}
