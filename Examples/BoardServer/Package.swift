// swift-tools-version: 6.1

import PackageDescription

// NB: a package of its own, not a product of the umbrella package: Hummingbird and postgres-nio
// take minutes to build, which the terminal examples and the sanitizer runs should not pay.
let package = Package(
  name: "BoardServer",
  platforms: [.macOS(.v15)],
  products: [
    .executable(name: "board-server", targets: ["BoardServer"]),
    // Sync through a real board-server on PostgreSQL, against a raw postgres-nio batch
    // (release: swift build -c release --package-path Examples/BoardServer).
    .executable(name: "BoardSyncContenders", targets: ["BoardSyncContenders"]),
  ],
  dependencies: [
    .package(path: "../../Packages/ReduxCore"),
    .package(path: "../../Packages/EntityTracking"),
    .package(path: "../../Packages/Persistence"),
    .package(path: "../../Packages/PersistencePostgres"),
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-crypto.git", "3.9.0"..<"6.0.0"),
  ],
  targets: [
    // The server apart from its command line: the tests run several instances in one process.
    .target(
      name: "BoardServerCore",
      dependencies: [
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "EntityTracking", package: "EntityTracking"),
        .product(name: "Persistence", package: "Persistence"),
        .product(name: "PersistenceSQLite", package: "Persistence"),
        .product(name: "PersistenceSync", package: "Persistence"),
        .product(name: "PersistencePostgres", package: "PersistencePostgres"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
        // The token's constant-time comparison (already built for postgres-nio).
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
    .executableTarget(
      name: "BoardServer",
      dependencies: [
        "BoardServerCore",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "BoardSyncContenders",
      dependencies: [
        "BoardServerCore",
        .product(name: "PersistenceSQLite", package: "Persistence"),
        .product(name: "PersistenceSync", package: "Persistence"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "BoardServerTests",
      dependencies: [
        "BoardServerCore",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "PersistencePostgres", package: "PersistencePostgres"),
        .product(name: "PersistencePostgresTesting", package: "PersistencePostgres"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "PersistenceSync", package: "Persistence"),
        .product(name: "PersistenceSyncTesting", package: "Persistence"),
      ],
      // NB: board files made by earlier releases, which tests copy and open.
      exclude: ["Fixtures"]
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
