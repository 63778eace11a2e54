// swift-tools-version: 6.1

import PackageDescription

let package = Package(
  name: "ReduxKit",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "ReduxKit", targets: ["ReduxKit"]),
    .library(name: "ReduxKitTesting", targets: ["ReduxKitTesting"]),
    .executable(name: "counter", targets: ["Counter"]),
    .executable(name: "inbox", targets: ["Inbox"]),
    .executable(name: "board", targets: ["Board"]),
  ],
  // NB: `board --devtools` serves the DevTools page through Hummingbird and SwiftNIO, which take
  // minutes to build: a trait the developer asks for (`swift run --traits DevToolsServer board
  // -- --devtools`), so that a newcomer's first `swift run board` builds no HTTP stack.
  // Scripts/test.sh builds with it, to test the page.
  traits: [
    .default(enabledTraits: []),
    .trait(name: "DevToolsServer", description: "`board --devtools`: the DevTools page."),
  ],
  dependencies: [
    .package(path: "Packages/ReduxCore"),
    .package(path: "Packages/EntityTracking"),
    .package(path: "Packages/Persistence"),
    .package(path: "Packages/QueryCache"),
    .package(path: "Packages/FeatureKit"),
    .package(path: "Packages/DevTools"),
    .package(path: "Packages/DevToolsServer"),
    .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
  ],
  targets: [
    .target(
      name: "ReduxKit",
      dependencies: [
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "EntityTracking", package: "EntityTracking"),
        .product(name: "Persistence", package: "Persistence"),
        .product(name: "PersistenceSQLite", package: "Persistence"),
        .product(name: "PersistenceSync", package: "Persistence"),
        .product(name: "QueryCache", package: "QueryCache"),
        .product(name: "EntityQueries", package: "QueryCache"),
        .product(name: "FeatureKit", package: "FeatureKit"),
        .product(name: "DevTools", package: "DevTools"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // The packages' testing modules in one, for an app's test target.
    .target(
      name: "ReduxKitTesting",
      dependencies: [
        .product(name: "ReduxCoreTesting", package: "ReduxCore"),
        .product(name: "FeatureKitTesting", package: "FeatureKit"),
      ]
    ),
    .executableTarget(
      name: "Counter",
      dependencies: ["ReduxKit"],
      path: "Examples/Counter"
    ),
    .executableTarget(
      name: "Inbox",
      dependencies: ["ReduxKit", "TerminalIO"],
      path: "Examples/Inbox"
    ),
    // The terminal pieces the examples share: an async line and key reader that never blocks
    // the main actor, raw mode, the alternate screen, resize events.
    .target(
      name: "TerminalIO",
      path: "Examples/TerminalIO"
    ),
    // The board's code, apart from its command line: a library so that BoardBenchmarks links
    // it (`package` access; no product, so the umbrella package does not export it).
    .target(
      name: "BoardCore",
      dependencies: [
        "ReduxKit", "TerminalIO", .product(name: "Logging", package: "swift-log"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Examples/BoardCore"
    ),
    .executableTarget(
      name: "Board",
      dependencies: [
        "BoardCore", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "DevTools", package: "DevTools"),
        .product(
          name: "DevToolsServer", package: "DevToolsServer",
          condition: .when(traits: ["DevToolsServer"])),
      ],
      path: "Examples/Board"
    ),
    // Not a package-benchmark suite (those live in Benchmarks/Package.swift): a plain program
    // timing the board on 10,000 cards against a bare GRDB read, interleaved in one process.
    // swift run -c release BoardBenchmarks
    .executableTarget(
      name: "BoardBenchmarks",
      dependencies: [
        "BoardCore", "ReduxKit", "TerminalIO",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Benchmarks/BoardBenchmarks"
    ),
    .testTarget(
      name: "IntegrationTests",
      dependencies: [
        "ReduxKit", "Counter", "Inbox", "Board", "TerminalIO",
        .product(name: "ReduxCoreTesting", package: "ReduxCore"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Tests/IntegrationTests"
    ),
    .testTarget(
      name: "BoardTests",
      dependencies: [
        "BoardCore", "TerminalIO", .product(name: "ReduxCoreTesting", package: "ReduxCore"),
        // NB: the tests read a board file's rows as any other SQLite client would.
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Tests/BoardTests",
      // NB: board files made by earlier releases, which tests copy and open.
      exclude: ["Fixtures"]
    ),
    .testTarget(
      name: "TerminalIOTests",
      dependencies: ["TerminalIO"],
      path: "Tests/TerminalIOTests"
    ),
    .testTarget(
      name: "ReduxKitTests",
      dependencies: [
        "ReduxKit",
        .product(name: "ReduxCoreTesting", package: "ReduxCore"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "InMemoryLogging", package: "swift-log"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// MARK: - Shared settings (identical in every manifest; Scripts/check.sh verifies)

for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("InternalImportsByDefault"),
      .enableUpcomingFeature("MemberImportVisibility"),
      .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
      .enableUpcomingFeature("InferIsolatedConformances"),
    ]
}
