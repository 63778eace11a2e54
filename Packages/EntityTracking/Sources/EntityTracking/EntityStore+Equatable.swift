extension EntityStore: Equatable {
  /// Whether both hold equal entities in the same order; recorded changes are ignored.
  ///
  /// - Complexity: O(*n*), where *n* is the number of entities; O(1) when the counts differ.
  public static func == (lhs: EntityStore, rhs: EntityStore) -> Bool {
    lhs.count == rhs.count && lhs.elementsEqual(rhs)
  }
}
