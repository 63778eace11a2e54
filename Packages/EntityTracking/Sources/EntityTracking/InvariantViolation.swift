/// A storage invariant of an `EntityStore` or a `ChangeSet` that does not hold: which one, and
/// the whole state.
struct InvariantViolation: Error, CustomStringConvertible {
  let description: String
}
