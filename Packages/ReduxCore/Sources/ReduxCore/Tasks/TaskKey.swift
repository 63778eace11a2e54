/// A task id of any ``TaskID`` type, compared and hashed by value.
struct TaskKey: Hashable, Sendable {
  private let base: any TaskID

  init(_ base: any TaskID) {
    self.base = base
  }

  static func == (lhs: TaskKey, rhs: TaskKey) -> Bool {
    AnyHashable(lhs.base) == AnyHashable(rhs.base)
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(AnyHashable(base))
  }
}
