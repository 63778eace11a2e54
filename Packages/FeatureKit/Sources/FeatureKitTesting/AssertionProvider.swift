import CustomDump
import Testing

/// Where an assertion was written, for the failure it reports.
///
/// Functions that check something take a `location: TestLocation = TestLocation()` parameter,
/// so that a failure points at the caller's line, not at the helper's.
public struct TestLocation: Sendable {
  /// The file's `#fileID` (`Module/File.swift`).
  public var fileID: String
  /// The file's full path.
  public var filePath: String
  /// The line, from 1.
  public var line: Int
  /// The column, from 1.
  public var column: Int

  /// Captures the location of the caller: leave every argument at its default.
  ///
  /// - Parameters:
  ///   - fileID: The caller's `#fileID`.
  ///   - filePath: The caller's `#filePath`.
  ///   - line: The caller's `#line`.
  ///   - column: The caller's `#column`.
  public init(
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }
}

/// How a ``FeatureTestStore`` reports a failed expectation: to Swift Testing by default, or anywhere
/// else (a recorder in a test of the test store itself).
public protocol AssertionProvider: Sendable {
  /// Reports a failed expectation.
  ///
  /// - Parameters:
  ///   - message: What was expected and what happened.
  ///   - location: Where the expectation was written.
  func fail(_ message: String, at location: TestLocation)
}

extension AssertionProvider {
  /// Fails with `message` and a diff of the two values unless they are equal.
  ///
  /// The diff is swift-custom-dump's: `−` lines are expected and missing, `+` lines are there
  /// instead, so a mismatch deep in a large state shows as the lines that differ.
  ///
  /// - Parameters:
  ///   - actual: The value the code under test produced.
  ///   - expected: The value the test expects.
  ///   - message: What is being compared, the first line of the failure.
  ///   - location: Where the expectation was written.
  public func assertEqual<Value: Equatable>(
    _ actual: Value, _ expected: Value, _ message: String, at location: TestLocation
  ) {
    guard actual != expected else { return }
    let diff = CustomDump.diff(expected, actual) ?? "expected: \(expected)\nactual:   \(actual)"
    fail("\(message): (- expected, + actual)\n\(diff)", at: location)
  }
}

/// Records a Swift Testing issue: the test fails.
public struct SwiftTestingAssertionProvider: AssertionProvider {
  /// Creates the provider.
  public init() {}

  public func fail(_ message: String, at location: TestLocation) {
    Issue.record(
      Comment(rawValue: message),
      sourceLocation: SourceLocation(
        fileID: location.fileID, filePath: location.filePath, line: location.line,
        column: location.column))
  }
}
