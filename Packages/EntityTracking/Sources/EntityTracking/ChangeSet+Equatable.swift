extension ChangeSet: Equatable {
  /// Whether both hold the same changes in the same order.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes.
  @inlinable
  public static func == (lhs: ChangeSet, rhs: ChangeSet) -> Bool {
    lhs.entries == rhs.entries
  }
}

extension ChangeSet: CustomStringConvertible {
  /// The changes in order, e.g. `[+2, -1]` for an upsert of 2 then a deletion of 1.
  ///
  /// - Complexity: O(*c*), where *c* is the number of changes.
  public var description: String {
    let changes = entries.map { change in
      switch change {
      case .upsert(let id): "+\(id)"
      case .deletion(let id): "-\(id)"
      }
    }
    return "[\(changes.joined(separator: ", "))]"
  }
}
