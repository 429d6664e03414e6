import CustosTestSupport
import Foundation
import Testing

/// What each product links, read from the package's own manifest (`swift package dump-package`).
@Suite struct PackageGraphTests {
    /// Every target `name` depends on, directly or through others, on any platform.
    static func closure(of name: String, in targets: [String: [String]]) -> Set<String> {
        var seen: Set<String> = [], pending = [name]
        while let next = pending.popLast() {
            for dependency in targets[next] ?? [] where seen.insert(dependency).inserted { pending.append(dependency) }
        }
        return seen
    }

    /// The manifest's targets with the names of their dependencies.
    static func targets() throws -> [String: [String]] {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { "\($0)/swift" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        let swift = try #require(path, "no swift on PATH")
        let output = try ChildProcess.run(executable: swift, arguments: ["package", "dump-package", "--package-path", SharedData.packageRoot.path],
                                          environment: ProcessInfo.processInfo.environment)
        try #require(output.status == 0, "dump-package failed: \(String(decoding: output.stderr, as: UTF8.self))")
        let manifest = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any])
        let targets = try #require(manifest["targets"] as? [[String: Any]])
        var graph: [String: [String]] = [:]
        for target in targets {
            let name = try #require(target["name"] as? String)
            // Each dependency is {"byName" | "target" | "product": [name, condition…]}.
            graph[name] = (target["dependencies"] as? [[String: Any]] ?? []).compactMap { ($0.values.first as? [Any])?.first as? String }
        }
        return graph
    }

    /// An app that links the SDK gets the wire contract, the crypto it signs with and
    /// Foundation: not the server's domain code, its stores, libargon2 or the face engine.
    @Test func theSDKLinksTheContractAndItsCryptoOnly() throws {
        let graph = try Self.targets()
        #expect(graph["CustosSDK"] != nil)
        #expect(Self.closure(of: "CustosSDK", in: graph) == ["CustosAPI", "CustosCrypto", "COpenSSL"])
        #expect(Self.closure(of: "CustosRuntime", in: graph).isSuperset(of: ["CustosCore", "CustosCryptoServices", "CArgon2"]),
                "the closure is read from the real graph")
    }

    /// One job per target: the routes link neither the stores, nor the webhook delivery, nor
    /// libcurl, nor the face engine; libcurl has one client.
    @Test func eachJobHasATargetOfItsOwn() throws {
        let graph = try Self.targets()
        #expect(graph.filter { $0.value.contains("CCurl") }.map(\.key) == ["CustosCurl"])
        let routes = Self.closure(of: "CustosServer", in: graph)
        #expect(routes.isDisjoint(with: ["CustosStore", "CustosDelivery", "CustosCurl", "CCurl", "CustosFace", "CustosRuntime"]), "\(routes)")
        #expect(Self.closure(of: "CustosRuntime", in: graph).isSuperset(of: ["CustosServer", "CustosDelivery", "CustosConfiguration", "CustosWebApp"]))
    }
}
