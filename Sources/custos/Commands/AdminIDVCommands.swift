import CustosAPI
import CustosSDK
import Foundation

/// `custos admin idv …`: the relying party's reads of IDV transactions over HTTP with an API
/// key — the verdict with its evidence, and a document scan's images.
enum AdminIDVCommands {
    static let all: [Command] = [verdict, document]

    static let transaction = Argument("transaction", help: "the idv_audit_transaction_id of the workflow's result")
    static let side = Option<String>.choice("side", ["front", "back"], default: "front", help: "front or back")
    static let out = Option<URL?>.path("out", "FILE", help: "where to write the image (created readable by its owner only)").required()

    static let verdict = Command(spec: CommandSpec(
        path: "admin idv verdict", summary: "Show an IDV transaction's verdict with its evidence and the signed result.",
        options: AdminUserCommands.remote, arguments: [transaction], example: "custos admin idv verdict <transaction>")
    ) { arguments in
        let client = try ClientOptions.adminClient(arguments)
        let transactionID = arguments[transaction]
        let view = try await client.idvVerdict(transactionID)
        try ClientOptions.output(arguments, view) {
            var line = "\(view.idvAuditTransactionID)  user=\(view.userID)  workflow=\(view.workflow)  \(view.state)"
            if let status = view.statusCode { line += "  status=\(status)" }
            if let decision = view.decision { line += "  \(decision)" }
            if let distance = view.distance, let threshold = view.threshold { line += "  distance=\(distance) (threshold \(threshold))" }
            if let reason = view.livenessReason { line += "  liveness=\(reason)" }
            return [line] + (view.documents.map { ["documents: \($0.joined(separator: ", "))"] } ?? [])
        }
        return .ok
    }

    static let document = Command(spec: CommandSpec(
        path: "admin idv document", summary: "Save one side of a document scan's identity document, as uploaded (the read is audited).",
        options: AdminUserCommands.remoteTextOnly + [side.spec, out.spec], arguments: [transaction],
        example: "custos admin idv document <transaction> --side back --out back.jpg")
    ) { arguments in
        let (side, out) = (arguments[side], try arguments[out].path)
        let client = try ClientOptions.adminClient(arguments)
        let transactionID = arguments[transaction]
        let image = try await client.idvDocument(transactionID, side: side)
        guard FileManager.default.createFile(atPath: out, contents: image.data, attributes: [.posixPermissions: 0o600]) else {
            throw CommandFailure("cannot write \(out)")
        }
        Console.out("\(side) image of \(transactionID): \(image.contentType), \(image.data.count) bytes -> \(out)")
        return .ok
    }
}
