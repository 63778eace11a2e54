import EntityTracking

struct Item: Identifiable, Equatable, Sendable, Codable {
  let id: Int
  var value: Int
}

/// The naive reference the store must agree with: an array plus a last-operation-wins log.
struct ReferenceModel {
  var items: [Item] = []
  var upserts: Set<Int> = []
  var deletions: Set<Int> = []

  func index(of id: Int) -> Int? { items.firstIndex { $0.id == id } }

  mutating func recordUpsert(_ id: Int) {
    deletions.remove(id)
    upserts.insert(id)
  }

  mutating func recordDeletion(_ id: Int) {
    upserts.remove(id)
    deletions.insert(id)
  }

  mutating func set(_ item: Item) {
    if let index = index(of: item.id) {
      if items[index] == item { return }
      items[index] = item
    } else {
      items.append(item)
    }
    recordUpsert(item.id)
  }

  mutating func delete(_ id: Int) {
    guard let index = index(of: id) else { return }
    items.remove(at: index)
    recordDeletion(id)
  }
}

/// One operation of the model-based tests, decoded from an integer so that the property
/// library can shrink a failing sequence to a minimal one.
enum Operation: CustomStringConvertible {
  case set(Item)
  case modify(id: Int, value: Int)
  case delete(id: Int)
  case sortByValue
  case removeAll(value: Int)
  case merge([Item])
  case restore([Item])
  case drain
  case upsertMany([Item])

  static let kinds = 9

  init(code: Int, ids: Int, values: Int) {
    let id = (code / Self.kinds) % ids
    let value = (code / (Self.kinds * ids)) % values
    let other = (id + 1) % ids
    switch code % Self.kinds {
    case 0: self = .set(Item(id: id, value: value))
    case 1: self = .modify(id: id, value: value)
    case 2: self = .delete(id: id)
    case 3: self = .sortByValue
    case 4: self = .removeAll(value: value)
    case 5: self = .merge([Item(id: id, value: value), Item(id: other, value: value + 1)])
    case 6: self = .restore([Item(id: other, value: value), Item(id: id, value: value)])
    case 7: self = .drain
    default: self = .upsertMany([Item(id: id, value: value), Item(id: other, value: value)])
    }
  }

  var description: String {
    switch self {
    case .set(let item): "set(\(item.id)=\(item.value))"
    case .modify(let id, let value): "modify(\(id)=\(value))"
    case .delete(let id): "delete(\(id))"
    case .sortByValue: "sort"
    case .removeAll(let value): "removeAll(value==\(value))"
    case .merge(let items): "merge(\(items.map { "\($0.id)=\($0.value)" }))"
    case .restore(let items): "restore(\(items.map { "\($0.id)=\($0.value)" }))"
    case .drain: "drain"
    case .upsertMany(let items): "upsertMany(\(items.map { "\($0.id)=\($0.value)" }))"
    }
  }

  /// Applies the operation to both; returns the drained change sets for `.drain`.
  func apply(to store: inout EntityStore<Item>, _ model: inout ReferenceModel)
    -> (store: ChangeSet<Int>, model: ChangeSet<Int>)?
  {
    let byValueThenID: (Item, Item) -> Bool = { ($0.value, $0.id) < ($1.value, $1.id) }
    switch self {
    case .set(let item):
      store[item.id] = item
      model.set(item)
    case .modify(let id, let value):
      store.modify(id) { $0.value = value }
      if let index = model.index(of: id) {
        model.set(Item(id: id, value: value))
        _ = index
      }
    case .delete(let id):
      store[id] = nil
      model.delete(id)
    case .sortByValue:
      store.sort(by: byValueThenID)
      let before = model.items.map(\.id)
      model.items.sort(by: byValueThenID)
      for (offset, item) in model.items.enumerated() where before[offset] != item.id {
        model.recordUpsert(item.id)
      }
    case .removeAll(let value):
      store.removeAll { $0.value == value }
      for item in model.items where item.value == value { model.recordDeletion(item.id) }
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
      for item in model.items where !items.contains(where: { $0.id == item.id }) {
        model.recordDeletion(item.id)
      }
      for item in items where model.index(of: item.id).map({ model.items[$0] }) != item {
        model.recordUpsert(item.id)
      }
      model.items = items
    case .drain:
      // NB: the ordered drain must agree with the set view, once per id, with current values.
      let current = store
      let ordered = store.drainOrderedChanges()
      let upsertIDs = ordered.upserts.map(\.id)
      precondition(Set(upsertIDs).count == upsertIDs.count, "duplicate upsert in \(upsertIDs)")
      precondition(Set(ordered.deletions).count == ordered.deletions.count, "duplicate deletion")
      precondition(ordered.upserts.allSatisfy { current[$0.id] == $0 }, "stale upserted value")
      let drained = ChangeSet(upserts: Set(upsertIDs), deletions: Set(ordered.deletions))
      let expected = ChangeSet(upserts: model.upserts, deletions: model.deletions)
      model.upserts = []
      model.deletions = []
      return (drained, expected)
    case .upsertMany(let items):
      store.upsert(contentsOf: items)
      for item in items { model.set(item) }
    }
    return nil
  }
}

/// Runs `codes` against a store and the reference model; returns the first disagreement.
func firstDisagreement(codes: [Int], ids: Int, values: Int) -> String? {
  var store = EntityStore<Item>()
  var model = ReferenceModel()
  var done: [Operation] = []
  for code in codes {
    let operation = Operation(code: code, ids: ids, values: values)
    done.append(operation)
    if let drained = operation.apply(to: &store, &model), drained.store != drained.model {
      return "after \(done): drained \(drained.store), expected \(drained.model)"
    }
    if store.values != model.items || Array(store) != model.items {
      return "after \(done): values \(store.values), expected \(model.items)"
    }
    if store.count != model.items.count {
      return "after \(done): count \(store.count), expected \(model.items.count)"
    }
    for id in 0..<ids where store[id] != model.index(of: id).map({ model.items[$0] }) {
      return "after \(done): lookup \(id) gave \(String(describing: store[id]))"
    }
    if store.changes != ChangeSet(upserts: model.upserts, deletions: model.deletions) {
      return "after \(done): changes \(store.changes), expected \(model.upserts)/\(model.deletions)"
    }
  }
  return nil
}
