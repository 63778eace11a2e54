import Synchronization

/// The values a ``QueryClientCache`` holds, readable without entering the cache actor: the fast
/// path of a fresh cache hit.
///
/// The cache actor is the only writer: it updates a key here in the same actor turn that
/// changes the key's entry (a fetch stored, `setQueryData`, an invalidation, a collection), so
/// by the time such a call returns, no reader can see the old value. A reader (any thread, the
/// main actor included) takes the lock, looks the key up and leaves: no actor hop, no
/// suspension. Whether a value is fresh depends on the caller's `staleTime`, so the reader
/// decides that, on the client's clock.
@usableFromInline
final class CachedValues: Sendable {
  /// A key's cached value, as its entry holds it.
  @usableFromInline
  struct Value: Sendable {
    @usableFromInline let value: any Sendable
    let valueType: ObjectIdentifier
    let typeName: String
    @usableFromInline let updatedAt: Duration
    /// The entry's gc time: a fetch asking for a longer one must go through the cache, which
    /// extends it.
    let gcTime: Duration
  }

  private let values = Mutex<[QueryKey: Value]>([:])

  /// The value cached for `key`, if any.
  ///
  /// - Complexity: O(*k*) to hash the key (*k* parts).
  func value(for key: QueryKey) -> Value? {
    values.withLock { $0[key] }
  }

  /// Records `key`'s value, or its absence.
  ///
  /// - Complexity: O(*k*) to hash the key (*k* parts); amortized O(1) more to release capacity.
  func set(_ value: Value?, for key: QueryKey) {
    // NB: the old value is released outside the lock.
    let old = values.withLock { values in
      guard let value else {
        defer { values.releaseCapacityIfSparse() }
        return values.removeValue(forKey: key)
      }
      return values.updateValue(value, forKey: key)
    }
    _ = old
  }

  /// The number of values held.
  var count: Int { values.withLock { $0.count } }

  /// The capacity of the dictionary holding them (for tests of capacity release).
  var capacity: Int { values.withLock { $0.capacity } }
}
