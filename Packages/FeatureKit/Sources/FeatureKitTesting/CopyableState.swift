/// A class state that can copy itself, so ``FeatureTestStore/send(_:expecting:location:)`` can keep the
/// state from before an action and compare.
///
/// A value state needs nothing: assigning it copies it. A class state without this conformance
/// cannot be compared with what it was (the old and new state are one object), so `expecting`
/// fails and says so rather than pass without checking.
///
/// ```swift
/// @Observable final class State: CopyableState, Equatable {
///   var count = 0
///   func copy() -> State { let copy = State(); copy.count = count; return copy }
///   static func == (lhs: State, rhs: State) -> Bool { lhs.count == rhs.count }
/// }
/// ```
public protocol CopyableState: AnyObject {
  /// A new object with the same values, which later changes to this one do not affect.
  ///
  /// - Returns: The copy.
  func copy() -> Self
}
