import CustosConfiguration
import CustosCore
import CustosFace
import CustosHTTP
import CustosRuntime
import CustosServer
import CustosWebApp
import Dispatch
import Foundation

/// `custos serve`: resolve the configuration, open the store, serve until SIGTERM/SIGINT.
enum ServeCommand {
    static let command = Command(
        spec: CommandSpec(path: "serve", summary: "Serve the Custos HTTP API (SQLite by default, PostgreSQL with --database-url).",
                          options: settingOptions(Setting.all), example: "custos serve --dev --port 8080")
    ) { arguments in
        try await run(arguments)
    }

    /// One option per setting; boolean settings are switches: `--idv` turns one on,
    /// `--idv=false` off (overriding the environment and the config file).
    static func settingOptions(_ settings: [Setting]) -> [OptionSpec] {
        settings.map { setting in
            let name = String(setting.flag.dropFirst(2))
            let help = "\(setting.help) [\(setting.environmentVariable)]"
            if setting.isBoolean { return .switch(name, help) }
            return .value(name, placeholder(forKey: setting.key), help)
        }
    }

    /// What `--help` names a setting's value, read from its key alone (the key is the part of
    /// a setting that stays put): `--port PORT`, `--data-dir DIR`, `--take-memory-days N`.
    static func placeholder(forKey key: String) -> String {
        let last = key.split(separator: "_").last.map(String.init) ?? key
        switch last {
        case "port", "host": return last.uppercased()
        case "dir": return "DIR"
        case "file", "config": return "PATH"
        case "url", "issuer": return "URL"
        case "threshold": return "NUMBER"
        case "days", "seconds", "minutes", "hours", "bytes", "kib", "threads", "workers", "limit", "size", "attempts", "length",
             "iterations", "challenge", "width", "frames", "window", "grace", "timeout", "connections", "ip":
            return "N"
        default: return "VALUE"
        }
    }

    /// The values given as flags, keyed by setting key (switches read `true` or `false`).
    static func flagValues(_ arguments: ParsedArguments, settings: [Setting]) -> [String: String] {
        var values: [String: String] = [:]
        for setting in settings {
            if let value = arguments.value(String(setting.flag.dropFirst(2))) { values[setting.key] = value }
        }
        return values
    }

    static func resolveConfiguration(_ arguments: ParsedArguments, settings: [Setting] = Setting.all) throws -> ConfigurationLoader.Resolved {
        do {
            return try ConfigurationLoader(settings: settings)
                .load(flags: flagValues(arguments, settings: settings), environment: ProcessInfo.processInfo.environment)
        } catch let error as ConfigurationError {
            throw UsageError(error.message)
        }
    }

    /// The web app's files: `--web-root`, else those built beside the binary (absent: no web app, said at start).
    static func webApp(_ configuration: ServerConfiguration) throws -> WebApp? {
        switch configuration.webRoot {
        case "none": return nil
        case let root?:
            do { return try WebApp(root: URL(fileURLWithPath: root)) } catch let error as WebApp.LoadError { throw UsageError("--web-root: \(error)") }
        case nil:
            return try WebApp.bundled().map { try WebApp(root: $0) }
        }
    }

    private static func run(_ arguments: ParsedArguments) async throws -> ExitCode {
        let resolved = try resolveConfiguration(arguments)
        let configuration = resolved.configuration
        let sink = FileDescriptorLogSink(fileDescriptor: STDERR_FILENO)
        let logger = Logger(sink: sink, level: configuration.logLevel)

        let web = try webApp(configuration)
        let signals = TerminationSignals()
        let masterKeys = try MasterKeyLoader.load(configuration)
        let masterKey = masterKeys.primary
        let store = try MasterKeyLoader.openStore(configuration, checking: masterKeys)
        let server: HTTPServer
        var probe: HTTPServer?
        let services: RuntimeServices
        let rateLimiter: RateLimiter
        do {
            services = try ApplicationFactory.services(configuration, store: store, masterKeys: masterKeys)
            rateLimiter = services.rateLimiter(configuration, store: store)
            let dependencies = services.dependencies(database: store, rateLimiter: rateLimiter, webApp: web)
            server = CustosApplication.makeServer(dependencies, configuration: configuration.http, logger: logger)
            try server.start()
            if let port = configuration.probePort {
                probe = CustosApplication.makeProbeServer(dependencies, for: server, port: port, logger: logger)
                do { try probe?.start() } catch { server.stop(); throw error }
            }
        } catch {
            store.close()
            throw error
        }

        let housekeeping = services.startHousekeeping(store: store, configuration: configuration, rateLimiter: rateLimiter, logger: logger)
        let webhooks = services.startWebhooks(store: store, configuration: configuration, logger: logger)
        server.metrics.include { webhooks.renderMetrics() }
        if let idv = services.idv, idv.faceQueue != nil {
            server.metrics.include { idv.faceQueue.map(FaceQueueMetrics.render) ?? "" }
        }
        logger.info("listening", ["host": .string(configuration.http.host), "port": .int(server.port ?? configuration.http.port),
                                  "database": .string(StoreFactory.describe(configuration)),
                                  "threads": .int(configuration.http.threads),
                                  // Which matrix kernels the face networks run on (BLASKernels).
                                  "blas": .string(BLASKernels.current ?? "not OpenBLAS")])
        if let port = probe?.port {
            logger.info("probe_listening", ["host": .string(configuration.http.host), "port": .int(port)])
        }
        if web != nil {
            // Where a person opens the app (the issuer: passkeys need its host, not an IP address).
            let base = configuration.issuer ?? "http://\(configuration.http.host):\(server.port ?? configuration.http.port)"
            logger.info("web_app", ["url": .string(base.hasSuffix("/") ? base + "app/" : base + "/app/")])
        } else if configuration.webRoot == nil {
            logger.warning("web_app_missing", ["message": "the web app's files are not beside the binary (Custos_CustosWebApp.resources): give --web-root DIR to serve it"])
        }
        logger.log(.info, "configuration", fields: resolved.maskedValues().map { ($0.key, .string($0.value)) })
        if configuration.development {
            logger.warning("development_mode", [
                "message": "DEVELOPMENT MODE: the master key is generated and stored in plain text in the data directory. Never use --dev in production.",
                "master_key_file": .string(configuration.developmentKeyPath), "master_key_id": .string(masterKey.keyID),
            ])
        } else {
            logger.log(.info, "master_key", fields: [("master_key_id", .string(masterKey.keyID))]
                + (masterKeys.previous.map { [("previous_master_key_id", LogValue.string($0.keyID))] } ?? []))
        }
        sink.flush()

        let signal = await signals.wait()
        logger.info("shutting_down", ["signal": .string(signal)])
        housekeeping.stop()
        webhooks.stop()
        // Probes see the node going first.
        probe?.stop()
        server.stop()
        store.close()
        logger.info("stopped")
        sink.flush()
        return .ok
    }

    /// Catches SIGTERM and SIGINT from now on (before the server says it listens, so a signal
    /// sent at once still shuts it down cleanly); `wait` returns the first one's name.
    private struct TerminationSignals {
        private let received: AsyncStream<String>
        private let sources: [any DispatchSourceSignal]

        init() {
            let (received, delivery) = AsyncStream.makeStream(of: String.self)
            let queue = DispatchQueue(label: "custos.signals")
            sources = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { number, label in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { delivery.yield(label) }
                source.resume()
                return source
            }
            self.received = received
        }

        func wait() async -> String {
            let name = await received.first { _ in true } ?? "SIGTERM"
            sources.forEach { $0.cancel() }
            return name
        }
    }
}
