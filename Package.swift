// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Custos",
    // The SDK's locks are the Synchronization module's Mutex and Atomic: macOS 15, iOS 18.
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "CustosSDK", targets: ["CustosSDK"]),
        .library(name: "CustosAPI", targets: ["CustosAPI"]),
        .executable(name: "custos", targets: ["custos"]),
    ],
    targets: [
        // C libraries from Debian's -dev packages.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        // libcurl (OpenSSL flavour) for webhook deliveries: no redirects, the checked addresses pinned.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // C++17 over Debian's dlib 19.24 (+ libjpeg, libpng) behind a plain C API; see Sources/CFaceShim.
        .target(
            name: "CFaceShim",
            cSettings: [.define("NDEBUG", .when(configuration: .release))],
            cxxSettings: [.define("NDEBUG", .when(configuration: .release)), .define("DLIB_NO_ABORT_ON_2ND_FATAL_ERROR")],
            linkerSettings: [.linkedLibrary("dlib"), .linkedLibrary("blas"), .linkedLibrary("lapack"),
                             .linkedLibrary("jpeg"), .linkedLibrary("png")]
        ),

        // Wire types and codes, shared by server and SDK (Foundation only).
        .target(name: "CustosAPI"),
        // Entities, services, policies and the protocols they need (Foundation only).
        .target(name: "CustosCore", dependencies: ["CustosAPI"]),
        // HTTP runtime over libmicrohttpd; knows nothing about authentication.
        .target(name: "CustosHTTP", dependencies: ["CMicroHTTPD"]),
        // SQLite and PostgreSQL implementations of Core's stores.
        .target(name: "CustosStore", dependencies: ["CustosCore", "CSQLite", "CLibPQ"]),
        // OpenSSL primitives (P-256, AES-GCM, HKDF, JOSE): all the SDK links on Linux, so
        // nothing here may depend on CustosCore (the server's domain code) or libargon2.
        .target(name: "CustosCrypto", dependencies: ["CustosAPI", "COpenSSL"]),
        // The server's keys and Core's crypto protocols over them: Argon2id passwords, the master
        // key and its rotation, the token signing key ring, template and audit sealing.
        .target(name: "CustosCryptoServices", dependencies: ["CustosAPI", "CustosCore", "CustosCrypto", "CArgon2"]),
        // Routes: access groups (sessions, API key scopes, rate limits), handlers by endpoint,
        // wire types <-> domain, errors -> HTTP answers.
        .target(name: "CustosServer", dependencies: ["CustosAPI", "CustosCore", "CustosHTTP", "CustosConfiguration", "CustosWebApp"]),
        // The project's one HTTP client over libcurl (webhook deliveries, the benchmarks' clients).
        .target(name: "CustosCurl", dependencies: ["CCurl"]),
        // The webhook outbox's delivery: the dispatcher and its callback URL policy.
        .target(name: "CustosDelivery", dependencies: ["CustosCore", "CustosHTTP", "CustosConfiguration", "CustosCurl"]),
        // The configuration schema: each setting declared once (flag, key, environment, range),
        // the file and environment loader, and the whole server's configuration (webhooks' included).
        .target(name: "CustosConfiguration", dependencies: ["CustosCore", "CustosHTTP"]),
        // The web app: its HTML, JavaScript and CSS (Web/, copied beside the binary as SwiftPM
        // resources), served from memory, and contract.js written from CustosAPI.
        .target(name: "CustosWebApp", dependencies: ["CustosAPI", "CustosHTTP"], resources: [.copy("Web")]),
        // Face engine: Swift over CFaceShim; implements Core's face protocols.
        .target(name: "CustosFace", dependencies: ["CustosCore", "CFaceShim"]),
        // The live wiring: configuration -> master keys, store, crypto, face engine -> services,
        // and the housekeeping a running server needs; used by `custos serve` and the tests' live server.
        .target(name: "CustosRuntime", dependencies: ["CustosCore", "CustosHTTP", "CustosStore", "CustosCrypto", "CustosCryptoServices", "CustosServer",
                                                   "CustosConfiguration", "CustosDelivery", "CustosWebApp", "CustosFace"]),
        // Client SDK for apps.
        .target(name: "CustosSDK", dependencies: [
            "CustosAPI",
            // P-256 device keys on Linux (CryptoKit / Secure Enclave on Apple platforms).
            .target(name: "CustosCrypto", condition: .when(platforms: [.linux])),
        ]),
        // Face-matching and liveness evaluation: data-set readers, pairs, calibration, ROC charts.
        .target(name: "CustosEval", dependencies: ["CustosCore", "CustosFace", "CustosCrypto", "CustosCryptoServices"]),
        // The one command: serve, migrate, admin, flows, bench, eval.
        .executableTarget(
            name: "custos",
            dependencies: ["CustosAPI", "CustosCore", "CustosHTTP", "CustosStore", "CustosCrypto", "CustosCryptoServices", "CustosServer",
                           "CustosSDK", "CustosFace", "CustosEval", "CustosRuntime", "CustosConfiguration", "CustosWebApp", "CustosCurl"]
        ),

        // In-memory fakes of Core's ports (stores, clock, crypto, faces, liveness) for fast unit tests. Apart
        // from CustosTestSupport, which links the face engine (dlib) that these tests must not need.
        .target(name: "CustosFakes", dependencies: ["CustosCore", "CustosAPI"]),
        // Shared by test targets only (environment, child processes); not a product.
        .target(name: "CustosTestSupport", dependencies: ["CustosFace", "CustosCore", "CustosHTTP"], path: "Sources/CustosTestSupport"),

        .testTarget(name: "CustosCoreTests", dependencies: ["CustosCore", "CustosAPI", "CustosFakes"]),
        .testTarget(name: "CustosHTTPTests", dependencies: ["CustosHTTP"]),
        .testTarget(name: "CustosStoreTests", dependencies: ["CustosStore", "CustosCore", "CustosAPI", "CustosTestSupport", "CustosFakes"]),
        .testTarget(name: "CustosCryptoTests", dependencies: ["CustosCrypto", "CustosCryptoServices", "CustosCore"]),
        .testTarget(name: "CustosServerTests", dependencies: ["CustosServer", "CustosHTTP", "CustosCore", "CustosAPI", "CustosStore", "CustosSDK", "CustosCrypto", "CustosCryptoServices", "CustosFace", "CustosRuntime", "CustosConfiguration", "CustosDelivery", "CustosWebApp", "CustosTestSupport"]),
        .testTarget(name: "CustosSDKTests", dependencies: ["CustosSDK", "CustosAPI", "CustosCrypto"]),
        .testTarget(name: "CustosFaceTests", dependencies: ["CustosFace", "CustosCore", "CFaceShim", "CustosTestSupport", "CustosFakes"]),
        .testTarget(name: "CustosEvalTests", dependencies: ["CustosEval", "CustosFace", "CustosCore", "CustosTestSupport"]),
        .testTarget(name: "CustosCLITests", dependencies: ["CustosAPI", "CustosCore", "CustosStore", "CustosCrypto", "CustosCryptoServices", "CustosTestSupport"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
