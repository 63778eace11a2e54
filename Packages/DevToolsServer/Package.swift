// swift-tools-version: 6.1

import PackageDescription

// NB: a package of its own, not a target of DevTools: Hummingbird (and SwiftNIO under it) takes
// minutes to build, which an app that only records, or the sanitizer runs, should not pay.
let package = Package(
  name: "DevToolsServer",
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "DevToolsServer", targets: ["DevToolsServer"]),
    .executable(name: "reduxkit-devtools-demo", targets: ["DevToolsDemo"]),
  ],
  dependencies: [
    .package(path: "../DevTools"),
    .package(path: "../ReduxCore"),
    .package(path: "../QueryCache"),
    .package(path: "../FeatureKit"),
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
  ],
  targets: [
    .target(
      name: "DevToolsServer",
      dependencies: [
        .product(name: "DevTools", package: "DevTools"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "CompressNIO", package: "compress-nio"),
      ],
      resources: [.copy("Resources/devtools.html")]
    ),
    // A small app recorded and served, for trying the page and for the browser test.
    .executableTarget(
      name: "DevToolsDemo",
      dependencies: [
        "DevToolsServer",
        .product(name: "DevTools", package: "DevTools"),
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "QueryCache", package: "QueryCache"),
        .product(name: "FeatureKit", package: "FeatureKit"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "DevToolsServerTests",
      dependencies: [
        "DevToolsServer",
        .product(name: "DevTools", package: "DevTools"),
        .product(name: "ReduxCore", package: "ReduxCore"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "CompressNIO", package: "compress-nio"),
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
