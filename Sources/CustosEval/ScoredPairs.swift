import CustosCore
import CustosFace
import Foundation

/// A pair list turned into distances: every distinct image described once (in parallel on
/// the engine's pool, see `PairDescriptors`), then each pair scored. Pairs with an image
/// that could not be described are left out and counted.
public struct ScoredPairs {
    /// The scored pairs.
    public let metrics: FacePairMetrics
    /// Distinct images described.
    public let imageCount: Int
    /// Pairs left out because an image failed.
    public let skipped: Int
    /// Images described from the centre region because no face was found.
    public let fallbacks: Int
    /// The images that failed, by path.
    public let failures: [String: FaceError]
    /// Wall-clock seconds for describing and scoring.
    public let seconds: Double

    public init(_ pairs: [ImagePair], engine: FaceEngine, options: FaceOptions, threads: Int) {
        let started = Date()
        let paths = Set(pairs.flatMap { [$0.first, $0.second] }).sorted()
        let outcomes = PairDescriptors(engine: engine, options: options).describe(paths: paths, threads: threads)
        var descriptors: [String: FaceDescriptor] = [:], failed: [String: FaceError] = [:], centred = 0
        for (path, outcome) in outcomes {
            switch outcome {
            case .described(let descriptor, let fallback):
                descriptors[path] = descriptor
                centred += fallback ? 1 : 0
            case .failed(let error):
                failed[path] = error
            }
        }
        let scored = pairs.compactMap { pair -> FacePairMetrics.Pair? in
            guard let a = descriptors[pair.first], let b = descriptors[pair.second] else { return nil }
            return FacePairMetrics.Pair(distance: a.distance(to: b), same: pair.same, fold: pair.fold)
        }
        metrics = FacePairMetrics(pairs: scored)
        imageCount = paths.count
        skipped = pairs.count - scored.count
        fallbacks = centred
        failures = failed
        seconds = Date().timeIntervalSince(started)
    }
}
