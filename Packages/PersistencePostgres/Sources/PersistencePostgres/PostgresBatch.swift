/// One writer's batch for a ``PostgresBackend``: its rows, encoded, and the table they go to.
public struct PostgresBatch: Sendable {
  struct Write: Sendable {
    let id: String
    /// The write's place among the batch's writes.
    let offset: Int
    /// The place of the entity's first value in the batch's ``values``, or why it did not
    /// encode (reported when the flush runs).
    let row: Result<Int, any Error>
    /// The entity's position in the store's order; `nil` (a batch made without positions): a
    /// new row goes after the others, a row there keeps its place.
    let position: Double?
  }

  let table: String
  let quotedName: String
  let quotedSequence: String
  /// The entity's columns, quoted, in the table's order.
  let columns: [String]
  /// What each column stores.
  let kinds: [EntitySchema.Kind]
  /// The values of the writes' entities, row after row (``RowEncoder``).
  let values: [ColumnValue]
  /// The SQL of a row `t` as the entity's JSON text.
  let rowJSON: String
  let lastWriterWins: Bool
  let writes: [Write]
  let deletions: [String]
  /// The versions of the batch's rows, in the instance's ``/Persistence/VersionBook``.
  let versions: BatchVersions

  /// One array parameter per column, of the values of `writes`.
  ///
  /// - Throws: ``PostgresBackendError/unencodable(table:id:underlying:)`` for a write that did
  ///   not encode.
  func columnArrays(of writes: [Write]) throws(PostgresBackendError) -> [ColumnArray] {
    let rows = try writes.map { write throws(PostgresBackendError) in
      do {
        return try write.row.get()
      } catch {
        throw .unencodable(table: table, id: write.id, underlying: error)
      }
    }
    return kinds.indices.map {
      ColumnArray(values: values, rows: rows, column: $0, kind: kinds[$0])
    }
  }

  /// The number of writes and deletions.
  public var count: Int { writes.count + deletions.count }

  /// The batch of `write` alone.
  func only(write: Write) -> PostgresBatch {
    PostgresBatch(
      table: table, quotedName: quotedName, quotedSequence: quotedSequence, columns: columns,
      kinds: kinds, values: values, rowJSON: rowJSON,
      lastWriterWins: lastWriterWins, writes: [write], deletions: [], versions: versions)
  }

  /// The batch of the deletion of `id` alone.
  func only(deletion id: String) -> PostgresBatch {
    PostgresBatch(
      table: table, quotedName: quotedName, quotedSequence: quotedSequence, columns: columns,
      kinds: kinds, values: values, rowJSON: rowJSON,
      lastWriterWins: lastWriterWins, writes: [], deletions: [id], versions: versions)
  }
}
