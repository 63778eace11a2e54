// swift-tools-version: 6.1

import PackageDescription

let package = Package(
  name: "ReduxKit",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "ReduxKit", targets: ["ReduxKit"]),
    .executable(name: "counter", targets: ["Counter"]),
    .executable(name: "inbox", targets: ["Inbox"]),
  ],
  dependencies: [
    .package(path: "Packages/ReduxCore"),
    .package(path: "Packages/EntityTracking"),
    .package(path: "Packages/Persistence"),
    .package(path: "Packages/QueryCache"),
    .package(path: "Packages/FeatureKit"),
    .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
  ],
  targets: [
    .target(
      name: "ReduxKit",
      dependencies: [
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "EntityTracking", package: "EntityTracking"),
        .product(name: "Persistence", package: "Persistence"),
        .product(name: "PersistenceSQLite", package: "Persistence"),
        .product(name: "QueryCache", package: "QueryCache"),
        .product(name: "FeatureKit", package: "FeatureKit"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "Counter",
      dependencies: ["ReduxKit"],
      path: "Examples/Counter"
    ),
    .executableTarget(
      name: "Inbox",
      dependencies: ["ReduxKit"],
      path: "Examples/Inbox"
    ),
    .testTarget(
      name: "IntegrationTests",
      dependencies: [
        "ReduxKit", "Counter", "Inbox",
        .product(name: "ReduxCoreTesting", package: "ReduxCore"),
        .product(name: "GRDB", package: "GRDB.swift"),
      ],
      path: "Tests/IntegrationTests"
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
