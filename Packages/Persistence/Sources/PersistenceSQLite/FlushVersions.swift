public import Persistence

/// What a flush asks of a table's versions (each row's base, then what committed), as
/// closures made where the entity's id type is known.
///
/// NB: ``SQLiteBatch/init(_:into:)`` is inlinable and makes them in the app's module: the
/// version table's dictionaries are then hashed with the id's own type. Called from the
/// flush, which is generic, they looked generic metadata up for every row, a tenth of a
/// flush.
@usableFromInline
struct FlushVersions<ID: Hashable & Sendable>: Sendable {
  /// The base version of each row, in order (``VersionTable/bases(_:)``).
  @usableFromInline let bases: @Sendable (VersionTable<ID>, [ID]) -> VersionTable<ID>.FlushBases
  /// Records a committed flush of the rows of `ids` (``VersionTable/committed(_:flushed:dropped:)``):
  /// the rows written, by their offset in `ids`, then `ids`, then the rows dropped.
  @usableFromInline let committed:
    @Sendable (VersionTable<ID>, [WrittenRow], [ID], [ID: Int64?]) -> Void

  @inlinable
  init() {
    bases = { table, keys in table.bases(keys) }
    committed = { table, written, ids, dropped in
      var rows: [VersionTable<ID>.Written] = []
      rows.reserveCapacity(written.count)
      for index in written.indices {
        let row = written[index]
        rows.append(.init(key: ids[row.offset], version: row.version, isDeletion: row.isDeletion))
      }
      table.committed(rows, flushed: ids, dropped: dropped)
    }
  }
}

/// A row a flush wrote or deleted, by its offset in the batch's ids, at its new version.
@usableFromInline
struct WrittenRow: Sendable {
  @usableFromInline let offset: Int
  @usableFromInline let version: Int64
  @usableFromInline let isDeletion: Bool
}
