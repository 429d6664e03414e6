import CustosHTTP
import CustosServer
import CustosStore
import Foundation
import Testing

/// Every route the router serves is in openapi.yaml, and every operation there is served.
@Suite struct OpenAPITests {
    /// `(METHOD, /path)` pairs of the `paths:` section, read from the file's fixed layout:
    /// two-space-indented paths, four-space-indented methods.
    static func documentedOperations() throws -> Set<String> {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("openapi.yaml")
        let text = try String(contentsOf: url, encoding: .utf8)
        var operations: Set<String> = []
        var inPaths = false
        var currentPath: String?
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line == "paths:"; continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), line.hasSuffix(":"),
                      let path = currentPath, methods.contains(String(line.dropFirst(4).dropLast())) {
                operations.insert("\(line.dropFirst(4).dropLast().uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test func routerAndSpecAgree() throws {
        let live = try LiveServer.sqlite()
        defer { live.stop() }
        let router = CustosApplication.makeRouter(
            ApplicationDependencies(database: live.store, identity: live.identity, apiKeys: live.apiKeys), metrics: HTTPMetrics())
        let served = Set(router.routes.map { "\($0.method.rawValue) \($0.pattern)" })
        let documented = try Self.documentedOperations()
        #expect(!served.isEmpty)
        #expect(served.subtracting(documented).isEmpty, "served but not in openapi.yaml: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "in openapi.yaml but not served: \(documented.subtracting(served).sorted())")
    }
}
