// swift-tools-version: 6.1

import PackageDescription

let package = Package(
  name: "Benchmarks",
  platforms: [.macOS(.v15), .iOS(.v18)],
  dependencies: [
    .package(
      url: "https://github.com/ordo-one/benchmark", from: "1.38.1",
      traits: ["MallocInterposer"]),
    .package(path: "../Packages/ReduxCore"),
    .package(path: "../Packages/EntityTracking"),
    .package(path: "../Packages/Persistence"),
    .package(path: "../Packages/QueryCache"),
    .package(path: "../Packages/FeatureKit"),
    .package(path: "../Packages/PersistencePostgres"),
    .package(path: "../Packages/DevTools"),
    .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
  ],
  targets: [
    // A ReSwift-style synchronous store, in a module of its own as ReSwift is to an app.
    .target(name: "SyncStoreStandIn", path: "Benchmarks/SyncStoreStandIn"),
    .target(
      name: "DispatchFixtures",
      dependencies: ["SyncStoreStandIn", .product(name: "ReduxCore", package: "ReduxCore")],
      path: "Benchmarks/DispatchFixtures"
    ),
    // Not a package-benchmark suite: a plain program that Scripts/instructions.sh runs under
    // callgrind to count instructions per action.
    .executableTarget(
      name: "DispatchContenders",
      dependencies: [
        "DispatchFixtures", "SyncStoreStandIn", .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "DevTools", package: "DevTools"),
      ],
      path: "Benchmarks/DispatchContenders"
    ),
    // Not a package-benchmark suite: a plain program that Scripts/persistence-instructions.sh
    // runs under callgrind to count instructions per persisted row.
    .executableTarget(
      name: "PersistenceContenders",
      dependencies: [
        .product(name: "EntityTracking", package: "EntityTracking"),
        .product(name: "Persistence", package: "Persistence"),
        .product(name: "PersistenceSQLite", package: "Persistence"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Benchmarks/PersistenceContenders"
    ),
    // Not a package-benchmark suite: the outbox's cost on a flush, and reconnect → converged.
    .executableTarget(
      name: "SyncContenders",
      dependencies: [
        .product(name: "Persistence", package: "Persistence"),
        .product(name: "PersistenceSQLite", package: "Persistence"),
        .product(name: "PersistenceSync", package: "Persistence"),
      ],
      path: "Benchmarks/SyncContenders"
    ),
    // Not a package-benchmark suite: two processes on one SQLite file, the second started by
    // the first; commit → delivery through the change feed, p50 and p99.
    .executableTarget(
      name: "FeedLatency",
      dependencies: [
        .product(name: "EntityTracking", package: "EntityTracking"),
        .product(name: "Persistence", package: "Persistence"),
        .product(name: "PersistenceSQLite", package: "Persistence"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Benchmarks/FeedLatency"
    ),
    // Not a package-benchmark suite: how long a job posted to the main actor from a plain
    // thread waits while producer tasks flood a store, beside a control thread's oversleep.
    .executableTarget(
      name: "MainActorLatency",
      dependencies: [.product(name: "ReduxCore", package: "ReduxCore")],
      path: "Benchmarks/MainActorLatency"
    ),
    // Not a package-benchmark suite: a plain program against a PostgreSQL server, which
    // Scripts/postgres-bench.sh starts (flush throughput against a hand-written batch).
    .executableTarget(
      name: "PostgresContenders",
      dependencies: [
        .product(name: "EntityTracking", package: "EntityTracking"),
        .product(name: "Persistence", package: "Persistence"),
        .product(name: "PersistencePostgres", package: "PersistencePostgres"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Benchmarks/PostgresContenders"
    ),
    .executableTarget(
      name: "ReduxCoreBenchmarks",
      dependencies: [
        "DispatchFixtures",
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "ReduxCore", package: "ReduxCore"),
      ],
      path: "Benchmarks/ReduxCoreBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "EntityTrackingBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "EntityTracking", package: "EntityTracking"),
        .product(name: "OrderedCollections", package: "swift-collections"),
      ],
      path: "Benchmarks/EntityTrackingBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "PersistenceBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "EntityTracking", package: "EntityTracking"),
        .product(name: "Persistence", package: "Persistence"),
        .product(name: "PersistenceSQLite", package: "Persistence"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Benchmarks/PersistenceBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "QueryCacheBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "QueryCache", package: "QueryCache"),
        .product(name: "ReduxCoreTesting", package: "ReduxCore"),
      ],
      path: "Benchmarks/QueryCacheBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .executableTarget(
      name: "FeatureKitBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "FeatureKit", package: "FeatureKit"),
      ],
      path: "Benchmarks/FeatureKitBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
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
