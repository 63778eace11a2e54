import GRDB

import struct Foundation.FileAttributeKey
import struct Foundation.FileAttributeType
import class Foundation.FileManager
import class Foundation.NSNumber
import struct Foundation.ObjCBool
import struct Foundation.URL
import struct Foundation.UUID

/// The files of a database as found before anything opens them, and the checks that decide,
/// without writing a byte, whether the database may be opened.
///
/// NB: SQLite writes to a file as soon as a read-write connection opens it (GRDB sets up the
/// WAL with a transaction), and even a read-only connection creates `-wal` and `-shm` files it
/// then leaves behind. So the checks run first: on the file's size (never opening it ourselves:
/// see `init`), then through a connection opened `immutable` (no lock, no `-wal`, no `-shm`)
/// whenever no `-wal` file holds data that such a connection would not see.
struct DatabaseFile {
  enum State {
    case missing
    case empty
    case present
  }

  let path: String
  let state: State
  /// The size of the `-wal` file, `nil` when there is none.
  let logSize: Int?
  /// A rollback journal left by a crash: it must be rolled back (a write) before the file
  /// can be read consistently.
  let hasHotJournal: Bool
  let isWritable: Bool
  let directoryExists: Bool
  let directoryIsWritable: Bool

  init(path: String) throws(SQLiteDatabaseError) {
    self.path = path
    let files = FileManager.default
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    directoryExists =
      files.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue
    directoryIsWritable = files.isWritableFile(atPath: directory)
    logSize = Self.size(of: path + "-wal")
    hasHotJournal = (Self.size(of: path + "-journal") ?? 0) > 0
    guard files.fileExists(atPath: path) else {
      state = .missing
      isWritable = false
      return
    }
    let attributes: [FileAttributeKey: Any]
    do {
      attributes = try files.attributesOfItem(atPath: path)
    } catch {
      throw .cannotOpen(path: path)
    }
    guard attributes[.type] as? FileAttributeType != .typeDirectory else {
      throw .cannotOpen(path: path)
    }
    isWritable = files.isWritableFile(atPath: path)
    // NB: the file is never opened here, only stat'ed: closing a descriptor of a database file
    // drops every POSIX lock this process holds on it, those of SQLite's connections included.
    // Its bytes are read through SQLite (see `check`).
    state = (attributes[.size] as? NSNumber)?.intValue == 0 ? .empty : .present
  }

  /// The size of the file at `path`, `nil` when there is none. A file whose size cannot be
  /// read counts as holding data.
  private static func size(of path: String) -> Int? {
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    do {
      let attributes = try FileManager.default.attributesOfItem(atPath: path)
      return (attributes[.size] as? NSNumber)?.intValue ?? Int.max
    } catch {
      return Int.max
    }
  }

  /// What an open does with the file.
  enum Plan {
    /// Create it: it does not exist.
    case create
    /// Start a new database in the existing empty file: the app asked for it.
    case startInEmptyFile
    /// Check it, then open it.
    case open
  }

  /// Refuses, before anything is opened, what must not be: an empty file (unless `creation`
  /// allows it), a file that cannot be written when writing is asked for. (A file that is not
  /// a database is found by ``check(migrator:verifiesIntegrity:configuration:)``.)
  func plan(readOnly: Bool, creation: SQLiteDatabase.Creation) throws(SQLiteDatabaseError) -> Plan {
    switch state {
    case .missing:
      if readOnly || !directoryExists { throw .cannotOpen(path: path) }
      if !directoryIsWritable { throw .readOnly }
      return .create
    case .empty:
      guard creation == .ifMissingOrEmpty, !readOnly, (logSize ?? 0) == 0 else {
        throw .emptyFile(path: path)
      }
      if !isWritable || !directoryIsWritable { throw .readOnly }
      return .startInEmptyFile
    case .present:
      if !readOnly, !isWritable || !directoryIsWritable { throw .readOnly }
      return .open
    }
  }

  /// Creates a new database at `path`, whole: built and migrated under a temporary name in the
  /// same directory, then linked into place, which fails if the path exists. Another process
  /// never sees a half-made file (SQLite creates an empty file first, which another process
  /// would rightly refuse as truncated); when two processes create the file at once, one
  /// wins and the other opens its file.
  static func create(
    at path: String, migrator: DatabaseMigrator, configuration: Configuration
  ) throws(SQLiteDatabaseError) {
    let files = FileManager.default
    let temporary = "\(path).creating-\(UUID().uuidString)"
    defer {
      for suffix in ["", "-wal", "-shm", "-journal"]
      where files.fileExists(atPath: temporary + suffix) {
        do {
          try files.removeItem(atPath: temporary + suffix)
        } catch {
          // NB: a stray file under a name no one opens; the database itself is in place.
        }
      }
    }
    do {
      let queue = try DatabaseQueue(path: temporary, configuration: configuration)
      _ = try queue.writeWithoutTransaction { db in
        try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
      }
      try migrator.migrate(queue)
      // NB: the only connection: closing checkpoints the log into the file and removes it.
      try queue.close()
    } catch {
      throw SQLiteDatabaseError(error, path: path)
    }
    do {
      try files.linkItem(atPath: temporary, toPath: path)
    } catch {
      // Another process created the file first: that file is the database.
      guard files.fileExists(atPath: path) else { throw .cannotOpen(path: path) }
    }
  }

  /// Whether a connection may ignore the `-wal` file: it holds nothing.
  private var logIsEmpty: Bool { (logSize ?? 0) == 0 }

  /// The path a connection opens: the file, or, for a read-only open on read-only media, an
  /// `immutable` URI (no lock, no `-shm`), when no `-wal` file holds data it would miss.
  func connectionPath(readOnly: Bool) -> String {
    guard readOnly, !directoryIsWritable, logIsEmpty, Self.supportsURIs else { return path }
    return immutableURI
  }

  /// `file:` URI of `path` with `immutable=1`: SQLite opens it read-only and touches nothing.
  private var immutableURI: String {
    let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/".utf8)
    var escaped = ""
    for byte in path.utf8 {
      if allowed.contains(byte) {
        escaped.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        escaped += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    return "file:\(escaped)?immutable=1"
  }

  /// Whether this SQLite reads `file:` URIs in paths (GRDB does not ask for them per open).
  static let supportsURIs: Bool = {
    do {
      return try DatabaseQueue().read { db in
        try Bool.fetchOne(db, sql: "SELECT sqlite_compileoption_used('USE_URI')") ?? false
      }
    } catch {
      return false
    }
  }()

  /// Checks a file that a crash left with a hot rollback journal, without touching either:
  /// on a copy of both in a temporary folder, which the check rolls back (reading the file
  /// consistently needs the journal rolled back, a write).
  ///
  /// - Complexity: O(*n*) in the size of the file and its journal (the copy).
  func checkBehindHotJournal(
    migrator: DatabaseMigrator, verifiesIntegrity: Bool, configuration: Configuration
  ) throws(SQLiteDatabaseError) {
    let files = FileManager.default
    let folder = files.temporaryDirectory.appendingPathComponent(
      "reduxkit-check-\(UUID().uuidString)")
    let copy = folder.appendingPathComponent("database").path
    defer {
      do {
        try files.removeItem(at: folder)
      } catch {
        // NB: a copy in the temporary folder, which the system clears; the file is untouched.
      }
    }
    var configuration = configuration
    configuration.readonly = false
    do {
      try files.createDirectory(at: folder, withIntermediateDirectories: true)
      try files.copyItem(atPath: path, toPath: copy)
      try files.copyItem(atPath: path + "-journal", toPath: copy + "-journal")
    } catch {
      throw .cannotOpen(path: path)
    }
    do {
      let connection = try DatabaseQueue(path: copy, configuration: configuration)
      try connection.read { db in
        if verifiesIntegrity { try Self.verifyIntegrity(db, path: path) }
        try Self.refuseNewerSchema(db, path: path, migrator: migrator)
      }
      try connection.close()
    } catch {
      throw SQLiteDatabaseError(error, path: path)
    }
  }

  /// Checks an existing file through a read-only connection: integrity, and migrations this
  /// app does not know. Writes nothing; creates no `-wal` or `-shm` file unless a `-wal` file
  /// holding data is there to read (then SQLite needs its `-shm` index).
  func check(
    migrator: DatabaseMigrator, verifiesIntegrity: Bool, configuration: Configuration
  ) throws(SQLiteDatabaseError) {
    var configuration = configuration
    configuration.readonly = true
    let immutable = logIsEmpty && Self.supportsURIs
    do {
      try checkThrough(
        immutable ? immutableURI : path, migrator: migrator,
        verifiesIntegrity: verifiesIntegrity, configuration: configuration)
    } catch let error where immutable {
      // NB: an immutable connection reads without locks. If another process started writing
      // meanwhile (a `-wal` file with data appeared), what it read may be torn: read again,
      // with locks, before refusing the file.
      guard (Self.size(of: path + "-wal") ?? 0) > 0 else { throw error }
      try checkThrough(
        path, migrator: migrator, verifiesIntegrity: verifiesIntegrity,
        configuration: configuration)
    }
  }

  private func checkThrough(
    _ connectionPath: String, migrator: DatabaseMigrator, verifiesIntegrity: Bool,
    configuration: Configuration
  ) throws(SQLiteDatabaseError) {
    do {
      let connection = try DatabaseQueue(path: connectionPath, configuration: configuration)
      try connection.read { db in
        if verifiesIntegrity { try Self.verifyIntegrity(db, path: path) }
        try Self.refuseNewerSchema(db, path: path, migrator: migrator)
      }
    } catch {
      throw SQLiteDatabaseError(error, path: path)
    }
  }

  private static func verifyIntegrity(_ db: Database, path: String) throws {
    let problems = try String.fetchAll(db, sql: "PRAGMA quick_check")
    if problems != ["ok"] {
      throw SQLiteDatabaseError.corrupt(path: path, detail: problems.joined(separator: "; "))
    }
  }

  private static func refuseNewerSchema(
    _ db: Database, path: String, migrator: DatabaseMigrator
  ) throws {
    let unknown = try migrator.appliedIdentifiers(db).subtracting(migrator.migrations).sorted()
    if !unknown.isEmpty {
      throw SQLiteDatabaseError.newerSchema(path: path, unknownMigrations: unknown)
    }
  }
}

extension String {
  fileprivate func leftPadded(to length: Int) -> String {
    String(repeating: "0", count: max(0, length - count)) + self
  }
}
