import CustosCore
import Testing

@Suite("Pair metrics: ROC, TAR@FAR, EER, cross-validation")
struct FacePairMetricsTests {
    typealias Pair = FacePairMetrics.Pair

    @Test func separablePairs() throws {
        let pairs = (0..<10).map { Pair(distance: 0.3 + Double($0) * 0.01, same: true, fold: $0 % 2) }
            + (0..<10).map { Pair(distance: 0.8 + Double($0) * 0.01, same: false, fold: $0 % 2) }
        let metrics = FacePairMetrics(pairs: pairs)
        #expect(metrics.genuineCount == 10 && metrics.impostorCount == 10)
        let point = try #require(metrics.operatingPoint(atFAR: 0.01))
        #expect(point.tar == 1 && point.far == 0 && point.threshold >= 0.39 && point.threshold < 0.8)
        #expect(try #require(metrics.equalErrorRate).rate == 0)
        let cv = try #require(metrics.crossValidatedAccuracy)
        #expect(cv.mean == 1 && cv.std == 0 && cv.folds == 2)
        #expect(metrics.roc.first?.tar == 0 && metrics.roc.last?.far == 1 && metrics.roc.last?.tar == 1)
    }

    @Test func overlappingPairs() throws {
        // Genuine 0.1...1.0, impostors 0.55...1.45: half the genuine pairs overlap impostors.
        let genuine = (1...10).map { Pair(distance: Double($0) / 10, same: true) }
        let impostor = (0..<10).map { Pair(distance: 0.55 + Double($0) / 10, same: false) }
        let metrics = FacePairMetrics(pairs: genuine + impostor)
        let at10 = try #require(metrics.operatingPoint(atFAR: 0.1))
        #expect(at10.far <= 0.1 && at10.tar == 0.6 && at10.threshold == 0.6)
        let eer = try #require(metrics.equalErrorRate)
        #expect(eer.rate > 0.1 && eer.rate < 0.4)
        #expect(metrics.crossValidatedAccuracy == nil)   // no folds
        #expect(FacePairMetrics.accuracy(genuine + impostor, threshold: FacePairMetrics.bestThreshold(genuine + impostor)) >= 0.75)
    }
}
