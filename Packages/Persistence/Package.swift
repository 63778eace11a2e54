// swift-tools-version: 6.1

import PackageDescription

let package = Package(
  name: "Persistence",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "Persistence", targets: ["Persistence"]),
    .library(name: "PersistenceSQLite", targets: ["PersistenceSQLite"]),
    .library(name: "PersistenceSync", targets: ["PersistenceSync"]),
    .library(name: "PersistenceSyncTesting", targets: ["PersistenceSyncTesting"]),
  ],
  dependencies: [
    .package(path: "../ReduxCore"),
    .package(path: "../EntityTracking"),
    .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
  ],
  targets: [
    .target(
      name: "Persistence",
      dependencies: [
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "EntityTracking", package: "EntityTracking"),
        .product(name: "OrderedCollections", package: "swift-collections"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .target(
      name: "PersistenceSQLite",
      dependencies: [
        "Persistence",
        // NB: imported directly (EntityTable, hydration): listed, so an incremental build
        // recompiles this target when EntityStore changes.
        .product(name: "EntityTracking", package: "EntityTracking"),
        // NB: the change feed's polls sleep on the one clock reader.
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "GRDB", package: "GRDB.swift"),
        // NB: SQLite's C API, which GRDB is built on: EntityTable binds each row's values in
        // place on GRDB's prepared statement.
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .target(
      name: "PersistenceSync",
      dependencies: [
        "Persistence", "PersistenceSQLite",
        .product(name: "GRDB", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .target(name: "PersistenceSyncTesting", dependencies: ["Persistence", "PersistenceSync"]),
    // A test fixture, not a product: applies scripted changes and acknowledges each flush; the
    // crash-kill test SIGKILLs it.
    .executableTarget(
      name: "PersistenceCrashWriter", dependencies: ["PersistenceSQLite"],
      path: "Tests/PersistenceCrashWriter"),
    .testTarget(
      name: "PersistenceTests",
      dependencies: [
        "Persistence",
        .product(name: "ReduxCoreTesting", package: "ReduxCore"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "InMemoryLogging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "PersistenceSQLiteTests",
      dependencies: [
        "PersistenceSQLite", "PersistenceCrashWriter",
        .product(name: "ReduxCoreTesting", package: "ReduxCore"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ]
    ),
    .testTarget(
      name: "PersistenceSyncTests",
      dependencies: [
        "PersistenceSync", "PersistenceSyncTesting",
        .product(name: "ReduxCoreTesting", package: "ReduxCore"),
        .product(name: "GRDB", package: "GRDB.swift"),
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
