import CustosCore
import CustosCrypto
import CustosFace
import Foundation

/// Face analysis of liveness frames for `custos eval liveness`: each distinct frame (by the
/// SHA-256 of its bytes) analysed once, in parallel on the engine's pool. A frame that
/// cannot be decoded counts as showing no face, and is counted.
final class LivenessFrameAnalysis: @unchecked Sendable {
    private let engine: FaceEngine
    private let options: FaceOptions
    private let threads: Int
    private var facesByDigest: [Data: [Face]] = [:]
    private(set) var errors = 0

    init(engine: FaceEngine, options: FaceOptions, threads: Int) {
        self.engine = engine
        self.options = options
        self.threads = threads
    }

    /// Frames analysed so far.
    var count: Int { facesByDigest.count }

    /// Analyses the frames not seen before.
    func analyse(_ frames: [Data]) {
        var pending: [Data: Data] = [:]
        for frame in frames {
            let digest = CustosCrypto.SHA256.hash(frame)
            if facesByDigest[digest] == nil { pending[digest] = frame }
        }
        let work = Array(pending)
        let results = ParallelMap.map(work, threads: threads) { [engine, options] entry -> [Face]? in
            try? engine.analyze(entry.value, options: options)
        }
        for (entry, faces) in zip(work, results) {
            if faces == nil { errors += 1 }
            facesByDigest[entry.key] = faces ?? []
        }
    }

    /// The faces of an analysed frame (best detection first).
    func faces(_ frame: Data) -> [Face] { facesByDigest[CustosCrypto.SHA256.hash(frame)] ?? [] }

    /// The frames as the detector sees them, captured at `fps` from time 0.
    func livenessFrames(_ frames: [Data], fps: Double) -> [LivenessFrame] {
        frames.enumerated().map { index, frame in
            let digest = CustosCrypto.SHA256.hash(frame)
            return LivenessFrame(capturedAtMilliseconds: Int64((Double(index) * 1000 / fps).rounded()), digest: digest,
                                 faces: facesByDigest[digest] ?? [])
        }
    }
}
