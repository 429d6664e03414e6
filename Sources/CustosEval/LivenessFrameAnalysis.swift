import CustosCore
import CustosCrypto
import CustosFace
import Foundation

/// Face analysis of liveness frames for `custos eval liveness`: each distinct frame (by the
/// SHA-256 of its bytes) analysed once, in parallel on the engine's pool. A frame that
/// cannot be decoded counts as showing no face, and is counted.
public final class LivenessFrameAnalysis: @unchecked Sendable {
    private let engine: FaceEngine
    private let options: FaceOptions
    private let threads: Int
    private var facesByDigest: [Data: [Face]] = [:]
    private var fingerprintsByDigest: [Data: FrameFingerprint] = [:]
    /// What the CNN detector found in frames where HOG found no face (asked for lazily).
    private var cnnFacesByDigest: [Data: [Face]] = [:]
    private let cnnFallbackFrames: Int
    private(set) var errors = 0

    /// `cnnFallbackFrames`: as the server, frames of a presentation where HOG finds no face
    /// that get a second look by the CNN detector.
    public init(engine: FaceEngine, options: FaceOptions, threads: Int, cnnFallbackFrames: Int = 0) {
        self.engine = engine
        self.options = options
        self.threads = threads
        self.cnnFallbackFrames = engine.hasCNNDetector ? cnnFallbackFrames : 0
    }

    /// Frames analysed so far.
    public var count: Int { facesByDigest.count }

    /// Analyses the frames not seen before.
    public func analyse(_ frames: [DigestedFrame]) {
        var pending: [Data: Data] = [:]
        for frame in frames where facesByDigest[frame.digest] == nil { pending[frame.digest] = frame.bytes }
        let work = Array(pending)
        let results = ParallelMap.map(work, threads: threads) { [engine, options] entry -> (faces: [Face], fingerprint: FrameFingerprint?)? in
            try? engine.analyzeFrame(entry.value, options: options)
        }
        for (entry, result) in zip(work, results) {
            if result == nil { errors += 1 }
            facesByDigest[entry.key] = result?.faces ?? []
            fingerprintsByDigest[entry.key] = result?.fingerprint
        }
    }

    /// The faces of an analysed frame (best detection first).
    public func faces(_ frame: DigestedFrame) -> [Face] { facesByDigest[frame.digest] ?? [] }

    /// The fingerprints of analysed frames (nil where a frame could not be decoded).
    public func fingerprints(_ frames: [DigestedFrame]) -> [FrameFingerprint?] { frames.map { fingerprintsByDigest[$0.digest] } }

    /// The frames as the detector sees them, captured at `fps` from time 0, with the server's
    /// CNN second look at the first frames without a face.
    public func livenessFrames(_ frames: [DigestedFrame], fps: Double) -> [LivenessFrame] {
        var fallbacks = cnnFallbackFrames
        return frames.enumerated().map { index, frame in
            var faces = facesByDigest[frame.digest] ?? []
            if faces.isEmpty, fallbacks > 0 {
                fallbacks -= 1
                faces = cnnFaces(frame)
            }
            return LivenessFrame(capturedAtMilliseconds: Int64((Double(index) * 1000 / fps).rounded()), digest: frame.digest,
                                 faces: faces, fingerprint: fingerprintsByDigest[frame.digest])
        }
    }

    private func cnnFaces(_ frame: DigestedFrame) -> [Face] {
        if let known = cnnFacesByDigest[frame.digest] { return known }
        var cnn = options
        cnn.detector = .cnn
        let found = (try? engine.analyze(frame.bytes, options: cnn)) ?? []
        cnnFacesByDigest[frame.digest] = found
        return found
    }
}

/// A frame's bytes with their SHA-256, computed once when the frame is read or made: the
/// analysis and the detector know frames by digest.
public struct DigestedFrame: Sendable {
    public let bytes: Data
    public let digest: Data

    public init(_ bytes: Data) {
        self.bytes = bytes
        digest = CustosCrypto.SHA256.hash(bytes)
    }
}
