import CustosCore
import Foundation

// MARK: - SecurityEventStreamStore

extension SQLStore: SecurityEventStreamStore {
    private static let streamColumns = "id, api_key_id, endpoint_url, events_requested, description, created_at, updated_at"

    public func createStream(_ stream: SecurityEventStream) throws {
        do {
            try database.execute("INSERT INTO ssf_streams (\(Self.streamColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)", [
                .text(stream.id), .text(stream.apiKeyID), .text(stream.endpointURL), try .json(stream.eventsRequested),
                .optionalText(stream.description), .date(stream.createdAt), .date(stream.updatedAt),
            ])
        } catch StoreError.duplicate {
            throw StoreError.duplicate("this API key has a stream already")
        }
    }

    public func stream(apiKeyID: String) throws -> SecurityEventStream? {
        try database.select("SELECT \(Self.streamColumns) FROM ssf_streams WHERE api_key_id = ?", [.text(apiKeyID)]).first.map(Self.stream)
    }

    public func updateStream(_ stream: SecurityEventStream) throws -> Bool {
        try database.execute(
            "UPDATE ssf_streams SET endpoint_url = ?, events_requested = ?, description = ?, updated_at = ? WHERE id = ?",
            [.text(stream.endpointURL), try .json(stream.eventsRequested), .optionalText(stream.description), .date(stream.updatedAt),
             .text(stream.id)]) == 1
    }

    public func deleteStream(id: String) throws -> Bool {
        try database.execute("DELETE FROM ssf_streams WHERE id = ?", [.text(id)]) == 1
    }

    public func streams(forUserCreatedBy creatorKeyID: String?) throws -> [SecurityEventStream] {
        try database.select(
            """
            SELECT s.id, s.api_key_id, s.endpoint_url, s.events_requested, s.description, s.created_at, s.updated_at
            FROM ssf_streams s JOIN api_keys k ON k.id = s.api_key_id
            WHERE k.revoked_at IS NULL AND (k.scope = 'admin' OR s.api_key_id = ?) ORDER BY s.id
            """,
            [.optionalText(creatorKeyID)]).map(Self.stream)
    }

    private static func stream(_ row: SQLRow) throws -> SecurityEventStream {
        guard let events = try? JSONDecoder().decode([String].self, from: Data(try row.string(3).utf8)) else {
            throw StoreError.failure("ssf_streams.events_requested is not a JSON array of strings")
        }
        return SecurityEventStream(id: try row.string(0), apiKeyID: try row.string(1), endpointURL: try row.string(2), eventsRequested: events,
                                   description: try row.optionalString(4), createdAt: try row.date(5), updatedAt: try row.date(6))
    }
}
