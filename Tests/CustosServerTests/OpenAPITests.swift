import CustosAPI
import CustosHTTP
import CustosServer
import CustosTestSupport
import Foundation
import Testing

/// `openapi.yaml` documents what the server serves: every operation of the endpoint table and
/// nothing else, each with the access, success status, request fields and answer fields
/// (names, which are required, and those of nested objects) of its declared types.
@Suite struct OpenAPITests {
    typealias Object = [String: Any]

    /// The spec as data (PyYAML, one of the outside clients), read once for every case.
    static func spec() throws -> Object { try parsedSpec.get().value }

    private struct ParsedSpec: @unchecked Sendable { let value: Object }
    private struct SpecUnreadable: Error, CustomStringConvertible { let description: String }

    private static let parsedSpec = Result { () throws -> ParsedSpec in
        let path = SharedData.packageRoot.appendingPathComponent("openapi.yaml").path
        let (status, output) = try OutsideClients.run("openapi_json.py", [path])
        guard status == 0, let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? Object else {
            throw SpecUnreadable(description: "openapi_json.py failed: \(output)")
        }
        return ParsedSpec(value: object)
    }

    @Test func routerServesExactlyTheEndpointTable() throws {
        let live = try LiveServer.sqlite()
        defer { live.stop() }
        let router = CustosApplication.makeRouter(
            ApplicationDependencies(database: live.store, identity: live.identity, apiKeys: live.apiKeys), metrics: HTTPMetrics())
        let served = Set(router.routes.map { "\($0.method.rawValue) \($0.pattern)" })
        let table = Set(Endpoints.all.map(\.description))
        #expect(served == table, "served but not in the table: \(served.subtracting(table).sorted()); in the table but not served: \(table.subtracting(served).sorted())")
        #expect(table.count == Endpoints.all.count, "an endpoint is in the table twice")
    }

    @Test(.enabled(if: OutsideClients.shouldRun, Comment(rawValue: OutsideClients.missingMessage)))
    func specDocumentsExactlyTheEndpointTable() throws {
        let spec = try Self.spec()
        let paths = try #require(spec["paths"] as? Object)
        let methods: Set<String> = ["get", "put", "post", "delete", "patch"]
        let documented = Set(paths.flatMap { path, item in
            ((item as? Object) ?? [:]).keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
        })
        let table = Set(Endpoints.all.map(\.description))
        #expect(documented.subtracting(table).isEmpty, "in openapi.yaml but not in the table: \(documented.subtracting(table).sorted())")
        #expect(table.subtracting(documented).isEmpty, "in the table but not in openapi.yaml: \(table.subtracting(documented).sorted())")
    }

    @Test(.enabled(if: OutsideClients.shouldRun, Comment(rawValue: OutsideClients.missingMessage)), arguments: Endpoints.all)
    func operationMatchesItsTypes(_ endpoint: AnyEndpoint) throws {
        let spec = try Self.spec()
        let schemas = Schemas(spec)
        let operation = try #require(((spec["paths"] as? Object)?[endpoint.path] as? Object)?[endpoint.method.rawValue.lowercased()] as? Object,
                                     "\(endpoint) is not in openapi.yaml")

        let security = (operation["security"] as? [Object] ?? []).map { $0.keys.sorted().joined() }
        let expectedSecurity: [String] = switch endpoint.access {
        case .anyone: []
        case .session: ["session"]
        case .sessionOrChangeToken: ["session", ""]
        case .apiKey: ["apiKey"]
        }
        #expect(security == expectedSecurity, "\(endpoint): security \(security), the table says \(endpoint.access)")

        let responses = try #require(operation["responses"] as? Object)
        let success = try #require(responses[String(endpoint.status)] as? Object, "\(endpoint): no \(endpoint.status) answer documented")

        if endpoint.body == FormBody.self {
            let content = (operation["requestBody"] as? Object)?["content"] as? Object
            #expect(content?["application/x-www-form-urlencoded"] != nil, "\(endpoint): no form request body documented")
        } else if let body = endpoint.body as? any Decodable.Type, endpoint.body != NoContent.self {
            let content = (operation["requestBody"] as? Object)?["content"] as? Object
            let schema = try #require((content?["application/json"] as? Object)?["schema"] as? Object, "\(endpoint): no JSON request body")
            try schemas.expect(schema, matches: try WireShape.of(body), at: "\(endpoint) request")
        }

        if endpoint.answer == NoContent.self {
            #expect(success["content"] == nil, "\(endpoint): a \(endpoint.status) answer has no body")
        } else if endpoint.answer == IDVConfirmation.self {
            let schema = try #require(((success["content"] as? Object)?["application/json"] as? Object)?["schema"] as? Object)
            let alternatives = try #require(schema["oneOf"] as? [Object])
            #expect(alternatives.count == IDVConfirmation.alternatives.count)
            for (alternative, type) in zip(alternatives, IDVConfirmation.alternatives) {
                try schemas.expect(alternative, matches: try WireShape.of(type), at: "\(endpoint) answer")
            }
        } else if let answer = endpoint.answer as? any Decodable.Type {
            let schema = try #require(((success["content"] as? Object)?["application/json"] as? Object)?["schema"] as? Object,
                                      "\(endpoint): no JSON answer documented")
            try schemas.expect(schema, matches: try WireShape.of(answer), at: "\(endpoint) answer")
        }
    }

    /// `components/schemas`, with `$ref`s followed.
    struct Schemas {
        let schemas: Object

        init(_ spec: Object) {
            schemas = ((spec["components"] as? Object)?["schemas"] as? Object) ?? [:]
        }

        /// `$ref` followed; a schema made of `allOf` parts alone merged into one object (their
        /// properties and required). Beside properties of its own, `allOf` only adds constraints.
        func resolve(_ schema: Object) -> Object {
            if let parts = schema["allOf"] as? [Object], schema["properties"] == nil {
                var properties = Object(), required: [String] = []
                for part in parts.map(resolve) {
                    properties.merge((part["properties"] as? Object) ?? [:]) { first, _ in first }
                    required += (part["required"] as? [String]) ?? []
                }
                return ["type": "object", "properties": properties, "required": required]
            }
            guard let ref = schema["$ref"] as? String else { return schema }
            return resolve((schemas[String(ref.split(separator: "/").last ?? "")] as? Object) ?? [:])
        }

        /// The object (or array of objects) schema has the shape's fields and required fields,
        /// recursively.
        func expect(_ schema: Object, matches shape: WireShape, at place: String) throws {
            var object = resolve(schema)
            if object["type"] as? String == "array", let items = object["items"] as? Object { object = resolve(items) }
            let properties = (object["properties"] as? Object) ?? [:]
            let required = Set((object["required"] as? [String]) ?? [])
            #expect(Set(properties.keys) == shape.names,
                    "\(place): documented \(properties.keys.sorted()), the type has \(shape.names.sorted())")
            #expect(required == shape.requiredNames,
                    "\(place): documented required \(required.sorted()), the type requires \(shape.requiredNames.sorted())")
            for (name, field) in shape.fields {
                guard let nested = field.nested, let property = properties[name] as? Object else { continue }
                try expect(property, matches: nested, at: "\(place).\(name)")
            }
        }
    }
}

extension AnyEndpoint: CustomTestStringConvertible {
    public var testDescription: String { description }
}
