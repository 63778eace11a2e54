// NB: a `BidirectionalCollection`, not a `RandomAccessCollection`: with tombstones in the
// storage, an entity's offset is not known in O(1), and claiming random access would make
// `index(_:offsetBy:)` and `distance(from:to:)` silently O(n). What the protocol promises in O(1)
// (startIndex, endIndex, count, subscript) is O(1) here; see the type's documentation.
extension EntityStore: BidirectionalCollection {
  /// A position in the store. Its own type (not `Int`) so that `store[id]` always means the
  /// lookup by id, even when ids are integers. Positions stay valid until the next mutation.
  public struct Index: Comparable, Hashable, Sendable {
    @usableFromInline let slot: Int

    @inlinable
    init(slot: Int) {
      self.slot = slot
    }

    /// Whether `lhs` comes before `rhs` in the store.
    @inlinable
    public static func < (lhs: Index, rhs: Index) -> Bool { lhs.slot < rhs.slot }
  }

  /// The position of the entity with this id, or `nil` when none is stored: where to start
  /// reading its neighbours (`index(before:)`, `index(after:)`).
  ///
  /// - Parameter id: The id to look up.
  /// - Complexity: O(1).
  @inlinable
  public func index(forID id: ID) -> Index? {
    positions[id].map { Index(slot: $0) }
  }

  /// The position of the first entity, or ``endIndex`` when the store is empty.
  @inlinable
  public var startIndex: Index { Index(slot: firstLiveSlot) }

  /// The position one past the last entity.
  @inlinable
  public var endIndex: Index { Index(slot: slots.count) }

  /// The entity at `position`.
  ///
  /// - Parameter position: A valid position of an entity: not ``endIndex``, and taken from this
  ///   store since its last mutation.
  @inlinable
  public subscript(position: Index) -> Entity {
    guard let entity = slots[position.slot] else {
      preconditionFailure("No entity at position \(position.slot): it was deleted")
    }
    return entity
  }

  /// The position after `index`.
  ///
  /// - Parameter index: A valid position before ``endIndex``.
  /// - Returns: The position of the next entity, or ``endIndex``.
  /// - Complexity: O(1 + *t*), where *t* is the number of tombstones skipped; O(1) amortized
  ///   over a traversal, since a store never holds more than max(16, `count`) tombstones.
  @inlinable
  public func index(after index: Index) -> Index {
    precondition(index.slot < slots.count, "Cannot advance past endIndex")
    var next = index.slot + 1
    while next < slots.count, slots[next] == nil { next += 1 }
    return Index(slot: next)
  }

  /// The position before `index`.
  ///
  /// - Parameter index: A valid position after ``startIndex``.
  /// - Returns: The position of the previous entity.
  /// - Complexity: O(1 + *t*), where *t* is the number of tombstones skipped; O(1) amortized
  ///   over a traversal, and O(1) from ``endIndex`` (the last slot is never a tombstone).
  @inlinable
  public func index(before index: Index) -> Index {
    precondition(index.slot > firstLiveSlot, "Cannot move before startIndex")
    var previous = index.slot - 1
    while slots[previous] == nil { previous -= 1 }
    return Index(slot: previous)
  }

  /// The position `distance` entities away from `index`.
  ///
  /// - Parameters:
  ///   - index: A valid position.
  ///   - distance: How many entities to move: forward if positive, backward if negative. The
  ///     result must be a valid position.
  /// - Returns: The position `distance` entities from `index`.
  /// - Complexity: O(1) when the store holds no tombstone (after ``compact()``); otherwise
  ///   O(*k*), where *k* is the number of slots crossed (|`distance`| plus the tombstones
  ///   between).
  @inlinable
  public func index(_ index: Index, offsetBy distance: Int) -> Index {
    if slots.count == positions.count {
      let slot = index.slot + distance
      precondition(slot >= 0 && slot <= slots.count, "Index offset out of bounds")
      return Index(slot: slot)
    }
    var result = index
    if distance >= 0 {
      for _ in 0..<distance { formIndex(after: &result) }
    } else {
      for _ in 0..<(-distance) { formIndex(before: &result) }
    }
    return result
  }

  /// The position `distance` entities away from `index`, unless that passes `limit`.
  ///
  /// - Parameters:
  ///   - index: A valid position.
  ///   - distance: How many entities to move: forward if positive, backward if negative.
  ///   - limit: A valid position that the result must not pass.
  /// - Returns: The position `distance` entities from `index`, or `nil` if it would be beyond
  ///   `limit` in the direction of the move.
  /// - Complexity: O(1) when the store holds no tombstone (after ``compact()``); otherwise
  ///   O(*k*), where *k* is the number of slots crossed.
  @inlinable
  public func index(_ index: Index, offsetBy distance: Int, limitedBy limit: Index) -> Index? {
    if slots.count == positions.count {
      let room = limit.slot - index.slot
      if distance > 0 ? (room >= 0 && room < distance) : (room <= 0 && distance < room) {
        return nil
      }
      return self.index(index, offsetBy: distance)
    }
    var result = index
    if distance >= 0 {
      for _ in 0..<distance {
        if result == limit { return nil }
        formIndex(after: &result)
      }
    } else {
      for _ in 0..<(-distance) {
        if result == limit { return nil }
        formIndex(before: &result)
      }
    }
    return result
  }

  /// The number of entities from `start` to `end`: negative when `end` comes first.
  ///
  /// - Parameters:
  ///   - start: A valid position.
  ///   - end: Another valid position.
  /// - Returns: How many steps of `index(after:)` lead from `start` to `end` (negated when `end`
  ///   is before `start`).
  /// - Complexity: O(1) when the store holds no tombstone (after ``compact()``); otherwise
  ///   O(*k*), where *k* is the number of slots between the two positions.
  @inlinable
  public func distance(from start: Index, to end: Index) -> Int {
    if slots.count == positions.count { return end.slot - start.slot }
    let (low, high) = start <= end ? (start.slot, end.slot) : (end.slot, start.slot)
    var live = 0
    for slot in low..<high where slots[slot] != nil { live += 1 }
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

    /// The next entity, or `nil` after the last one.
    ///
    /// - Complexity: O(1 + *t*), where *t* is the number of tombstones skipped; O(1) amortized
    ///   over the whole iteration.
    @inlinable @inline(__always)
    public mutating func next() -> Entity? {
      while let slot = slots.next() {
        if let entity = slot { return entity }
      }
      return nil
    }
  }

  /// An iterator over the entities in order.
  @inlinable @inline(__always)
  public func makeIterator() -> Iterator {
    Iterator(slots: slots)
  }
}

extension EntityStore: ExpressibleByArrayLiteral {
  /// A store holding these entities in order, recording no changes.
  ///
  /// - Parameter entities: The entities, in the order to keep.
  /// - Complexity: O(*m*), where *m* is the number of entities given.
  public init(arrayLiteral entities: Entity...) {
    self.init(entities)
  }
}
