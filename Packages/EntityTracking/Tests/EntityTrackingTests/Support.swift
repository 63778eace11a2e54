import Testing

@testable import EntityTracking

struct Item: Identifiable, Equatable, Sendable, Codable {
  let id: Int
  var value: Int
}

typealias Change = ChangeSet<Int>.Change

/// Fails the current test with the store's state if a storage invariant does not hold.
func expectInvariants(
  _ store: EntityStore<Item>, sourceLocation: SourceLocation = #_sourceLocation
) {
  do {
    try store.checkInvariants()
  } catch {
    Issue.record("\(error)", sourceLocation: sourceLocation)
  }
}

/// Fails the current test with the change set's state if a storage invariant does not hold.
func expectInvariants(
  _ changes: ChangeSet<Int>, sourceLocation: SourceLocation = #_sourceLocation
) {
  do {
    try changes.checkInvariants()
  } catch {
    Issue.record("\(error)", sourceLocation: sourceLocation)
  }
}

/// The naive reference the store must agree with: an array of items, and every changed id once
/// in first-change order with its last operation, kept by linear search.
struct ReferenceModel {
  var items: [Item] = []
  var changes: [Change] = []

  func index(of id: Int) -> Int? { items.firstIndex { $0.id == id } }

  /// The last operation wins; an id keeps the place of its first change.
  mutating func record(_ change: Change) {
    if let index = changes.firstIndex(where: { $0.id == change.id }) {
      changes[index] = change
    } else {
      changes.append(change)
    }
  }

  mutating func set(_ item: Item) {
    if let index = index(of: item.id) {
      if items[index] == item { return }
      items[index] = item
    } else {
      items.append(item)
    }
    record(.upsert(item.id))
  }

  mutating func delete(_ id: Int) {
    guard let index = index(of: id) else { return }
    items.remove(at: index)
    record(.deletion(id))
  }

  /// Restores `restored` by the edits `restore(from:)` stands for: deletes the missing ids,
  /// then, in `restored`'s order, sets in place each entity of the longest run already here in
  /// the same order, and deletes and inserts again every other.
  mutating func restore(_ restored: [Item]) {
    for item in items where !restored.contains(where: { $0.id == item.id }) { delete(item.id) }
    let found = restored.map { index(of: $0.id) ?? -1 }
    let stays = EntityStore<Item>.longestIncreasingRun(found)
    for offset in restored.indices {
      let item = restored[offset]
      if found[offset] < 0 || !stays[offset] || items[found[offset]] != item {
        record(.upsert(item.id))
      }
    }
    items = restored
    precondition(items == restored, "the model restored \(items), not \(restored)")
  }
}

/// One operation of the model-based tests, decoded from an integer so that the property
/// library can shrink a failing sequence to a minimal one.
enum Operation: CustomStringConvertible {
  enum Kind: CaseIterable {
    case set, modify, delete, sortByValue, removeAll, merge, restore, drain, upsertMany
    case removeMany, compact
  }

  case set(Item)
  case modify(id: Int, value: Int)
  case delete(id: Int)
  case sortByValue
  case removeAll(value: Int)
  case merge([Item])
  case restore([Item])
  case drain
  case upsertMany([Item])
  case removeMany([Int])
  case compact

  /// The number of distinct codes for `kinds` over `ids` ids and `values` values.
  static func codeCount(kinds: [Kind] = Kind.allCases, ids: Int, values: Int) -> Int {
    kinds.count * ids * values
  }

  init(code: Int, ids: Int, values: Int, kinds: [Kind] = Kind.allCases) {
    let id = (code / kinds.count) % ids
    let value = (code / (kinds.count * ids)) % values
    let other = (id + 1) % ids
    switch kinds[code % kinds.count] {
    case .set: self = .set(Item(id: id, value: value))
    case .modify: self = .modify(id: id, value: value)
    case .delete: self = .delete(id: id)
    case .sortByValue: self = .sortByValue
    case .removeAll: self = .removeAll(value: value)
    case .merge: self = .merge([Item(id: id, value: value), Item(id: other, value: value + 1)])
    case .restore: self = .restore([Item(id: other, value: value), Item(id: id, value: value)])
    case .drain: self = .drain
    case .upsertMany:
      self = .upsertMany([Item(id: id, value: value), Item(id: other, value: value)])
    case .removeMany: self = .removeMany([other, id])
    case .compact: self = .compact
    }
  }

  var description: String {
    func list(_ items: [Item]) -> String { "\(items.map { "\($0.id)=\($0.value)" })" }
    return switch self {
    case .set(let item): "set(\(item.id)=\(item.value))"
    case .modify(let id, let value): "modify(\(id)=\(value))"
    case .delete(let id): "delete(\(id))"
    case .sortByValue: "sort"
    case .removeAll(let value): "removeAll(value==\(value))"
    case .merge(let items): "merge(\(list(items)))"
    case .restore(let items): "restore(\(list(items)))"
    case .drain: "drain"
    case .upsertMany(let items): "upsertMany(\(list(items)))"
    case .removeMany(let ids): "removeMany(\(ids))"
    case .compact: "compact"
    }
  }

  /// Applies the operation to both; for `.drain`, returns what the store drained and what the
  /// model expected.
  func apply(to store: inout EntityStore<Item>, _ model: inout ReferenceModel)
    -> (store: ChangeSet<Int>, model: [Change])?
  {
    let byValueThenID: (Item, Item) -> Bool = { ($0.value, $0.id) < ($1.value, $1.id) }
    switch self {
    case .set(let item):
      store[item.id] = item
      model.set(item)
    case .modify(let id, let value):
      store.modify(id) { $0.value = value }
      if model.index(of: id) != nil { model.set(Item(id: id, value: value)) }
    case .delete(let id):
      store[id] = nil
      model.delete(id)
    case .sortByValue:
      store.sort(by: byValueThenID)
      let before = model.items.map(\.id)
      model.items.sort(by: byValueThenID)
      let stays = EntityStore<Item>.longestIncreasingRun(
        model.items.map { item in before.firstIndex(of: item.id) ?? -1 })
      for (offset, item) in model.items.enumerated() where !stays[offset] {
        model.record(.upsert(item.id))
      }
    case .removeAll(let value):
      store.removeAll { $0.value == value }
      for item in model.items where item.value == value { model.record(.deletion(item.id)) }
      model.items.removeAll { $0.value == value }
    case .merge(let items):
      let keepLarger: (Item, Item) -> Item = { $1.value > $0.value ? $1 : $0 }
      store.merge(from: EntityStore(items), uniquingIDsWith: keepLarger)
      for incoming in items {
        if let index = model.index(of: incoming.id) {
          model.items[index] = keepLarger(model.items[index], incoming)
        } else {
          model.items.append(incoming)
        }
      }
    case .restore(let items):
      store.restore(from: EntityStore(items))
      model.restore(items)
    case .drain:
      let drained = store.drainChanges()
      let expected = model.changes
      model.changes = []
      return (drained, expected)
    case .upsertMany(let items):
      store.upsert(contentsOf: items)
      for item in items { model.set(item) }
    case .removeMany(let ids):
      store.remove(ids: ids)
      for id in ids { model.delete(id) }
    case .compact:
      store.compact()
    }
    return nil
  }
}

/// Runs `codes` against a store and the reference model, checking the store's invariants and
/// everything it exposes after every operation; returns the first disagreement.
func firstDisagreement(
  codes: [Int], ids: Int, values: Int, kinds: [Operation.Kind] = Operation.Kind.allCases
) -> String? {
  var store = EntityStore<Item>()
  var model = ReferenceModel()
  var done: [Operation] = []
  for code in codes {
    let operation = Operation(code: code, ids: ids, values: values, kinds: kinds)
    done.append(operation)
    let drained = operation.apply(to: &store, &model)
    if let disagreement = disagreement(store, model, drained: drained, ids: ids) {
      return "after \(done): \(disagreement)"
    }
  }
  return nil
}

/// Runs every sequence of `length` operations (over `kinds`, `ids` ids and `values` values)
/// against a store and the reference model, checking as ``firstDisagreement`` does after every
/// operation; sequences share their prefixes, so each prefix runs once. Returns the
/// disagreements found.
func disagreementsOfEverySequence(
  length: Int, ids: Int, values: Int, kinds: [Operation.Kind]
) -> [String] {
  let alphabet = Operation.codeCount(kinds: kinds, ids: ids, values: values)
  var failures: [String] = []
  func explore(_ store: EntityStore<Item>, _ model: ReferenceModel, _ done: [Operation]) {
    guard done.count < length else { return }
    for code in 0..<alphabet {
      let operation = Operation(code: code, ids: ids, values: values, kinds: kinds)
      var (store, model) = (store, model)
      let drained = operation.apply(to: &store, &model)
      if let disagreement = disagreement(store, model, drained: drained, ids: ids) {
        failures.append("after \(done + [operation]): \(disagreement)")
      } else {
        explore(store, model, done + [operation])
      }
    }
  }
  explore(EntityStore(), ReferenceModel(), [])
  return failures
}

/// Where the store disagrees with the model after an operation (`drained` is what a drain
/// returned); `nil` if nowhere.
func disagreement(
  _ store: EntityStore<Item>, _ model: ReferenceModel,
  drained: (store: ChangeSet<Int>, model: [Change])?, ids: Int
) -> String? {
  do {
    try store.checkInvariants()
    try store.changes.checkInvariants()
    try drained?.store.checkInvariants()
  } catch {
    return "\(error)"
  }
  if let drained {
    if Array(drained.store) != drained.model {
      return "drained \(drained.store), expected \(ChangeSet(drained.model))"
    }
    if let missing = drained.store.upserts.first(where: { store[$0] == nil }) {
      return "drained an upsert of \(missing), which is not stored"
    }
  }
  if let disagreement = collectionDisagreement(store, model.items) { return disagreement }
  for id in 0..<ids where store[id] != model.index(of: id).map({ model.items[$0] }) {
    return "lookup \(id) gave \(String(describing: store[id]))"
  }
  if Array(store.changes) != model.changes || store.hasChanges == model.changes.isEmpty {
    return "changes \(store.changes), expected \(ChangeSet(model.changes))"
  }
  return nil
}

/// Where the store, read as a collection, differs from `items`; `nil` if nowhere.
func collectionDisagreement(_ store: EntityStore<Item>, _ items: [Item]) -> String? {
  if store.values != items || Array(store) != items {
    return "values \(store.values), expected \(items)"
  }
  if store.count != items.count || store.isEmpty != items.isEmpty {
    return "count \(store.count), expected \(items.count)"
  }
  if store.first != items.first || store.last != items.last {
    return "first/last \(String(describing: store.first))/\(String(describing: store.last))"
  }
  if Array(store.reversed()) != items.reversed() {
    return "reversed \(Array(store.reversed()))"
  }
  if store.distance(from: store.startIndex, to: store.endIndex) != items.count
    || store.distance(from: store.endIndex, to: store.startIndex) != -items.count
  {
    return "distance from start to end is not \(items.count)"
  }
  for offset in items.indices {
    let index = store.index(store.startIndex, offsetBy: offset)
    if store[index] != items[offset]
      || store.index(store.endIndex, offsetBy: offset - items.count) != index
      || store.distance(from: store.startIndex, to: index) != offset
      || store.index(store.startIndex, offsetBy: offset, limitedBy: store.endIndex) != index
    {
      return "offset \(offset) gave \(store[index]), expected \(items[offset])"
    }
  }
  if store.index(store.startIndex, offsetBy: items.count + 1, limitedBy: store.endIndex) != nil
    || store.index(store.endIndex, offsetBy: -items.count - 1, limitedBy: store.startIndex) != nil
  {
    return "an offset past the limit was not refused"
  }
  return nil
}
