extension ChangeSet {
  /// Verifies the storage invariants (each id once; the hash index covers every entry exactly
  /// when there are more than `linearSearchLimit`); tests call it through `@testable import`.
  ///
  /// - Throws: `InvariantViolation` naming the first invariant that fails, with the state.
  /// - Complexity: O(*c*), where *c* is the number of changes.
  func checkInvariants() throws(InvariantViolation) {
    func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(InvariantViolation)
    {
      guard condition else {
        throw InvariantViolation(
          description: "ChangeSet invariant broken: \(message())\n  entries: \(self)\n"
            + "  offsets: \(offsets)")
      }
    }
    var seen = Set<ID>(minimumCapacity: entries.count)
    for change in entries {
      try require(seen.insert(change.id).inserted, "\(change.id) is recorded twice")
    }
    if entries.count > Self.linearSearchLimit {
      try require(offsets.count == entries.count, "\(offsets.count) offsets for \(entries.count)")
      for (offset, change) in entries.enumerated() {
        try require(offsets[change.id] == offset, "\(change.id) is indexed at the wrong offset")
      }
    } else {
      try require(offsets.isEmpty, "\(entries.count) entries are indexed")
    }
  }
}
