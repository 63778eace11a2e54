public import Persistence

/// What a flush asks of the versions of one batch's rows (their bases, then what committed),
/// as closures made where the entity's id type is known (``PostgresTable/batch(_:)``).
///
/// NB: the instance's version tables are keyed by the entity's id, as on SQLite, not by the
/// id's text: a drain, a flush's bases and its bookkeeping then hash an `Int` id where they
/// made and hashed a string, several times a row. And the initializer is inlinable, made by
/// the writer's (`StateWriter(keyPath:table:database:)`) in the app's module: specialized for
/// the app's id, the bookkeeping of a flush of 10,000 rows took a third of the time it took
/// run generic.
@usableFromInline
struct BatchVersions: Sendable {
  /// The version each row of the batch is written against, and the rows whose change is
  /// dropped (``/Persistence/VersionTable/bases(_:)``).
  @usableFromInline let bases: @Sendable (VersionBook) -> RowBases
  /// Records a committed flush of the batch (``/Persistence/VersionTable/committed(_:flushed:dropped:)``):
  /// the rows written, and the bases it was written at.
  @usableFromInline let committed: @Sendable (VersionBook, [WrittenRow], RowBases) -> Void

  /// - Parameters:
  ///   - table: The table's name.
  ///   - ids: The batch's rows: its writes, then its deletions.
  ///   - texts: Their ids as the table stores them, in the same order.
  @inlinable
  init<ID: Hashable & Sendable>(table: String, ids: [ID], texts: [String]) {
    bases = { book in
      let bases = book.table(table, keyedBy: ID.self).bases(ids)
      var rows = RowBases()
      for offset in bases.versions.indices {
        if let version = bases.versions[offset] { rows.versions[texts[offset]] = version }
      }
      if !bases.dropped.isEmpty {
        for offset in ids.indices {
          if let dropped = bases.dropped[ids[offset]] { rows.dropped[texts[offset]] = dropped }
        }
      }
      return rows
    }
    committed = { book, written, bases in
      var rows: [VersionTable<ID>.Written] = []
      rows.reserveCapacity(written.count)
      for row in written {
        rows.append(.init(key: ids[row.offset], version: row.version, isDeletion: row.isDeletion))
      }
      var dropped: [ID: Int64?] = [:]
      if !bases.dropped.isEmpty {
        for offset in ids.indices {
          if let version = bases.dropped[texts[offset]] { dropped[ids[offset]] = version }
        }
      }
      book.table(table, keyedBy: ID.self).committed(rows, flushed: ids, dropped: dropped)
    }
  }
}

/// A row a flush wrote or deleted, by its offset in its batch (the writes, then the
/// deletions), at its new version.
@usableFromInline
struct WrittenRow: Sendable {
  @usableFromInline let offset: Int
  @usableFromInline let version: Int64
  @usableFromInline let isDeletion: Bool
}
