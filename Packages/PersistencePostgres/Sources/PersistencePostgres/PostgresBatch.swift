/// One writer's batch for a ``PostgresBackend``: its rows, encoded, and the table they go to.
public struct PostgresBatch: Sendable {
  struct Write: Sendable {
    let id: String
    /// The entity's JSON, or why it did not encode (reported when the flush runs): the server
    /// spreads it into the columns (`jsonb_populate_record`).
    let json: Result<String, any Error>
    /// The entity's position in the store's order; `nil` (a batch made without positions): a
    /// new row goes after the others, a row there keeps its place.
    let position: Double?
  }

  let table: String
  let quotedName: String
  let quotedSequence: String
  /// The entity's columns, quoted, in the table's order.
  let columns: [String]
  /// The SQL of a row `t` as the entity's JSON text.
  let rowJSON: String
  let lastWriterWins: Bool
  let writes: [Write]
  let deletions: [String]

  /// The number of writes and deletions.
  public var count: Int { writes.count + deletions.count }

  /// The batch of `write` alone.
  func only(write: Write) -> PostgresBatch {
    PostgresBatch(
      table: table, quotedName: quotedName, quotedSequence: quotedSequence, columns: columns,
      rowJSON: rowJSON,
      lastWriterWins: lastWriterWins, writes: [write], deletions: [])
  }

  /// The batch of the deletion of `id` alone.
  func only(deletion id: String) -> PostgresBatch {
    PostgresBatch(
      table: table, quotedName: quotedName, quotedSequence: quotedSequence, columns: columns,
      rowJSON: rowJSON,
      lastWriterWins: lastWriterWins, writes: [], deletions: [id])
  }
}
