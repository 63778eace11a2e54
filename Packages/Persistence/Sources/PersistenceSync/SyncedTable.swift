import GRDB
import Persistence
public import PersistenceSQLite

import struct Foundation.Data
import class Foundation.JSONEncoder

/// A table a ``SyncReplica`` keeps in step with its remote: the app's `EntityTable`, whose rows
/// travel as JSON.
public struct SyncedTable: Sendable {
  /// The table's name, the same locally and on the remote.
  public let name: String
  /// The text of a stored id (a change-log record's), `nil` when it is not the entity's.
  let id: @Sendable (DatabaseValue) -> String?
  /// The row of an id as JSON now, `nil` when there is none.
  let json: @Sendable (Database, String) throws -> String?
  /// The batch that writes the remote's rows (their JSON, `nil` for a deletion) whatever
  /// their local version, and the ids it could not take, with why.
  let write: @Sendable ([(id: String, json: String?)]) -> (SQLiteBatch, [(String, any Error)])

  /// Syncs `table`.
  public init<Entity>(_ table: EntityTable<Entity>) {
    name = table.name
    id = { key in Entity.ID.fromDatabaseValue(key).map { "\($0)" } }
    json = { db, text in
      guard let id = table.id(described: text), let entity = try table.entity(id, in: db) else {
        return nil
      }
      return String(decoding: try JSONEncoder().encode(entity), as: UTF8.self)
    }
    // NB: the remote's rows overwrite the local ones: the replica writes only rows with no
    // local change waiting to be pushed, checked in the same transaction.
    let overwriting = EntityTable<Entity>(table.name, conflictPolicy: .lastWriterWins)
    write = { rows in
      var writes: [Entity] = []
      var deletions: [Entity.ID] = []
      var refused: [(String, any Error)] = []
      for row in rows {
        guard let id = table.id(described: row.id) else {
          refused.append((row.id, SyncError.unknownID(table: table.name, id: row.id)))
          continue
        }
        guard let json = row.json else {
          deletions.append(id)
          continue
        }
        do {
          writes.append(try table.decode(json, id: row.id))
        } catch {
          refused.append((row.id, error))
        }
      }
      return (
        SQLiteBatch(EntityChanges(writes: writes, deletions: deletions), into: overwriting),
        refused
      )
    }
  }
}
