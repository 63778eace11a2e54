extension EntityStore: Equatable {
  /// Equal entities in the same order; recorded changes are ignored.
  public static func == (lhs: EntityStore, rhs: EntityStore) -> Bool {
    lhs.count == rhs.count && lhs.elementsEqual(rhs)
  }
}
