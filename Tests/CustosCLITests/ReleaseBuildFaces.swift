import CustosTestSupport
import Testing

#if DEBUG
private let optimized = false
#else
private let optimized = true
#endif

/// The face code is too slow unoptimised: suites that run it through the CLI need a release
/// build and the shared data.
let needsReleaseBuildAndFaces = ConditionTrait.enabled(
    if: SharedData.isAvailable && optimized,
    Comment(rawValue: optimized ? SharedData.missingMessage : "face tests run in release builds only"))
