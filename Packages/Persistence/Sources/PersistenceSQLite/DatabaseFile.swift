import GRDB

import struct Foundation.Data
import struct Foundation.FileAttributeKey
import struct Foundation.FileAttributeType
import class Foundation.FileHandle
import class Foundation.FileManager
import class Foundation.NSNumber
import struct Foundation.URL

/// The files of a database as found before anything opens them, and the checks that decide,
/// without writing a byte, whether the database may be opened.
///
/// NB: SQLite writes to a file as soon as a read-write connection opens it (GRDB sets up the
/// WAL with a transaction), and even a read-only connection creates `-wal` and `-shm` files it
/// then leaves behind. So the checks run first, on the bytes of the header and through a
/// connection opened `immutable` (no lock, no `-wal`, no `-shm`) whenever no `-wal` file holds
/// data that such a connection would not see.
struct DatabaseFile {
  enum State {
    case missing
    case empty
    case present
  }

  let path: String
  let state: State
  /// The first 100 bytes (SQLite's header), when the file is present.
  let header: [UInt8]
  /// The size of the `-wal` file, `nil` when there is none.
  let logSize: Int?
  /// A rollback journal left by a crash: it must be rolled back (a write) before the file
  /// can be read consistently.
  let hasHotJournal: Bool
  let isWritable: Bool
  let directoryIsWritable: Bool

  /// SQLite's magic string, which every database file starts with.
  static let magic = Array("SQLite format 3\0".utf8)

  init(path: String) throws(SQLiteDatabaseError) {
    self.path = path
    let files = FileManager.default
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    directoryIsWritable = files.isWritableFile(atPath: directory)
    logSize = Self.size(of: path + "-wal")
    hasHotJournal = (Self.size(of: path + "-journal") ?? 0) > 0
    guard files.fileExists(atPath: path) else {
      state = .missing
      header = []
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
    if (attributes[.size] as? NSNumber)?.intValue == 0 {
      state = .empty
      header = []
      return
    }
    state = .present
    do {
      let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
      header = Array(try handle.read(upToCount: 100) ?? Data())
      try handle.close()
    } catch {
      throw .cannotOpen(path: path)
    }
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

  /// Refuses, before anything is opened, what must not be: an empty file (unless `creation`
  /// allows it), a file that is not a database, a file that cannot be written when writing
  /// is asked for.
  ///
  /// - Returns: Whether the open starts a new database (nothing to check).
  func validate(
    readOnly: Bool, creation: SQLiteDatabase.Creation
  ) throws(SQLiteDatabaseError) -> Bool {
    switch state {
    case .missing:
      if readOnly { throw .cannotOpen(path: path) }
      if !directoryIsWritable { throw .readOnly }
      return true
    case .empty:
      guard creation == .ifMissingOrEmpty, !readOnly, (logSize ?? 0) == 0 else {
        throw .emptyFile(path: path)
      }
      if !isWritable || !directoryIsWritable { throw .readOnly }
      return true
    case .present:
      guard header.count == 100, header.starts(with: Self.magic) else {
        throw .notADatabase(path: path)
      }
      if !readOnly, !isWritable || !directoryIsWritable { throw .readOnly }
      return false
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

  /// The checks of ``check(migrator:verifiesIntegrity:configuration:)``, on an open connection.
  static func verify(_ db: Database, path: String, migrator: DatabaseMigrator) throws {
    try verifyIntegrity(db, path: path)
    try refuseNewerSchema(db, path: path, migrator: migrator)
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
