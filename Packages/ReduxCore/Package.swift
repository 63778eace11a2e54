// swift-tools-version: 6.1

import PackageDescription

let package = Package(
  name: "ReduxCore",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "ReduxCore", targets: ["ReduxCore"]),
    .library(name: "ReduxCoreTesting", targets: ["ReduxCoreTesting"]),
  ],
  dependencies: [
    // Test-only: the admission policies are checked against a naive model over random events.
    .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1")
  ],
  targets: [
    .target(name: "ReduxCore"),
    .target(name: "ReduxCoreTesting", dependencies: ["ReduxCore"]),
    .testTarget(
      name: "ReduxCoreTests",
      dependencies: [
        "ReduxCore", "ReduxCoreTesting",
        .product(name: "PropertyBased", package: "swift-property-based"),
      ]
    ),
    // Faults planted for Scripts/sanitize.sh, which checks that the sanitizers report them;
    // skipped unless REDUXKIT_CANARY asks for one.
    .testTarget(name: "SanitizerCanaryTests", dependencies: ["ReduxCore", "ReduxCoreTesting"]),
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
