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
  /// Records a committed flush (``VersionTable/committed(_:flushed:dropped:)``).
  @usableFromInline let committed:
    @Sendable (VersionTable<ID>, [VersionTable<ID>.Written], [ID], [ID: Int64?]) -> Void

  @inlinable
  init() {
    bases = { table, keys in table.bases(keys) }
    committed = { table, written, flushed, dropped in
      table.committed(written, flushed: flushed, dropped: dropped)
    }
  }
}
