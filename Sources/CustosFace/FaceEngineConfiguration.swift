import CustosCore
import Foundation

/// How to build a `FaceEngine`.
public struct FaceEngineConfiguration: Sendable, Hashable {
    public var models: FaceModelFiles
    /// Engine instances (one per concurrent call; each holds its own copy of the networks).
    public var poolSize: Int
    /// Load the 68-point model when its file is there. Its training data (iBUG 300-W) excludes
    /// commercial use: set false to run on the 5-point model only.
    public var use68PointLandmarks: Bool
    /// Load the MMOD CNN detector when its file is there.
    public var useCNNDetector: Bool
    public var imageLimits: ImageLimits
    /// Seed of the jitter random generator (engine i uses seed + i). Each engine's generator
    /// advances across calls and callers get whichever engine is free, so jittered descriptors
    /// of one image vary slightly between calls; a one-engine pool repeats them from a fresh start.
    public var seed: UInt64
    /// Keep freed image-sized buffers for reuse (glibc allocator setting, process-wide; see
    /// `cfs_tune_allocator`): about 10% faster detection on large images, at the price of
    /// resident memory staying near its peak.
    public var retainLargeBuffers: Bool
    /// The longest a request may expect to wait for its first analysis before `admit` refuses
    /// it (`FaceError.busy`); nil: no bound.
    public var maximumQueueWait: TimeInterval?

    public init(models: FaceModelFiles, poolSize: Int = ProcessInfo.processInfo.activeProcessorCount,
                use68PointLandmarks: Bool = true, useCNNDetector: Bool = true, imageLimits: ImageLimits = .default,
                seed: UInt64 = 0, retainLargeBuffers: Bool = true, maximumQueueWait: TimeInterval? = nil) {
        self.models = models
        self.poolSize = poolSize
        self.use68PointLandmarks = use68PointLandmarks
        self.useCNNDetector = useCNNDetector
        self.imageLimits = imageLimits
        self.seed = seed
        self.retainLargeBuffers = retainLargeBuffers
        self.maximumQueueWait = maximumQueueWait
    }
}
