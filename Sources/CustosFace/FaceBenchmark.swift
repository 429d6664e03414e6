import CustosCore
import Foundation

/// Times the face pipeline stage by stage (decode, detect, landmarks, chip, descriptor) and
/// whole, on one thread after warm-up; and whole-pipeline throughput on several threads.
/// Used by `custos face bench` (and so by bench/face.sh).
public struct FaceBenchmark: Sendable {
    /// Median and 95th percentile, in milliseconds.
    public struct Summary: Sendable, Codable, Hashable {
        public var median: Double
        public var p95: Double

        public init(_ samples: [Double]) {
            let sorted = samples.sorted()
            median = sorted.isEmpty ? 0 : (sorted.count % 2 == 1 ? sorted[sorted.count / 2]
                                                                  : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2)
            p95 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.95).rounded(.up)) - 1)]
        }
    }

    /// One image's stage times.
    public struct ImageResult: Sendable, Codable {
        public var name: String
        public var width: Int
        public var height: Int
        public var faces: Int
        public var decode: Summary
        public var detect: Summary
        public var landmarks: Summary
        public var chip: Summary
        public var descriptor: Summary
        public var pipeline: Summary
    }

    public let engine: FaceEngine
    public let options: FaceOptions
    public let runs: Int
    public let warmup: Int

    public init(engine: FaceEngine, options: FaceOptions, runs: Int = 10, warmup: Int = 2) {
        self.engine = engine
        self.options = options
        self.runs = max(1, runs)
        self.warmup = max(0, warmup)
    }

    /// One timestamp: monotonic wall clock and this thread's CPU time, in nanoseconds.
    struct Instant {
        let wall: UInt64
        let cpu: UInt64

        static func now() -> Instant {
            var spec = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
            return Instant(wall: DispatchTime.now().uptimeNanoseconds, cpu: UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec))
        }

        /// (wall, cpu) milliseconds since `self`.
        func elapsed() -> (wall: Double, cpu: Double) {
            let end = Instant.now()
            return (Double(end.wall - wall) / 1e6, Double(end.cpu - cpu) / 1e6)
        }
    }

    /// Milliseconds since `start` (monotonic).
    static func elapsed(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 }

    /// Stage and whole-pipeline times for one image, on the calling thread: wall clock, and
    /// the thread's CPU time (which another process competing for the cores does not inflate).
    public func measure(name: String, data: Data) throws(FaceError) -> (wall: ImageResult, cpu: ImageResult) {
        try engine.withWorker { (worker) throws(FaceError) -> (wall: ImageResult, cpu: ImageResult) in
            var wall = [[Double]](repeating: [], count: 6)
            var cpu = [[Double]](repeating: [], count: 6)
            var width = 0, height = 0, faces = 0
            for run in 0..<(warmup + runs) {
                var times: [(wall: Double, cpu: Double)] = []
                var t = Instant.now()
                let image = try engine.decode(data)
                times.append(t.elapsed())
                t = Instant.now()
                let boxes = try worker.detect(image, options: options)
                times.append(t.elapsed())
                t = Instant.now()
                var landmarks: [FaceLandmarks] = []
                for box in boxes { landmarks.append(try worker.landmarks(image, box: box, set: options.landmarks)) }
                times.append(t.elapsed())
                t = Instant.now()
                var chips: [FaceChip] = []
                for points in landmarks { chips.append(try worker.chip(image, landmarks: points)) }
                times.append(t.elapsed())
                t = Instant.now()
                if options.descriptor { _ = try worker.descriptors(chips, flip: options.flip, jitters: options.jitters) }
                times.append(t.elapsed())

                t = Instant.now()
                let found = try worker.analyze(try engine.decode(data), options: options)
                times.append(t.elapsed())

                width = image.width
                height = image.height
                faces = found.count
                guard run >= warmup else { continue }
                for (index, time) in times.enumerated() {
                    wall[index].append(time.wall)
                    cpu[index].append(time.cpu)
                }
            }
            func result(_ stages: [[Double]]) -> ImageResult {
                ImageResult(name: name, width: width, height: height, faces: faces, decode: Summary(stages[0]),
                            detect: Summary(stages[1]), landmarks: Summary(stages[2]), chip: Summary(stages[3]),
                            descriptor: Summary(stages[4]), pipeline: Summary(stages[5]))
            }
            return (result(wall), result(cpu))
        }
    }

    /// Whole-pipeline images per second with `threads` threads each running over `images`
    /// `rounds` times (the engine's pool must have at least `threads` instances).
    public func throughput(images: [Data], threads: Int, rounds: Int) throws(FaceError) -> Double {
        let failures = FailureBox()
        let start = DispatchTime.now().uptimeNanoseconds
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<rounds {
                for data in images {
                    do throws(FaceError) { _ = try engine.analyze(data, options: options) } catch { failures.record(error) }
                }
            }
        }
        if let error = failures.first { throw error }
        let seconds = Self.elapsed(since: start) / 1000
        return Double(threads * rounds * images.count) / seconds
    }
}

/// The first error seen by any of several threads.
private final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var error: FaceError?
    func record(_ error: FaceError) { lock.withLock { if self.error == nil { self.error = error } } }
    var first: FaceError? { lock.withLock { error } }
}
