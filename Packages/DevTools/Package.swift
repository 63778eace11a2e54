// swift-tools-version: 6.1

import PackageDescription

let package = Package(
  name: "DevTools",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "DevTools", targets: ["DevTools"]),
    .executable(name: "reduxkit-inspect", targets: ["ReduxKitInspect"]),
  ],
  dependencies: [
    .package(path: "../ReduxCore"),
    .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
  ],
  targets: [
    .target(
      name: "DevTools",
      dependencies: [
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "DequeModule", package: "swift-collections"),
      ]
    ),
    // The terminal inspector of session files.
    .executableTarget(
      name: "ReduxKitInspect",
      dependencies: [
        "DevTools", .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ]
    ),
    .testTarget(
      name: "DevToolsTests",
      dependencies: [
        "DevTools", .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "ReduxCoreTesting", package: "ReduxCore"),
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
