import Foundation

/// Finds and describes faces in images. Implementations are thread-safe: calls may come
/// from any number of threads at once.
public protocol FaceAnalyzer: Sendable {
    /// Every face in a JPEG or PNG image, best detection first; an empty list when there is
    /// none. Throws `FaceError` for input it refuses (empty, too large, truncated, corrupt,
    /// unsupported) or options it cannot honour.
    func analyze(_ imageData: Data, options: FaceOptions) throws(FaceError) -> [Face]

    /// The comparison score of two descriptors (lower is more alike).
    func distance(_ a: FaceDescriptor, _ b: FaceDescriptor) -> Double

    /// Width and height the image's header declares, read without decoding pixels; nil when
    /// the header cannot be read (decoding will then say why).
    func declaredSize(of imageData: Data) -> (width: Int, height: Int)?

    /// `analyze`, plus the whole frame's fingerprint from the same decoding (nil where the
    /// analyzer cannot compute one).
    func analyzeFrame(_ imageData: Data, options: FaceOptions) throws(FaceError) -> (faces: [Face], fingerprint: FrameFingerprint?)

    /// Admits a request that is about to ask for `calls` analyses, or throws `FaceError`
    /// `busy` (with `retryAfterSeconds`) when the analyses already admitted or waiting would
    /// keep its first one from starting within the analyzer's bound: overload is refused at
    /// once instead of answered late. End the admission when the request's analyses are done.
    func admit(calls: Int) throws(FaceError) -> FaceAdmission

    /// The queue's figures; nil for an analyzer without one.
    var queueStatistics: FaceQueueStatistics? { get }
}

extension FaceAnalyzer {
    public func declaredSize(of imageData: Data) -> (width: Int, height: Int)? { nil }

    public func analyzeFrame(_ imageData: Data, options: FaceOptions) throws(FaceError) -> (faces: [Face], fingerprint: FrameFingerprint?) {
        (try analyze(imageData, options: options), nil)
    }

    public func distance(_ a: FaceDescriptor, _ b: FaceDescriptor) -> Double { a.distance(to: b) }

    public func admit(calls: Int) throws(FaceError) -> FaceAdmission { FaceAdmission() }

    public var queueStatistics: FaceQueueStatistics? { nil }
}
