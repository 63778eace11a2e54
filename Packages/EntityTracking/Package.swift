// swift-tools-version: 6.1

import PackageDescription

let package = Package(
  name: "EntityTracking",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "EntityTracking", targets: ["EntityTracking"])
  ],
  dependencies: [
    .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1")
  ],
  targets: [
    .target(name: "EntityTracking"),
    .testTarget(
      name: "EntityTrackingTests",
      dependencies: [
        "EntityTracking",
        .product(name: "PropertyBased", package: "swift-property-based"),
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
