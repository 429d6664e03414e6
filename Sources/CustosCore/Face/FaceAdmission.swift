import Foundation
import Synchronization

/// A request's face analyses, admitted before the first of them is asked for: the engine
/// counts them as work ahead of later requests until the admission ends (`end`, or when it
/// is released). Ending twice is harmless.
public final class FaceAdmission: Sendable {
    private let ending: Mutex<(@Sendable () -> Void)?>

    /// `end`: what the engine does when the request is done (nil: an analyzer without a queue).
    public init(end: (@Sendable () -> Void)? = nil) {
        ending = Mutex(end)
    }

    public func end() {
        let action = ending.withLock { action in
            defer { action = nil }
            return action
        }
        action?()
    }

    deinit { end() }
}

/// The face engine's queue as this node sees it (for `/metrics`).
public struct FaceQueueStatistics: Sendable, Equatable {
    /// Engine instances, and those analysing now.
    public var workers: Int
    public var busy: Int
    /// Analyses waiting for an instance.
    public var waiting: Int
    /// Analyses that admitted requests may still ask for.
    public var admitted: Int
    /// How long a request admitted now would wait before its first analysis starts.
    public var expectedWaitSeconds: Double
    /// Time analyses spent waiting for an instance, in total, and how many analyses there were.
    public var waitedSeconds: Double
    public var waits: Int
    /// Requests refused because the wait would have passed the bound.
    public var refused: Int

    public init(workers: Int, busy: Int, waiting: Int, admitted: Int, expectedWaitSeconds: Double, waitedSeconds: Double,
                waits: Int, refused: Int) {
        self.workers = workers
        self.busy = busy
        self.waiting = waiting
        self.admitted = admitted
        self.expectedWaitSeconds = expectedWaitSeconds
        self.waitedSeconds = waitedSeconds
        self.waits = waits
        self.refused = refused
    }
}
