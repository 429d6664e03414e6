import Foundation
import Synchronization

/// Request counters by route and status, a latency histogram by route and the number of
/// requests in flight, rendered in the Prometheus text exposition format.
public final class HTTPMetrics: Sendable {
    /// Upper bounds of the latency buckets, in seconds.
    public static let bucketBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct RouteKey: Hashable { let method: String; let route: String }
    private struct CountKey: Hashable { let method: String; let route: String; let status: Int }
    private struct Histogram {
        var buckets = [UInt64](repeating: 0, count: HTTPMetrics.bucketBounds.count)
        var count: UInt64 = 0
        var sum: Double = 0
    }
    private struct State {
        var counts: [CountKey: UInt64] = [:]
        var latency: [RouteKey: Histogram] = [:]
    }

    private let state = Mutex(State())
    private let inFlightCount = Atomic<Int>(0)

    public init() {}

    public var inFlight: Int { inFlightCount.load(ordering: .relaxed) }

    func requestStarted() { inFlightCount.add(1, ordering: .relaxed) }
    func requestFinished() { inFlightCount.subtract(1, ordering: .relaxed) }

    /// Records one answered request. `route` is the matched pattern (never the raw path, so
    /// ids and tokens in paths cannot reach the metrics), or `unmatched`.
    public func record(method: String, route: String, status: Int, seconds: Double) {
        let bucket = HTTPMetrics.bucketBounds.firstIndex { seconds <= $0 }
        state.withLock { state in
            state.counts[CountKey(method: method, route: route, status: status), default: 0] += 1
            var histogram = state.latency[RouteKey(method: method, route: route)] ?? Histogram()
            if let bucket { histogram.buckets[bucket] += 1 }
            histogram.count += 1
            histogram.sum += seconds
            state.latency[RouteKey(method: method, route: route)] = histogram
        }
    }

    /// The Prometheus text format (version 0.0.4).
    public func render() -> String {
        let snapshot = state.withLock { $0 }
        var out = "# HELP custos_http_requests_total HTTP requests answered, by method, route and status.\n"
        out += "# TYPE custos_http_requests_total counter\n"
        for (key, value) in snapshot.counts.sorted(by: { ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status) }) {
            out += "custos_http_requests_total{method=\"\(key.method)\",route=\"\(escape(key.route))\",status=\"\(key.status)\"} \(value)\n"
        }
        out += "# HELP custos_http_request_duration_seconds Time from the request's arrival to its answer being queued.\n"
        out += "# TYPE custos_http_request_duration_seconds histogram\n"
        for (key, histogram) in snapshot.latency.sorted(by: { ($0.key.route, $0.key.method) < ($1.key.route, $1.key.method) }) {
            let labels = "method=\"\(key.method)\",route=\"\(escape(key.route))\""
            var cumulative: UInt64 = 0
            for (bound, count) in zip(HTTPMetrics.bucketBounds, histogram.buckets) {
                cumulative += count
                out += "custos_http_request_duration_seconds_bucket{\(labels),le=\"\(bound)\"} \(cumulative)\n"
            }
            out += "custos_http_request_duration_seconds_bucket{\(labels),le=\"+Inf\"} \(histogram.count)\n"
            out += "custos_http_request_duration_seconds_sum{\(labels)} \(histogram.sum)\n"
            out += "custos_http_request_duration_seconds_count{\(labels)} \(histogram.count)\n"
        }
        out += "# HELP custos_http_requests_in_flight Requests being handled now.\n"
        out += "# TYPE custos_http_requests_in_flight gauge\n"
        out += "custos_http_requests_in_flight \(inFlight)\n"
        return out
    }

    private func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
