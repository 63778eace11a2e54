// swift-tools-version: 6.1

import PackageDescription

// NB: a package of its own, not a target of Persistence: postgres-nio (and SwiftNIO under it)
// takes minutes to build, which an app on SQLite alone should not pay.
let package = Package(
  name: "PersistencePostgres",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "PersistencePostgres", targets: ["PersistencePostgres"]),
    // A fresh database per test on the server Scripts/postgres.sh starts, for this package's
    // tests and for apps' tests against PostgreSQL.
    .library(name: "PersistencePostgresTesting", targets: ["PersistencePostgresTesting"]),
  ],
  dependencies: [
    .package(path: "../Persistence"),
    .package(path: "../ReduxCore"),
    .package(path: "../EntityTracking"),
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
  ],
  targets: [
    .target(
      name: "PersistencePostgres",
      dependencies: [
        .product(name: "Persistence", package: "Persistence"),
        .product(name: "EntityTracking", package: "EntityTracking"),
        // NB: the one clock reader (the feed's report times), as Persistence's timers use.
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .target(
      name: "PersistencePostgresTesting",
      dependencies: [
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "PersistencePostgresTests",
      dependencies: [
        "PersistencePostgres",
        "PersistencePostgresTesting",
        .product(name: "Persistence", package: "Persistence"),
        // NB: the backend contract suite runs each of its tests on SQLite too.
        .product(name: "PersistenceSQLite", package: "Persistence"),
        .product(name: "ReduxCoreTesting", package: "ReduxCore"),
        .product(name: "EntityTracking", package: "EntityTracking"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
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
