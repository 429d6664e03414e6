import Foundation
import Synchronization

/// Request counters by route and status, a latency histogram by route and the number of
/// requests in flight, rendered in the Prometheus text exposition format.
public final class HTTPMetrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    public static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    /// Counters of one route (or of unmatched requests of one method). A class, so the
    /// hot path updates it in place instead of copying it in and out of a dictionary.
    private final class Series {
        let method: String
        let route: String
        /// Status codes and their counts: a route answers few distinct ones, so a scan is
        /// cheaper than hashing on every request.
        var statuses: [(status: Int, count: UInt64)] = []
        var buckets = [UInt64](repeating: 0, count: HTTPMetrics.bucketBounds.count)
        var count: UInt64 = 0
        var sum: Double = 0

        init(method: String, route: String) {
            self.method = method
            self.route = route
        }

        func record(status: Int, seconds: Double) {
            if let index = statuses.firstIndex(where: { $0.status == status }) {
                statuses[index].count += 1
            } else {
                statuses.append((status, 1))
            }
            if let bucket = HTTPMetrics.bucketBounds.firstIndex(where: { seconds <= $0 }) { buckets[bucket] += 1 }
            count += 1
            sum += seconds
        }
    }

    private struct State {
        /// By route index (see `Router.Route.index`).
        var routes: [Series?] = []
        /// Requests that matched no route, by method.
        var unmatched: [String: Series] = [:]
    }

    private let state = Mutex(State())
    private let inFlightCount = Atomic<Int>(0)
    /// Other parts' metrics, rendered after the HTTP ones (the webhook worker's).
    private let included = Mutex<[@Sendable () -> String]>([])

    public init() {}

    public var inFlight: Int { inFlightCount.load(ordering: .relaxed) }

    /// Adds metrics that `render` returns in the same format to every rendering.
    public func include(_ render: @escaping @Sendable () -> String) {
        included.withLock { $0.append(render) }
    }

    func requestStarted() { inFlightCount.add(1, ordering: .relaxed) }
    func requestFinished() { inFlightCount.subtract(1, ordering: .relaxed) }

    /// Records one answered request of a matched route. Routes are patterns, never raw paths,
    /// so ids and tokens in paths cannot reach the metrics.
    func record(route: Router.Route, status: Int, seconds: Double) {
        state.withLock { state in
            if route.index >= state.routes.count {
                state.routes.append(contentsOf: repeatElement(nil, count: route.index - state.routes.count + 1))
            }
            let series = state.routes[route.index] ?? Series(method: route.method.rawValue, route: route.pattern)
            state.routes[route.index] = series
            series.record(status: status, seconds: seconds)
        }
    }

    /// Records one answered request that matched no route. The method comes from the client,
    /// so any name outside the standard ones counts as `OTHER`: one series each, not one per name.
    func recordUnmatched(method: String, status: Int, seconds: Double) {
        let method = Self.standardMethods.contains(method) ? method : "OTHER"
        state.withLock { state in
            let series = state.unmatched[method] ?? Series(method: method, route: "unmatched")
            state.unmatched[method] = series
            series.record(status: status, seconds: seconds)
        }
    }

    private static let standardMethods: Set<String> = Set([HTTPMethod.get, .head, .post, .put, .patch, .delete, .options].map(\.rawValue))

    /// The Prometheus text format (version 0.0.4).
    public func render() -> String {
        // Snapshot under the lock; format outside it.
        typealias Snapshot = (method: String, route: String, statuses: [(status: Int, count: UInt64)], buckets: [UInt64], count: UInt64, sum: Double)
        let series: [Snapshot] = state.withLock { state in
            (state.routes.compactMap { $0 } + state.unmatched.values).map {
                ($0.method, $0.route, $0.statuses, $0.buckets, $0.count, $0.sum)
            }
        }.sorted { ($0.route, $0.method) < ($1.route, $1.method) }

        var out = "# HELP custos_http_requests_total HTTP requests answered, by method, route and status.\n"
        out += "# TYPE custos_http_requests_total counter\n"
        for entry in series {
            for (status, value) in entry.statuses.sorted(by: { $0.status < $1.status }) {
                out += "custos_http_requests_total{method=\"\(entry.method)\",route=\"\(escape(entry.route))\",status=\"\(status)\"} \(value)\n"
            }
        }
        out += "# HELP custos_http_request_duration_seconds Time from the request's arrival to its answer being queued.\n"
        out += "# TYPE custos_http_request_duration_seconds histogram\n"
        for entry in series {
            let labels = "method=\"\(entry.method)\",route=\"\(escape(entry.route))\""
            var cumulative: UInt64 = 0
            for (bound, count) in zip(HTTPMetrics.bucketBounds, entry.buckets) {
                cumulative += count
                out += "custos_http_request_duration_seconds_bucket{\(labels),le=\"\(bound)\"} \(cumulative)\n"
            }
            out += "custos_http_request_duration_seconds_bucket{\(labels),le=\"+Inf\"} \(entry.count)\n"
            out += "custos_http_request_duration_seconds_sum{\(labels)} \(entry.sum)\n"
            out += "custos_http_request_duration_seconds_count{\(labels)} \(entry.count)\n"
        }
        out += "# HELP custos_http_requests_in_flight Requests being handled now.\n"
        out += "# TYPE custos_http_requests_in_flight gauge\n"
        out += "custos_http_requests_in_flight \(inFlight)\n"
        for render in included.withLock({ $0 }) { out += render() }
        return out
    }

    private func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
