/// What changed between two states, path by path: what an action did to the state.
public struct StateDiff: Sendable, Hashable, Codable {
  /// One changed place of the state.
  public struct Change: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where, from the root: object keys, array indices, and `[id=…]` for an element of an
    /// array of identified objects (an `EntityStore`), as `cards[id=3].title`.
    public let path: String
    /// The value before (`nil`: it was not there).
    public let before: JSONValue?
    /// The value after (`nil`: it is gone).
    public let after: JSONValue?

    public var description: String {
      switch (before, after) {
      case (nil, let after?): "+ \(path): \(after)"
      case (let before?, nil): "- \(path): \(before)"
      default: "~ \(path): \(before ?? .null) → \(after ?? .null)"
      }
    }
  }

  /// The changes, in path order.
  public let changes: [Change]

  /// The differences between `before` and `after`, down to the first values that differ.
  ///
  /// - Complexity: O(*n*), where *n* is the number of values in both.
  public init(from before: JSONValue, to after: JSONValue) {
    var changes: [Change] = []
    Self.compare(before, after, at: "", into: &changes)
    self.changes = changes
  }

  /// Whether nothing changed.
  public var isEmpty: Bool { changes.isEmpty }

  private static func compare(
    _ before: JSONValue, _ after: JSONValue, at path: String, into changes: inout [Change]
  ) {
    guard before != after else { return }
    switch (before, after) {
    case (.object(let old), .object(let new)):
      for key in Set(old.keys).union(new.keys).sorted() {
        let place = path.isEmpty ? key : path + "." + key
        switch (old[key], new[key]) {
        case (let was?, let now?): compare(was, now, at: place, into: &changes)
        case (let was, let now): changes.append(Change(path: place, before: was, after: now))
        }
      }
    case (.array(let old), .array(let new)):
      // NB: entities by id: deleting the first card changes one element, not every index.
      if let oldByID = identified(old), let newByID = identified(new) {
        let newIDs = new.compactMap(id(of:))
        let ids = old.compactMap(id(of:)) + newIDs.filter { oldByID[$0] == nil }
        for id in ids {
          let place = path + "[id=\(id)]"
          switch (oldByID[id], newByID[id]) {
          case (let was?, let now?): compare(was, now, at: place, into: &changes)
          case (let was, let now): changes.append(Change(path: place, before: was, after: now))
          }
        }
        let kept = old.compactMap(id(of:)).filter { newByID[$0] != nil }
        if kept != newIDs.filter({ oldByID[$0] != nil }) {
          changes.append(
            Change(
              path: path + "[order]", before: .array(kept.map(JSONValue.string)),
              after: .array(newIDs.filter { oldByID[$0] != nil }.map(JSONValue.string))))
        }
        return
      }
      for index in 0..<max(old.count, new.count) {
        let place = path.isEmpty ? "\(index)" : path + ".\(index)"
        switch (index < old.count ? old[index] : nil, index < new.count ? new[index] : nil) {
        case (let was?, let now?): compare(was, now, at: place, into: &changes)
        case (let was, let now): changes.append(Change(path: place, before: was, after: now))
        }
      }
    default:
      changes.append(Change(path: path.isEmpty ? "." : path, before: before, after: after))
    }
  }

  /// The `id` of an object, as text.
  private static func id(of value: JSONValue) -> String? {
    guard case .object(let object) = value, let id = object["id"] else { return nil }
    switch id {
    case .string(let string): return string
    case .number(let number): return number == number.rounded() ? "\(Int(number))" : "\(number)"
    default: return nil
    }
  }

  /// The elements by id, if every element is an object with a unique `id`.
  private static func identified(_ array: [JSONValue]) -> [String: JSONValue]? {
    var byID: [String: JSONValue] = [:]
    for element in array {
      guard let id = id(of: element), byID.updateValue(element, forKey: id) == nil else {
        return nil
      }
    }
    return byID
  }
}
