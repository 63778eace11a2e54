import Testing

/// Where an assertion was written, for the failure it reports.
public struct TestLocation: Sendable {
  public var fileID: String
  public var filePath: String
  public var line: Int
  public var column: Int

  public init(
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }
}

/// How a ``TestStore`` reports a failed expectation: to Swift Testing by default, or anywhere
/// else (a recorder in a test of the test store itself).
public protocol AssertionProvider: Sendable {
  func fail(_ message: String, at location: TestLocation)
}

extension AssertionProvider {
  /// Fails with `message` and both values unless they are equal.
  public func assertEqual<Value: Equatable>(
    _ actual: Value, _ expected: Value, _ message: String, at location: TestLocation
  ) {
    guard actual != expected else { return }
    fail("\(message)\n  expected: \(expected)\n  actual:   \(actual)", at: location)
  }
}

/// Records a Swift Testing issue: the test fails.
public struct SwiftTestingAssertionProvider: AssertionProvider {
  public init() {}

  public func fail(_ message: String, at location: TestLocation) {
    Issue.record(
      Comment(rawValue: message),
      sourceLocation: SourceLocation(
        fileID: location.fileID, filePath: location.filePath, line: location.line,
        column: location.column))
  }
}
