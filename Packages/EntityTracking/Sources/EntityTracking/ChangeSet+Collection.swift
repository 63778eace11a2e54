extension ChangeSet: RandomAccessCollection {
  /// The position of the first change: always 0.
  @inlinable public var startIndex: Int { 0 }

  /// The position one past the last change: the number of changes.
  @inlinable public var endIndex: Int { entries.count }

  /// The change at `position`, counting changes in first-change order from 0.
  ///
  /// - Parameter position: A valid position: `startIndex <= position < endIndex`.
  @inlinable
  public subscript(position: Int) -> Change {
    entries[position]
  }
}

extension ChangeSet: ExpressibleByArrayLiteral {
  /// A change set recording these changes in order, as ``init(_:)`` does.
  ///
  /// ```swift
  /// let changes: ChangeSet<Int> = [.upsert(2), .deletion(1)]
  /// ```
  ///
  /// - Parameter changes: The changes, earliest first.
  /// - Complexity: O(*m*), where *m* is the number of changes given.
  @inlinable
  public init(arrayLiteral changes: Change...) {
    self.init(changes)
  }
}
