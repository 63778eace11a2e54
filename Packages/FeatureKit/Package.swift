// swift-tools-version: 6.1

import PackageDescription

let package = Package(
  name: "FeatureKit",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "FeatureKit", targets: ["FeatureKit"]),
    .library(name: "FeatureKitTesting", targets: ["FeatureKitTesting"]),
  ],
  dependencies: [
    .package(path: "../ReduxCore"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump.git", from: "1.7.3"),
  ],
  targets: [
    .target(
      name: "FeatureKit",
      dependencies: [
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .target(
      name: "FeatureKitTesting",
      dependencies: [
        "FeatureKit",
        .product(name: "CustomDump", package: "swift-custom-dump"),
      ]
    ),
    .testTarget(
      name: "FeatureKitTests",
      dependencies: [
        "FeatureKit", "FeatureKitTesting",
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
