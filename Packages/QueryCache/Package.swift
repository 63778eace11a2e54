// swift-tools-version: 6.1

import PackageDescription

let package = Package(
  name: "QueryCache",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "QueryCache", targets: ["QueryCache"]),
    // The bridge from EntityTracking's change sets to query invalidation: its own product, so
    // that a user of QueryCache alone does not build EntityTracking.
    .library(name: "EntityQueries", targets: ["EntityQueries"]),
  ],
  dependencies: [
    .package(path: "../ReduxCore"),
    .package(path: "../EntityTracking"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
  ],
  targets: [
    .target(
      name: "QueryCache",
      dependencies: [
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .target(
      name: "EntityQueries",
      dependencies: [
        "QueryCache",
        .product(name: "EntityTracking", package: "EntityTracking"),
        // NB: imported directly (the reducers, the task runtime), so listed.
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "QueryCacheTests",
      dependencies: [
        "QueryCache",
        .product(name: "ReduxCoreTesting", package: "ReduxCore"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "InMemoryLogging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "EntityQueriesTests",
      dependencies: [
        "EntityQueries", "QueryCache",
        .product(name: "EntityTracking", package: "EntityTracking"),
        .product(name: "ReduxCore", package: "ReduxCore"),
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
