import GRDB
import Logging
import Persistence

extension EntityTable {
  /// The current rows of the ids the log names after `after` and through `through` (but those
  /// written by `origin`), as remote changes: one per row, in the order of its last record; a
  /// row gone since is a deletion, a row changed again since is delivered at its newer version.
  func remoteChanges(
    after: Int64, through: Int64, skipping origin: String, book: VersionBook, in db: Database,
    logger: Logger
  ) throws -> RemoteChanges<Entity> {
    try checkColumns(db)
    let rows = try Row.fetchCursor(
      db,
      sql: """
        SELECT entity_id, version, origin FROM \(ChangeLog.table)
        WHERE seq > ? AND seq <= ? AND table_name = ? AND origin <> ?
        ORDER BY seq
        """, arguments: [after, through, name, origin])
    var latest: [DatabaseValue: LatestChange] = [:]
    var order = 0
    while let row = try rows.next() {
      let key: DatabaseValue = row[0]
      order += 1
      latest[key] = LatestChange(
        order: order, logVersion: try row.decode(Int64.self, atIndex: 1),
        origin: try row.decode(String.self, atIndex: 2))
    }
    // NB: each row read by its id after the log, not joined to it: the entity's columns could
    // share a name with the log's.
    let current = try db.cachedStatement(sql: "SELECT * FROM \(quotedName) WHERE id = ?")
    var changes: [RemoteChanges<Entity>.Change] = []
    changes.reserveCapacity(latest.count)
    for (key, row) in latest.sorted(by: { $0.value.order < $1.value.order }) {
      guard let id = Entity.ID.fromDatabaseValue(key) else {
        logger.error(
          "change feed: a row's id does not convert to the entity's id; skipped",
          metadata: ["table": "\(name)", "id": "\(key)"])
        continue
      }
      guard let found = try Row.fetchOne(current, arguments: [key]) else {
        changes.append(.init(id: id, entity: nil, version: row.logVersion, origin: row.origin))
        continue
      }
      do {
        changes.append(
          .init(
            id: id, entity: try decode(found), version: try found.decode(forColumn: "version"),
            origin: row.origin, position: try found.decode(forColumn: "position")))
      } catch {
        logger.error(
          "change feed: a row does not decode; skipped",
          metadata: ["table": "\(name)", "id": "\(id)", "error": "\(error)"])
      }
    }
    return RemoteChanges(
      table: name, changes: changes, versions: book.table(name, keyedBy: Entity.ID.self),
      key: { $0 })
  }

  /// Every difference between the table and the versions `book` has seen, as remote changes:
  /// rows newer than seen (or never seen), and rows seen that are gone (deletions).
  ///
  /// - Complexity: O(*n*), the rows of the table.
  func differences(from book: VersionBook, in db: Database, logger: Logger) throws
    -> RemoteChanges<Entity>
  {
    let versions = book.table(name, keyedBy: Entity.ID.self)
    try checkColumns(db)
    var unseen = versions.seen
    var changes: [RemoteChanges<Entity>.Change] = []
    let rows = try Row.fetchCursor(
      db, sql: "SELECT * FROM \(quotedName) ORDER BY position, rowid")
    while let row = try rows.next() {
      let version = try row.decode(Int64.self, forColumn: "version")
      let entity: Entity
      do {
        entity = try decode(row)
      } catch {
        logger.error(
          "change feed: a row does not decode; skipped",
          metadata: ["table": "\(name)", "id": "\(row[0] as DatabaseValue)", "error": "\(error)"])
        continue
      }
      let seen = unseen.removeValue(forKey: entity.id)
      guard seen.map({ $0 < version }) ?? true else { continue }
      changes.append(
        .init(
          id: entity.id, entity: entity, version: version, origin: "database",
          position: try row.decode(forColumn: "position")))
    }
    for (id, version) in unseen {
      changes.append(.init(id: id, entity: nil, version: version + 1, origin: "database"))
    }
    return RemoteChanges(table: name, changes: changes, versions: versions, key: { $0 })
  }
}

/// The last change the log records of one row, and the row now.
private struct LatestChange {
  var order: Int
  var logVersion: Int64
  var origin: String
}
