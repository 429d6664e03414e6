import CFaceShim
import CustosCore
import Foundation

/// The face engine: dlib's models loaded once, and a pool of engine instances (dlib's
/// detector and networks are not thread-safe) lent to one caller at a time. Thread-safe.
public final class FaceEngine: FaceAnalyzer, @unchecked Sendable {
    public let configuration: FaceEngineConfiguration
    private let models: FaceModels
    private let condition = NSCondition()
    private var idle: [FaceWorker]
    /// First come, first served: each caller takes a ticket and is lent a worker in ticket
    /// order, so that under load no frame waits behind ever-newer ones.
    private var ticketsIssued: UInt64 = 0
    private var ticketsServed: UInt64 = 0
    /// Analyses admitted requests may still ask for (`admit`).
    private var admitted = 0
    /// How long one analysis holds an instance, a moving average (a conservative guess until
    /// the first is measured).
    private var secondsPerCall = 0.1
    private var waitedSeconds = 0.0
    private var waits = 0
    private var refused = 0

    /// Loads the models and creates `poolSize` engine instances. Throws `model_missing` naming
    /// the missing file, `model_invalid`, or `cpu_unsupported`.
    public init(configuration: FaceEngineConfiguration) throws(FaceError) {
        guard configuration.poolSize >= 1 else { throw FaceError(.invalidOptions, "face engine pool size must be at least 1") }
        self.configuration = configuration
        if configuration.retainLargeBuffers { cfs_tune_allocator() }
        models = try FaceModels(files: configuration.models, use68: configuration.use68PointLandmarks,
                                useCNN: configuration.useCNNDetector)
        var workers: [FaceWorker] = []
        for index in 0..<configuration.poolSize {
            workers.append(try FaceWorker(models: models, seed: configuration.seed &+ UInt64(index)))
        }
        idle = workers
    }

    /// Builds an engine over the models `FaceModelFiles.locate()` finds.
    public convenience init(poolSize: Int = ProcessInfo.processInfo.activeProcessorCount) throws(FaceError) {
        try self.init(configuration: FaceEngineConfiguration(models: FaceModelFiles.locate(), poolSize: poolSize))
    }

    /// Whether the optional models were loaded.
    public var has68PointLandmarks: Bool { models.has68 }
    public var hasCNNDetector: Bool { models.hasCNN }

    /// Runs `body` with an engine instance of its own, waiting for one to be free; callers are
    /// served in the order they came.
    public func withWorker<T, E: Error>(_ body: (FaceWorker) throws(E) -> T) throws(E) -> T {
        let asked = DispatchTime.now().uptimeNanoseconds
        condition.lock()
        let ticket = ticketsIssued
        ticketsIssued += 1
        while ticket != ticketsServed || idle.isEmpty { condition.wait() }
        ticketsServed += 1
        let worker = idle.removeLast()
        let started = DispatchTime.now().uptimeNanoseconds
        waitedSeconds += Double(started - asked) / 1e9
        waits += 1
        // The next ticket may find another worker idle.
        condition.broadcast()
        condition.unlock()
        var analysed = false
        defer {
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            condition.lock()
            idle.append(worker)
            // Analyses that ran to the end, within bounds: a burst of images that fail at once
            // (or one slow document) does not swing the estimate that admission rests on.
            if analysed { secondsPerCall += (min(2, max(0.01, seconds)) - secondsPerCall) / 8 }
            condition.broadcast()
            condition.unlock()
        }
        let result = try body(worker)
        analysed = true
        return result
    }

    /// Admits a request's `calls` analyses unless the work ahead of them (analyses admitted,
    /// waiting or running) would keep the first from starting within
    /// `configuration.maximumQueueWait`; then `FaceError.busy`, to retry when the excess has
    /// drained. The estimate is the work ahead over the instances at the measured time per
    /// analysis: a request's admitted analyses count until it ends, so it errs towards refusing.
    public func admit(calls: Int) throws(FaceError) -> FaceAdmission {
        let calls = max(0, calls)
        condition.lock()
        let wait = expectedWait()
        if let bound = configuration.maximumQueueWait, wait > bound {
            refused += 1
            condition.unlock()
            throw .busy(retryAfter: min(60, max(1, Int((wait - bound).rounded(.up)))))
        }
        admitted += calls
        condition.unlock()
        return FaceAdmission { [weak self] in
            guard let self else { return }
            condition.lock()
            admitted -= calls
            condition.unlock()
        }
    }

    public var queueStatistics: FaceQueueStatistics? {
        condition.lock()
        defer { condition.unlock() }
        return FaceQueueStatistics(workers: configuration.poolSize, busy: configuration.poolSize - idle.count,
                                   waiting: Int(ticketsIssued - ticketsServed), admitted: admitted, expectedWaitSeconds: expectedWait(),
                                   waitedSeconds: waitedSeconds, waits: waits, refused: refused)
    }

    /// Seconds before a new analysis would start; under `condition`.
    private func expectedWait() -> Double {
        let workers = configuration.poolSize
        let ahead = max(admitted, Int(ticketsIssued - ticketsServed) + workers - idle.count)
        guard ahead >= workers else { return 0 }
        return Double(ahead - workers + 1) * secondsPerCall / Double(workers)
    }

    /// Decodes under the configured limits.
    public func decode(_ imageData: Data) throws(FaceError) -> DecodedImage {
        try DecodedImage(data: imageData, limits: configuration.imageLimits)
    }

    /// Decodes inside the worker, so no more images are decoded at once than there are
    /// workers (the pool bounds memory, not only CPU).
    public func analyze(_ imageData: Data, options: FaceOptions) throws(FaceError) -> [Face] {
        try options.validate()
        return try withWorker { (worker) throws(FaceError) in try worker.analyze(try decode(imageData), options: options) }
    }

    public func declaredSize(of imageData: Data) -> (width: Int, height: Int)? {
        guard let header = try? DecodedImage.header(of: imageData) else { return nil }
        return (header.width, header.height)
    }

    /// `analyze` and the frame's fingerprint, from one decoding.
    public func analyzeFrame(_ imageData: Data, options: FaceOptions) throws(FaceError) -> (faces: [Face], fingerprint: FrameFingerprint?) {
        try options.validate()
        return try withWorker { (worker) throws(FaceError) in
            let image = try decode(imageData)
            return (try worker.analyze(image, options: options), image.fingerprint)
        }
    }

    /// Analyzes an already decoded image.
    public func analyze(_ image: DecodedImage, options: FaceOptions) throws(FaceError) -> [Face] {
        try withWorker { (worker) throws(FaceError) in try worker.analyze(image, options: options) }
    }
}
