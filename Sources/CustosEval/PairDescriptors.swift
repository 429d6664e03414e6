import CustosCore
import CustosCrypto
import CustosFace
import Foundation

/// Descriptors for `custos eval pairs`: one per distinct image content (cached by SHA-256 of
/// the bytes), computed in parallel on the engine's pool. The face nearest the image centre
/// is used; when none is found, the centre region is aligned and described instead, and
/// counted as a fallback.
public final class PairDescriptors: @unchecked Sendable {
    public enum Outcome: Sendable {
        case described(FaceDescriptor, fallback: Bool)
        case failed(FaceError)
    }

    private let engine: FaceEngine
    private let options: FaceOptions
    private let lock = NSLock()
    private var byContent: [Data: Outcome] = [:]

    public init(engine: FaceEngine, options: FaceOptions) {
        self.engine = engine
        self.options = options
    }

    /// Describes every file (in parallel); returns the outcome per path.
    public func describe(paths: [String], threads: Int) -> [String: Outcome] {
        let outcomes = ParallelMap.map(paths, threads: threads) { self.outcome(path: $0) }
        return Dictionary(zip(paths, outcomes), uniquingKeysWith: { first, _ in first })
    }

    private func outcome(path: String) -> Outcome {
        let data: Data
        do { data = try EvalFiles.read(path) } catch { return .failed(error) }
        let key = CustosCrypto.SHA256.hash(data)
        if let cached = lock.withLock({ byContent[key] }) { return cached }
        let result: Outcome
        do throws(FaceError) {
            let (descriptor, fallback) = try describe(data)
            result = .described(descriptor, fallback: fallback)
        } catch {
            result = .failed(error)
        }
        lock.withLock { byContent[key] = result }
        return result
    }

    private func describe(_ data: Data) throws(FaceError) -> (FaceDescriptor, Bool) {
        let image = try engine.decode(data)
        return try engine.withWorker { (worker) throws(FaceError) -> (FaceDescriptor, Bool) in
            let cx = Double(image.width) / 2, cy = Double(image.height) / 2
            let boxes = try worker.detect(image, options: options)
            let centred = boxes.min { a, b in
                let da = pow(Double(a.left + a.right) / 2 - cx, 2) + pow(Double(a.top + a.bottom) / 2 - cy, 2)
                let db = pow(Double(b.left + b.right) / 2 - cx, 2) + pow(Double(b.top + b.bottom) / 2 - cy, 2)
                return da < db
            }
            let side = max(8, Int((0.45 * Double(min(image.width, image.height))).rounded()))
            let box = centred ?? FaceBox(left: Int(cx) - side / 2, top: Int(cy) - side / 2, width: side, height: side)
            let landmarks = try worker.landmarks(image, box: box, set: .five)
            let chip = try worker.chip(image, landmarks: landmarks)
            let descriptor = try worker.descriptors([chip], flip: options.flip, jitters: options.jitters)[0]
            return (descriptor, centred == nil)
        }
    }
}
