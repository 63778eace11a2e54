extension EntityStore: RandomAccessCollection {
  /// A position in the store. Its own type (not `Int`) so that `store[id]` always means the
  /// lookup by id, even when ids are integers. Positions stay valid until the next mutation.
  public struct Index: Comparable, Hashable, Sendable {
    @usableFromInline let slot: Int

    @usableFromInline
    init(slot: Int) {
      self.slot = slot
    }

    @inlinable
    public static func < (lhs: Index, rhs: Index) -> Bool { lhs.slot < rhs.slot }
  }

  /// The first live slot.
  ///
  /// - Complexity: O(1) when no deletion awaits compaction; otherwise O(*k*), *k* the number of
  ///   leading tombstones.
  @inlinable
  public var startIndex: Index {
    Index(slot: slots.firstIndex { $0 != nil } ?? slots.count)
  }

  @inlinable
  public var endIndex: Index { Index(slot: slots.count) }

  @inlinable
  public subscript(position: Index) -> Entity {
    guard let entity = slots[position.slot] else {
      preconditionFailure("No entity at position \(position.slot): it was deleted")
    }
    return entity
  }

  @inlinable
  public func index(after index: Index) -> Index {
    var next = index.slot + 1
    while next < slots.count, slots[next] == nil { next += 1 }
    return Index(slot: next)
  }

  @inlinable
  public func index(before index: Index) -> Index {
    var previous = index.slot - 1
    while previous > 0, slots[previous] == nil { previous -= 1 }
    return Index(slot: previous)
  }

  /// - Complexity: O(1) when no deletion awaits compaction (see ``compact()``); otherwise
  ///   O(|*distance*| + tombstones crossed).
  @inlinable
  public func index(_ index: Index, offsetBy distance: Int) -> Index {
    if slots.count == positions.count { return Index(slot: index.slot + distance) }
    var result = index
    if distance >= 0 {
      for _ in 0..<distance { result = self.index(after: result) }
    } else {
      for _ in 0..<(-distance) { result = self.index(before: result) }
    }
    return result
  }

  /// - Complexity: O(1) when no deletion awaits compaction; otherwise O(*n*).
  public func distance(from start: Index, to end: Index) -> Int {
    if slots.count == positions.count { return end.slot - start.slot }
    let (low, high) = start <= end ? (start.slot, end.slot) : (end.slot, start.slot)
    let live = slots[low..<high].reduce(0) { $0 + ($1 == nil ? 0 : 1) }
    return start <= end ? live : -live
  }
}

extension EntityStore {
  /// Iterates the entities in order, stepping over tombstones without index arithmetic.
  public struct Iterator: IteratorProtocol {
    @usableFromInline var slots: IndexingIterator<[Entity?]>

    @inlinable
    init(slots: [Entity?]) {
      self.slots = slots.makeIterator()
    }

    @inlinable @inline(__always)
    public mutating func next() -> Entity? {
      while let slot = slots.next() {
        if let entity = slot { return entity }
      }
      return nil
    }
  }

  @inlinable @inline(__always)
  public func makeIterator() -> Iterator {
    Iterator(slots: slots)
  }
}

extension EntityStore: ExpressibleByArrayLiteral {
  /// A store holding these entities in order, recording no changes.
  public init(arrayLiteral entities: Entity...) {
    self.init(entities)
  }
}
