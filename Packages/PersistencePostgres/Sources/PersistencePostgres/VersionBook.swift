import Synchronization

/// What one instance knows of each row's version: the version it last saw (loaded, wrote, or
/// applied from the change feed), and, for each row with a local change waiting for a flush,
/// the version that change was made against.
///
/// NB: the two differ when another instance's change arrives between a local edit and its
/// flush. The flush must be checked against the version the edit was made against, or it
/// would overwrite the other change without a conflict; so the base is taken when the change
/// is drained from the state (on the main actor, in order with the feed's changes applied
/// there), not when the flush runs.
final class VersionBook: Sendable {
  /// The versions of the rows of one table a flush writes: the base of each row, and the rows
  /// whose local change is dropped (a conflict resolved for the server's row).
  struct FlushBases: Sendable {
    /// The version each row was last seen at; a row missing is new to this instance.
    var versions: [String: Int64] = [:]
    /// Rows whose change is dropped, at the server's version (`nil`: the server deleted it).
    var dropped: [String: Int64?] = [:]
  }

  private struct Table {
    var seen: [String: Int64] = [:]
    /// Rows with a local change queued, and the version it was made against (`nil`: new).
    var queued: [String: Int64?] = [:]
    var dropped: [String: Int64?] = [:]
  }

  private let tables = Mutex<[String: Table]>([:])

  /// Records the versions of a table just loaded.
  func loaded(_ table: String, versions: [String: Int64]) {
    tables.withLock { $0[table, default: Table()].seen = versions }
  }

  /// Records that local changes to `ids` were drained: each keeps the version it was first
  /// changed at until a flush commits it.
  func queued(_ table: String, ids: some Sequence<String>) {
    edit(table) { table in
      for id in ids where table.queued[id] == nil { table.queued[id] = .some(table.seen[id]) }
    }
  }

  /// The bases of the rows a batch writes or deletes.
  func bases(_ table: String, ids: some Sequence<String>) -> FlushBases {
    tables.withLock { tables in
      var bases = FlushBases()
      guard let book = tables[table] else { return bases }
      for id in ids {
        let base: Int64? = if let queued = book.queued[id] { queued } else { book.seen[id] }
        bases.versions[id] = base
        if let dropped = book.dropped[id] { bases.dropped[id] = dropped }
      }
      return bases
    }
  }

  /// Records a committed flush: the versions it wrote, and that the rows of its batches (and
  /// the dropped ones) no longer wait for a flush.
  func committed(
    _ changes: [FlushOutcome.Change], batches: [PostgresBatch], dropped: [String: FlushBases]
  ) {
    tables.withLock { tables in
      for batch in batches {
        for write in batch.writes { tables[batch.table]?.queued[write.id] = nil }
        for id in batch.deletions { tables[batch.table]?.queued[id] = nil }
      }
      for (name, bases) in dropped {
        for (id, version) in bases.dropped {
          tables[name, default: Table()].seen[id] = version
          tables[name]?.dropped[id] = nil
        }
      }
      for change in changes {
        tables[change.table, default: Table()].seen[change.id] =
          change.isDeletion ? nil : change.version
      }
    }
  }

  /// Resolves a conflict for this instance's change: the next flush writes over `version`.
  func overwrite(_ table: String, id: String, at version: Int64?) {
    edit(table) { table in
      table.queued[id] = .some(version)
      table.dropped[id] = nil
    }
  }

  /// Resolves a conflict for the server's row: the next flush drops the local change.
  func drop(_ table: String, id: String, at version: Int64?) {
    edit(table) { $0.dropped[id] = .some(version) }
  }

  /// What to do with a change read from the feed.
  enum RemoteVerdict {
    /// Apply it: it is news (recorded as seen).
    case apply
    /// Skip it: this instance has seen that version or a later one (its own write, say).
    case alreadySeen
    /// Leave the row alone: a local change to it waits for a flush, which will report the
    /// conflict (applying it would hide the local change).
    case heldBack
  }

  /// Records a change read from the feed, if it is news.
  func applyRemote(_ table: String, id: String, version: Int64, isDeletion: Bool) -> RemoteVerdict {
    edit(table) { table in
      guard table.queued[id] == nil else { return .heldBack }
      if let seen = table.seen[id], seen >= version { return .alreadySeen }
      table.seen[id] = isDeletion ? nil : version
      return .apply
    }
  }

  private func edit<Result>(_ name: String, _ body: (inout Table) -> Result) -> Result {
    tables.withLock { body(&$0[name, default: Table()]) }
  }
}
